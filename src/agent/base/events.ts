import type { Redactor } from '../../trace/redact';
import type { FinishReason } from '../../trace/types';
import type { PlanRun } from './plan-run';

/**
 * What a run reports while it happens (`RunAgentOptions.onEvent`), in this order per step:
 * `step_start`, then either `action` and `observation`, or the final answer's `answer_delta`s; `done` last.
 * Every text in an event went through the run's redactor.
 */
export type AgentEvent =
	/** A model turn begins (repair turns included). */
	| { type: 'step_start'; step: number }
	/** The model asked for a tool; `summary` is one line: the tool and its arguments, shortened. */
	| { type: 'action'; step: number; tool: string; summary: string }
	/** The tool call's outcome; `ok: false` for a refused or failed call. `summary` is one line. */
	| { type: 'observation'; step: number; tool: string; ok: boolean; summary: string }
	/**
	 * The next piece of the final answer's text. Concatenated since the last `answer_restart`, the pieces
	 * equal the result's `final_answer` when the run ends `final`.
	 */
	| { type: 'answer_delta'; text: string }
	/** Answer text sent so far is void (the reply broke the protocol, was an action, or was retried). */
	| { type: 'answer_restart'; reason: string }
	/**
	 * Plan mode (issue #51): the plan the model sent at `step` passed its checks; each of its steps with its tool and
	 * its description on one line. Its steps then run as trace steps of their own (`action`, `observation`).
	 */
	| { type: 'plan'; step: number; steps: Array<{ step: number; tool: string; summary: string }> }
	/** The run ended; the result follows. */
	| { type: 'done'; finish_reason: FinishReason };

/** Listener for a run's events; it is called synchronously, so it should only hand the event on. */
export type AgentEventListener = (event: AgentEvent) => void;

/** Length of an event summary: enough to recognise a call, short enough for one line of a chat. */
export const SUMMARY_MAX_LENGTH = 120;

/** `text` on one line (whitespace runs become one space), cut to `maxLength` characters with an ellipsis. */
export function oneLine(text: string, maxLength = SUMMARY_MAX_LENGTH): string {
	// Only the head can show, so a long observation is not flattened whole.
	const flat = text
		.slice(0, maxLength * 16)
		.replace(/\s+/g, ' ')
		.trim();
	if (flat.length <= maxLength) return flat;
	let cut = maxLength - 1;
	// Never end on the first half of a surrogate pair: JSON would carry it as a broken "\ud83d".
	if (/[\uD800-\uDBFF]/.test(flat[cut - 1])) cut--;
	return `${flat.slice(0, cut)}…`;
}

/** The `action` summary: the tool and its redacted arguments as compact JSON, on one line. */
export function actionSummary(
	tool: string,
	args: Record<string, unknown>,
	redactor: Redactor,
): string {
	// Redacted before it is cut, so the cut never leaves the first characters of a secret.
	return oneLine(redactor.text(`${tool} ${JSON.stringify(redactor.value(args))}`));
}

/** The `observation` summary: the redacted observation or error message, on one line. */
export function observationSummary(text: string, redactor: Redactor): string {
	return oneLine(redactor.text(text));
}

/** Hands an event to the listener, if any. The listener only watches: its failure must not change the run or its result. */
export function tell(listener: AgentEventListener | undefined, event: AgentEvent): void {
	try {
		listener?.(event);
	} catch {
		// Ignored on purpose (see above).
	}
}

/** A call's events for the listener: on its way (`action`) and what it came to (`observation`). */
export interface CallEvents {
	action(step: number, tool: string, args: Record<string, unknown>): void;
	observation(step: number, tool: string, ok: boolean, text: string): void;
}

/** The call events of a run whose listener is `listener`: a run nobody listens to makes no summaries. */
export function callEvents(
	listener: AgentEventListener | undefined,
	redactor: Redactor,
): CallEvents {
	return {
		action(step, tool, args) {
			if (listener)
				tell(listener, {
					type: 'action',
					step,
					tool,
					summary: actionSummary(tool, args, redactor),
				});
		},
		observation(step, tool, ok, text) {
			if (listener)
				tell(listener, {
					type: 'observation',
					step,
					tool,
					ok,
					summary: observationSummary(text, redactor),
				});
		},
	};
}

/** The `plan` event of a plan that passed its checks at `step`: each step's description, redacted, on one line. */
export function planEvent(plan: PlanRun, step: number, redactor: Redactor): AgentEvent {
	const steps = plan.steps.map(({ step: number, tool, description }) => ({
		step: number,
		tool,
		summary: oneLine(redactor.text(description)),
	}));
	return { type: 'plan', step, steps };
}
