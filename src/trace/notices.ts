// Notices the trace carries that something later reads back: one wording, written by the engine and read by the audit verifier.

/**
 * How a step's notice starts when a person edited a call's arguments while approving it (the calls room writes it);
 * the audit verifier reads it to know the call ran with args other than the model's (audit/plan-check.ts). Records
 * already written hold this wording: change it only with a reader for the old one.
 */
export const PERSON_EDITED_NOTICE = 'a person edited the arguments';
