// Trying guardrails and hooks on past audited runs (issue #50): the room's door.
export {
	replayGuardrails,
	AuditReadError,
	type ReplayGuardrailsOptions,
} from './replay-guardrails';
export { guardRecord } from './guard-record';
export type {
	GuardrailReplayReport,
	ReplayedDecision,
	RunGuardrailsReport,
	UnverifiedRun,
	WouldEnd,
} from './report-types';
