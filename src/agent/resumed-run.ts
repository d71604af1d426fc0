// A paused run's state opened for a person's decision: one place for resumeAgent and for a sub-agent its parent resumes.
import type { Tool } from '../tools/tool';
import type { AgentConfig } from '../settings/config';
import { InputError } from '../core/input-error';
import { RunStateError, stateSecretProblem } from '../run-state/signed-state';
import { openPausedRun, type ApprovalDecision, type PausedRun } from './pause/paused-run';
import { checkBatchDecision, checkCallDecision } from './calls';
import { decidePlan, waitsOnPlan } from './plan';
import { AGENT_RESUME, type ChildResume } from './subagent';

/**
 * The state's paused run with the person's decision checked and applied before the state is used up (so a typo
 * can be fixed): a plan's decision (an edited plan checked as the model's is), or the calls' (edited arguments
 * checked as the model's are). RunStateError when the state does not open; InputError naming the field.
 */
export function openResumed(
	given: { runState: unknown; decision: unknown; stateSecret?: string },
	config: AgentConfig,
	allowed: ReadonlyMap<string, Tool>,
): { id: string; paused: PausedRun; decision?: ApprovalDecision } {
	const keyProblem = stateSecretProblem(given.stateSecret);
	if (keyProblem) throw new RunStateError(`run_state cannot be checked: ${keyProblem}`);
	const { id, paused } = openPausedRun(given.runState, given.stateSecret!, config);
	// A plan waiting for a person: the decision is checked (an edited plan as the model's) and applied here.
	if (waitsOnPlan(paused)) {
		decidePlan(paused, given.decision, { tools: allowed, config });
		return { id, paused };
	}
	const decision = checkDecision(given.decision);
	if (paused.batch.form === 'action' && 'calls' in decision)
		throw new InputError(
			'decision.calls',
			`the run paused on one call (${paused.pending.tool}), not a batch: give {"approve": true}, {"deny": "<reason>"} or {"edit": {…}}`,
		);
	checkBatchDecision(paused.batch, decision, allowed, config.approval_required);
	return { id, paused, decision };
}

/** A sub-agent's run that its parent resumes (issue #52): its state opened with the decision carried down, or none. */
export function resumedChild(
	options: object & { stateSecret?: string },
	config: AgentConfig,
	allowed: ReadonlyMap<string, Tool>,
): { paused: PausedRun; decision?: ApprovalDecision } | undefined {
	const child = (options as { [AGENT_RESUME]?: ChildResume })[AGENT_RESUME];
	if (!child) return undefined;
	const given = {
		runState: child.runState,
		decision: child.decision,
		stateSecret: options.stateSecret,
	};
	const { paused, decision } = openResumed(given, config, allowed);
	return { paused, decision };
}

function checkDecision(decision: unknown): ApprovalDecision {
	const value = (decision ?? {}) as Record<string, unknown>;
	if (!('calls' in value)) return checkCallDecision('decision', value);
	const { calls } = value;
	if (typeof calls !== 'object' || calls === null || Array.isArray(calls))
		throw new InputError(
			'decision.calls',
			'decision.calls must be an object of decisions by call number, e.g. {"calls": {"2": {"approve": true}, "3": {"deny": "not now"}}}',
		);
	const checked = Object.entries(calls).map(
		([number, one]) => [number, checkCallDecision(`decision.calls.${number}`, one)] as const,
	);
	return { calls: Object.fromEntries(checked) };
}
