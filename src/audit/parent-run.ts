// A sub-agent's run in the audit (issue #52): the parent's run and call its row names, and run ids decided once per run.
import type { TraceStep } from '../trace/types';

/**
 * Where a sub-agent's run was called from, as its audit row holds it (`parent_run`, chain version 6): the parent's
 * run id, the parent's trace step of the call, and the call's number in that step's batch (1-based; absent for a
 * single action). The parent's step holds the other half of the link: `sub_run.run_id` and `sub_run.trace_digest`.
 */
export interface ParentRun {
	run_id: string;
	step: number;
	call?: number;
}

/** Where a sub-agent's run options carry its ParentRun: a symbol key, as AGENT_DEPTH is, so no caller can give it. */
export const AUDIT_PARENT = Symbol.for('agent-core.audit-parent');

/** The ParentRun a run's options carry, when the run is a sub-agent's under an audited parent. */
export const parentRunOf = (options: object): ParentRun | undefined =>
	(options as { [AUDIT_PARENT]?: ParentRun })[AUDIT_PARENT];

/**
 * What a sub-agent's run options take from an audited parent's (issue #52): its audit target, origin, wait and
 * retention (not a fork's origin: the sub-agent's run is no fork), and the link to the call it runs under — the
 * parent's run id (decided when the parent's run started), the parent's open step (the last of its trace) and, in
 * a batch, the call's number (1-based).
 */
export function subAgentAudit<Audit extends { forkedFrom?: unknown }>(
	audit: Audit,
	parentRunId: string,
	trace: readonly TraceStep[],
	call: number | undefined,
): { audit: Omit<Audit, 'forkedFrom'>; [AUDIT_PARENT]: ParentRun } {
	const { forkedFrom: _fork, ...own } = audit;
	const step = trace[trace.length - 1];
	const parent: ParentRun = {
		run_id: parentRunId,
		step: step?.step ?? 0,
		...(call !== undefined ? { call } : {}),
	};
	return { audit: own, [AUDIT_PARENT]: parent };
}
