// Where a run stands at a step, read off its ledger: what a paused run's state and a durable run's checkpoint hold.
import type { RunLedger } from '../base/run-ledger';
import type { BatchState } from './calls-state';
import { runCost } from '../model/shared-budget';
import type { RunProgress } from './paused-run';

/** The run's progress at `step`, with the call it waits at (`pending`) and its calls part way through (`batch`). */
export function progressOf(
	ledger: RunLedger,
	step: number,
	batch?: BatchState,
	pending?: RunProgress['pending'],
): RunProgress {
	const { conversation, trace, usage, usedTools, toolCalls, trustedText } = ledger;
	return {
		step,
		...(pending ? { pending } : {}),
		...(batch ? { batch } : {}),
		conversation,
		new_user_message: ledger.newUserMessage,
		trace,
		usage,
		used_tools: usedTools,
		tool_calls: toolCalls,
		trusted_text: trustedText,
		cost: runCost(trace)?.total ?? 0,
		failures: ledger.failures.length,
		repeats: ledger.repeats.snapshot(),
		...(ledger.plan ? { plan: ledger.plan } : {}),
	};
}
