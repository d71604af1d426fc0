// A step's calls part way through (issue #42; one action is a batch of one): what became of each, kept in a run state or checkpoint.
import type { RunFile } from '../../files';
import type { FinishReason, StepError, SubRun } from '../../trace/types';
import { callLabel, type ToolCallRequest } from '../protocol/actions-turn';
import type { CallDecision } from '../pause/decision';
import type { ChildPause } from '../subagent';

/** What became of one call of a batch. */
export type SettledCall =
	/** It ran: its observation (with the notes of files left out) or its error, and the files that go with it. */
	| {
			kind: 'ran';
			text: string;
			error?: StepError;
			elapsed_ms: number;
			files?: RunFile[];
			/** A sub-agent's call (issue #52): its run. */
			sub_run?: SubRun;
	  }
	/** An identical call earlier in the batch answers it (`as`: that call's index). */
	| { kind: 'same'; as: number }
	/** The loop breaker answered it from an earlier step's identical call. */
	| { kind: 'answer'; text: string; of: number | string }
	/** Not run: a limit (max_tool_calls, loop) was reached at or before it. */
	| { kind: 'limit'; text: string; reason: FinishReason; detail: string }
	/** A person refused it. */
	| { kind: 'denied'; text: string };

/**
 * A batch part way through: its calls exactly as asked (args edited by a person replace the model's), what became
 * of each settled call (by index), the calls with side effects that started and were never recorded as done
 * (a durable run interrupted while they ran), and the read-only calls that were running then.
 */
/** A call the run decided to run and counted: its index and the loop breaker's key. */
export interface RunningCall {
	index: number;
	key: string;
}

export interface BatchState {
	calls: ToolCallRequest[];
	settled: Record<number, SettledCall>;
	started: number[];
	/** Calls without side effects that were decided, counted and started, and have not ended (they run again). */
	running?: RunningCall[];
	/** The call a paused batch waits at (for a person's decision). */
	waiting?: number;
	/**
	 * `action`: the reply asked for one call (`{"type":"action"}`), and the step reads as one call — its
	 * `action` and `observation` in the trace, the observation message of one tool — rather than as a batch.
	 */
	form?: 'action';
	/** before_tool ran on every call (issue #50): a paused or checkpointed batch is not checked again. */
	guarded?: true;
	/** Plan mode (issue #51): the plan's step of each call, in order; their observations go to the model after the plan. */
	plan?: number[];
	/** The calls are steps of a plan a person approved: a tool in approval_required does not ask again. */
	approved?: true;
	/** Sub-agents (issue #52) that paused for a person, by call index: the parent resumes each with the decision. */
	children?: Record<number, ChildPause>;
}

/** A person's decisions on a paused batch's calls, by index (0-based here; `call n` is 1-based for people). */
export type BatchDecisions = Map<number, CallDecision>;

/**
 * The calls of a run state sealed before one action was a batch of one: its pending call, as such a batch (a new
 * step's batch is made by the call path, calls/step-calls.ts). A durable run's checkpoint sealed that call just
 * before it ran, so the call counts as started.
 */
export const pendingAsBatch = (pending: ToolCallRequest, checkpoint: boolean): BatchState => ({
	calls: [{ tool: pending.tool, args: pending.args }],
	settled: {},
	started: checkpoint ? [0] : [],
	form: 'action',
	...(checkpoint ? {} : { waiting: 0 }),
});

/** How each call of a paused batch stands, for the person who decides (`pending_action.batch`). */
export function batchView(
	batch: BatchState,
	needsApproval: (tool: string) => boolean,
): Array<{ call: number; tool: string; args: Record<string, unknown>; status: string }> {
	return batch.calls.map(({ tool, args }, index) => ({
		call: index + 1,
		tool,
		args,
		status:
			batch.settled[index]?.kind === 'ran'
				? 'ran'
				: batch.settled[index] !== undefined
					? 'settled'
					: needsApproval(tool)
						? 'needs_approval'
						: 'waiting',
	}));
}

/** `call n (tool)`, as repair turns and decisions name a call. */
export const callName = (batch: BatchState, index: number) =>
	`${callLabel(index)} (${batch.calls[index].tool})`;
