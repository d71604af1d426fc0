// A sub-agent's run in the audit (issue #52): the parent's run and call its row names, and run ids decided once per run.
import { randomUUID } from 'node:crypto';
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

const runIds = new WeakMap<object, string>();

/**
 * A run's audit run id, decided the first time it is asked for and the same after: by a sub-agent's call (its row
 * names the parent before the parent's row exists) or by the run's own row. `run` is an object the run owns alone
 * and both see (the run's redactor): one id per run, never shared by two runs that were given the same options.
 */
export function auditRunId(run: object): string {
	let id = runIds.get(run);
	if (id === undefined) {
		id = randomUUID();
		runIds.set(run, id);
	}
	return id;
}

/**
 * What a sub-agent's run options take from an audited parent's (issue #52): its audit target, origin, wait and
 * retention (not a fork's origin: the sub-agent's run is no fork), and the link to the call it runs under — the
 * parent's run id (see auditRunId, keyed by `parentRun`), the parent's open step (the last of its trace) and, in a
 * batch, the number of the step's first call of this sub-agent with this task (identical calls of a step run once).
 */
export function subAgentAudit<Audit extends { forkedFrom?: unknown }>(
	audit: Audit,
	parentRun: object,
	trace: readonly TraceStep[],
	agent: string,
	task: string,
): { audit: Omit<Audit, 'forkedFrom'>; [AUDIT_PARENT]: ParentRun } {
	const { forkedFrom: _fork, ...own } = audit;
	const step = trace[trace.length - 1];
	const index = (step?.calls ?? []).findIndex(
		(call) => call.tool === agent && call.args?.task === task,
	);
	const parent: ParentRun = {
		run_id: auditRunId(parentRun),
		step: step?.step ?? 0,
		...(index >= 0 ? { call: index + 1 } : {}),
	};
	return { audit: own, [AUDIT_PARENT]: parent };
}
