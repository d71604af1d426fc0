// What one step of the loop came to: the three-way outcome AgentRun acts on, and the two that record an error on the step.
import type { FinishReason, StepError, TraceStep } from '../trace/types';
import type { AnswerRelease } from './answer/answer-release';
import type { RepairReason } from './failure-streak';
import type { RunAnswer } from './run-result';
import type { AgentConfig } from '../settings/config';
import { checkAnswer } from './protocol/typed-answer';
import { type ProtocolFormat, withoutNullOptionals } from './protocol/protocol-schema';

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

/** A limit ends the run at this step, which records why; an answer on its way to the listener is called off. */
export function limitReached(
	entry: TraceStep,
	reason: FinishReason,
	message: string,
	release?: AnswerRelease,
): StepOutcome {
	release?.finishWithoutAnswer(message);
	entry.error = { type: 'limit', message };
	return { next: 'finish', reason, detail: message };
}

/** A failed step, which records its error: the model gets the repair turn unless the failure streak ends the run. */
export function failedStep(entry: TraceStep, error: StepError, reason: RepairReason): StepOutcome {
	entry.error = error;
	return { next: 'repair', error, reason };
}

/** A final reply, its answer checked against `output_schema` when the run has one: the run's answer, or a failed step (repair). */
export function answered(
	entry: TraceStep,
	answer: unknown,
	reply: string,
	format: ProtocolFormat,
	config: Pick<AgentConfig, 'output_schema'>,
	release?: AnswerRelease,
): StepOutcome {
	const schema = config.output_schema;
	const checked = checkAnswer(withoutNullOptionals(answer, schema, format), schema);
	if (!checked.ok) {
		release?.finishWithoutAnswer('the answer did not match output_schema');
		entry.reply_excerpt = reply.slice(0, REPLY_EXCERPT);
		return failedStep(
			entry,
			{ type: 'output_invalid', message: checked.message },
			'output_invalid',
		);
	}
	release?.finishWithAnswer(checked.text);
	entry.final = { answer: checked.value ?? checked.text };
	return { next: 'finish', reason: 'final', answer: checked };
}
