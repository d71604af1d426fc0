// Where a hook or a guardrail ends the run: the one file that decides finish reason `guardrail`.
import type { TraceStep } from '../../trace/types';
import type { StepOutcome } from '../base/step-outcome';

/** A block (or a hook that failed closed): the step records it, and the run ends `guardrail`. */
export function blockedBy(entry: TraceStep | undefined, detail: string): StepOutcome {
	if (entry) entry.error = { type: 'guardrail', message: detail };
	return { next: 'finish', reason: 'guardrail', detail };
}
