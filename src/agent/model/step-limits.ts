// The limits that end a run before its next model call: the token budget, the shared budget, and the run's signal.
import type { AgentConfig } from '../../settings/config';
import type { RunLedger } from '../base/run-ledger';
import { abortedReason } from '../base/run-clock';
import type { StepOutcome } from '../base/step-outcome';
import type { Spending } from './shared-budget';

/** The step's end when a limit is reached before its model call; undefined when the call may go ahead. */
export async function limitBeforeStep(
	config: AgentConfig,
	ledger: Pick<RunLedger, 'usage' | 'trace'>,
	spending: Spending,
	signal: AbortSignal,
): Promise<StepOutcome | undefined> {
	const budget = config.total_token_budget;
	const { usage, trace } = ledger;
	if (budget > 0 && usage.total_tokens >= budget) {
		return {
			next: 'finish',
			reason: 'token_budget',
			detail: `token usage ${usage.total_tokens} reached total_token_budget ${budget}`,
		};
	}
	return (
		(await spending.stopBeforeCall(trace, trace.length > 0)) ??
		(signal.aborted ? { next: 'finish', ...abortedReason(signal.reason) } : undefined)
	);
}
