// The output's `guardrails_tripped` (issue #50): the decisions other than allow that hooks and guardrails took.
import type { GuardrailDecision, TraceStep } from '../../trace/types';

/** Each step's decisions, and before_run's when the run ended before its first step (else step 1 lists them). */
export function tripped(
	trace: readonly TraceStep[],
	beforeRun: readonly GuardrailDecision[] = [],
): number {
	const early = trace.length === 0 ? beforeRun.length : 0;
	return trace.reduce((sum, entry) => sum + (entry.guardrails?.length ?? 0), early);
}
