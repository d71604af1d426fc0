// A step's calls as the loop takes them: a new step's batch, the one call path, and its pause turned into the run's paused output.
import type { TraceStep } from '../../trace/types';
import type { ToolCallRequest } from '../protocol/actions-turn';
import type { StepOutcome } from '../base/step-outcome';
import { pausedOutput } from '../pause/paused-run';
import { progressOf } from '../pause/progress';
import { callName, type BatchDecisions, type BatchState } from '../pause/calls-state';
import { runCalls } from './run-calls';
import type { ChildPause } from '../subagent';
import type { CallsRun } from './calls-run';

/** A new step's calls as a fresh batch: nothing settled, nothing started; `form` `action` for the one call of an action reply. */
export const newBatch = (calls: readonly ToolCallRequest[], form?: 'action'): BatchState => ({
	calls: calls.map(({ tool, args }) => ({ tool, args })),
	settled: {},
	started: [],
	...(form ? { form } : {}),
});

/** The step's calls through the one call path; a pause there ends the run awaiting a person, its state sealed. */
export async function stepCalls(
	run: CallsRun,
	entry: TraceStep,
	batch: BatchState,
	stateSecret: string | undefined,
	decisions?: BatchDecisions,
): Promise<StepOutcome> {
	const outcome = await runCalls(run, entry, batch, decisions);
	if (outcome.next !== 'pause') return outcome;
	batch.waiting = outcome.at;
	const child = batch.children?.[outcome.at];
	// A sub-agent's pause (issue #52) is shown as what waits inside it: `researcher › http_request` and that call.
	const { tool, args } = child ? childPending(child) : batch.calls[outcome.at];
	const name = batch.form === 'action' || child ? tool : callName(batch, outcome.at);
	const detail = outcome.detail ?? `${name} waits for a person's approval`;
	const pending = { tool, args };
	const progress = { ...progressOf(run.ledger, entry.step, batch), pending, batch };
	const { redactor, config } = run.context;
	return awaitingApproval(detail, pausedOutput(progress, redactor, stateSecret!, config));
}

/** The run pauses for a person: its output gets `paused` (what waits, and the signed run state). */
export function awaitingApproval(detail: string, paused: Record<string, unknown>): StepOutcome {
	return { next: 'finish', reason: 'awaiting_approval', detail, paused };
}

/** What waits inside a paused sub-agent, named by its path: its call, or its plan (`researcher › plan`). */
function childPending(child: ChildPause): { tool: string; args: Record<string, unknown> } {
	if (child.pending_action)
		return {
			tool: `${child.agent} › ${child.pending_action.tool}`,
			args: child.pending_action.args,
		};
	return { tool: `${child.agent} › plan`, args: { steps: child.pending_plan?.steps ?? [] } };
}
