// A person's answer to a paused run: for one call, or for the calls of a batch by number.

/** A person's answer to a paused call: run it, refuse it (the model is told why), or run it with other arguments. */
export type CallDecision = { approve: true } | { deny: string } | { edit: Record<string, unknown> };

/**
 * A person's answer to a paused run: one call's decision (the call it waits at), or, for a batch, a decision per
 * call by its number (`{"calls": {"2": {"approve": true}, "3": {"deny": "…"}}}`).
 */
export type ApprovalDecision = CallDecision | { calls: Record<string, CallDecision> };
