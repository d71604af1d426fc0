// What the one call path is lent for a step: the run's parts as values, passed down; what the calls came to goes back up as an outcome.
import type { RunFile } from '../../files';
import type { RunLedger } from '../base/run-ledger';
import type { CallEvents } from '../base/events';
import type { DurableRun } from '../pause/checkpoints';
import { progressOf } from '../pause/progress';
import type { StepOutcome } from '../base/step-outcome';
import { observationOf, toolErrorOf, type ToolCallContext, type ToolOutcome } from './execute-tool';
import type { BatchState } from '../pause/calls-state';
import type { HookChain } from '../hooks';
import type { Tool } from '../../tools/tool';
import { runSubAgent, type ChildPause, type SubAgentParent } from '../subagent';

/** The run's parts a step's calls use: nothing here calls back into the loop. */
export interface CallsRun {
	/** What every call of the run shares: tools, config, redactor, trusted text, session, the run's signal. */
	readonly context: ToolCallContext;
	/** The run's record, which the calls add to (counters, used tools, the loop breaker, the observations). */
	readonly ledger: RunLedger;
	/** A durable run's checkpoints, when the run has a run key. */
	readonly durable?: DurableRun;
	readonly tell: CallEvents;
	/** The files the caller gave a resumed run: the bytes of files that calls settled before a pause returned. */
	readonly givenFiles: readonly RunFile[];
	/** The run's hooks and built-in guardrails: before_tool and after_tool run for every call; absent when it has none. */
	readonly hooks?: HookChain;
	/** What a sub-agent's call (issue #52) needs of the run beyond the above: see subagent/run-sub-agent.ts. */
	readonly agents: Pick<SubAgentParent, 'options' | 'deadline' | 'spent' | 'start' | 'runId'>;
}

/**
 * A sub-agent's call: its run (see runSubAgent), its answer read as any tool's observation is (the run's redactor,
 * then observation_max_len), its failure as any tool's error message is.
 */
export async function subAgentCall(
	run: CallsRun,
	tool: Tool,
	task: string,
	resume?: { paused: ChildPause; decision: unknown },
	call?: number,
): Promise<ToolOutcome & { paused?: ChildPause }> {
	const { config, redactor, runSignal } = run.context;
	const parent = { ...run.agents, config, ledger: run.ledger, redactor, runSignal };
	const outcome = await runSubAgent(parent, tool, task, resume, call);
	if (!outcome.ok)
		return {
			...outcome,
			error: { ...outcome.error, message: toolErrorOf(tool.name, outcome.error.message, redactor) },
		};
	return {
		...outcome,
		observation: observationOf(outcome.observation, redactor, config.observation_max_len),
	};
}

/** What a step's calls came to: the step's outcome, or a pause before call `at` for a person's decision. */
export type CallsOutcome = StepOutcome | { next: 'pause'; at: number; detail?: string };

/**
 * A durable run's checkpoint of the calls as they stand, sealed now and written by the returned function (the
 * callers ask only when the run is durable: a run without a run key never reads its progress here).
 */
export function sealCalls(
	durable: DurableRun,
	run: CallsRun,
	step: number,
	batch: BatchState,
): () => Promise<void> {
	// One call is also named as the step's pending call, as a checkpoint of one call always named it.
	const pending = batch.form === 'action' ? batch.calls[0] : undefined;
	const progress = progressOf(run.ledger, step, batch, pending);
	return durable.beforeCall(progress, run.context.redactor);
}
