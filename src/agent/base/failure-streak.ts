import type { FinishReason, StepError } from '../../trace/types';

/** Failures that get the one repair turn, each naming the finish reason of a second failure in a row. */
export type RepairReason = 'parse_error' | 'tool_error' | 'max_output_tokens' | 'output_invalid';

/**
 * Failed steps in a row: after the first, the model gets its one repair turn; a second ends the run, with
 * `max_output_tokens` only when both replies were cut at the output limit.
 */
export class FailureStreak {
	constructor(
		private count = 0,
		private lastType?: StepError['type'],
	) {}

	/** Whether the next step is the model's repair turn. */
	get repairing(): boolean {
		return this.count > 0;
	}

	/** How many failures in a row so far (carried in a paused run's state). */
	get length(): number {
		return this.count;
	}

	reset(): void {
		this.count = 0;
		this.lastType = undefined;
	}

	/** After a failed step: how the run ends on a second failure in a row; undefined when it gets the repair turn. */
	fail(
		error: StepError,
		reason: RepairReason,
	): { reason: FinishReason; detail: string } | undefined {
		this.count++;
		const previousCut = this.lastType === 'output_limit';
		this.lastType = error.type;
		if (this.count < 2) return undefined;
		return {
			reason: reason === 'max_output_tokens' && !previousCut ? 'parse_error' : reason,
			detail: `two failed turns in a row; last: ${error.message}`,
		};
	}
}
