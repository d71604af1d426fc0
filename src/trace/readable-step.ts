import type { ModelFinishReason } from '../providers/chat-model';
import { roundedCost } from '../budget/model-catalogue';
import type { StepError, TraceCall, TraceStep } from './types';

/** The same step with its fields in reading order: what was asked, what came of it, then timings. */
export function readableStep(entry: TraceStep): TraceStep {
	const {
		step,
		provider,
		model,
		action,
		final,
		observation,
		error,
		repair,
		elapsed_ms,
		model_ms,
		tool_ms,
		usage,
		cost,
		...rest
	} = entry;
	return {
		step,
		...(provider !== undefined ? { provider } : {}),
		...(model !== undefined ? { model } : {}),
		...(action ? { action } : {}),
		...(final ? { final } : {}),
		...(observation !== undefined ? { observation } : {}),
		...(error ? { error } : {}),
		repair,
		elapsed_ms,
		model_ms,
		...(tool_ms !== undefined ? { tool_ms } : {}),
		...(usage ? { usage } : {}),
		...(cost !== undefined ? { cost: cost && roundedCost(cost) } : {}),
		...rest,
	};
}

/** The provider's finish reason as a step shows it: `length` for a cut reply, `content_filter` for a withheld one, else `stop`. */
export function stepFinishReason(step: TraceStep): ModelFinishReason {
	if (step.error?.type === 'output_limit') return 'length';
	if (step.error?.type === 'content_filter') return 'content_filter';
	return 'stop';
}

/**
 * The step errors of a tool call whose outcome the model was told: the call was refused (not allowed, invalid
 * args), or the tool failed or timed out. A call a limit or the run's end stopped never came back to the model.
 */
export const TOOL_CALL_ERRORS: ReadonlySet<StepError['type']> = new Set([
	'tool_not_allowed',
	'invalid_args',
	'tool_error',
	'tool_timeout',
]);

/**
 * Whether a call of an "actions" step was stopped before it ran: a limit (max_tool_calls, loop) ended the run
 * within the batch, and this call's observation is the batch runner's "not run: <why the run ended>" notice.
 */
export function callStoppedByLimit(step: TraceStep, call: TraceCall): boolean {
	return (
		step.error?.type === 'limit' &&
		call.error === undefined &&
		call.repeat_of === undefined &&
		(call.observation?.endsWith(`not run: ${step.error.message}`) ?? false)
	);
}

/** Whether a call of an "actions" step ran its tool: not refused, not stopped, not answered by an identical call. */
export function callRan(step: TraceStep, call: TraceCall): boolean {
	if (call.repeat_of !== undefined || callStoppedByLimit(step, call)) return false;
	return call.error
		? call.error.type === 'tool_error' || call.error.type === 'tool_timeout'
		: call.observation !== undefined;
}

/** How many tool calls ran in a trace: a one-call step that ran its tool, and each call of a batch step that ran. */
export function callsThatRan(trace: readonly TraceStep[]): number {
	let count = 0;
	for (const step of trace)
		if (step.calls) count += step.calls.filter((call) => callRan(step, call)).length;
		else if (step.tool_ms !== undefined || step.observation !== undefined) count++;
	return count;
}
