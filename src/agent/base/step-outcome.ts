// What one step of the loop came to: the three-way outcome AgentRun acts on, and the two that record an error on the step.
import type { FinishReason, StepError, TraceStep } from '../../trace/types';
import type { RepairReason } from './streaks';

/** A final answer as the run reports it: its text, and with `output_schema` the value that matched. */
export interface RunAnswer {
	text: string;
	value?: unknown;
}

/** Characters of a reply that broke the protocol (or whose answer did not match), kept in the trace. */
export const REPLY_EXCERPT = 500;

/**
 * What one step came to: go on with the observation the step added, repair (the model sees the error and
 * gets one more turn), or finish the run. Every way a run ends is a `finish` that the loop acts on.
 */
export type StepOutcome =
	| { next: 'continue' }
	| { next: 'repair'; error: StepError; reason: RepairReason }
	| {
			next: 'finish';
			reason: FinishReason;
			detail?: string;
			answer?: RunAnswer;
			paused?: Record<string, unknown>;
	  };

/** A limit ends the run at this step, which records why. */
export function limitReached(entry: TraceStep, reason: FinishReason, message: string): StepOutcome {
	entry.error = { type: 'limit', message };
	return { next: 'finish', reason, detail: message };
}

/** A failed step, which records its error: the model gets the repair turn unless the failure streak ends the run. */
export function failedStep(entry: TraceStep, error: StepError, reason: RepairReason): StepOutcome {
	entry.error = error;
	return { next: 'repair', error, reason };
}
