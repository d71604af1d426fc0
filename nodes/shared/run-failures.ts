import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';
import type { AgentResult, FinishReason } from '../../src/run-path';
import { pendingPlanLines, planList } from './plan-list';

/** What the node does with a run that ended on a model error or a run timeout. */
export type OnModelError = 'fail' | 'returnItem';
/** What the node does with a run that ended on one of its limits (max_steps, token_budget, parse_error…). */
export type OnLimitReached = 'returnItem' | 'fail';

/** The panel's choices for the finish reasons that are not `final`. */
export interface RunFailurePolicy {
	onModelError: OnModelError;
	onLimitReached: OnLimitReached;
}

/** Ends that n8n should treat as a failed API call, so that Retry On Fail and Error Workflows act on them. */
const MODEL_FAILURES: ReadonlySet<FinishReason> = new Set(['llm_error', 'timeout']);
/** Not a failure of the run: n8n itself cancelled the execution, and reports that on its own. */
const NOT_FAILURES: ReadonlySet<FinishReason> = new Set([
	'final',
	'cancelled',
	'awaiting_approval',
]);

const STATUS_HINTS: Record<number, string> = {
	401: 'The provider refused the API key: check the credential.',
	403: 'The API key may not use this model or endpoint: check the credential and the model.',
	404: 'The provider does not know this model or address: check the model ID and the credential’s base URL.',
	429: 'The provider is rate-limiting or out of quota: Retry On Fail with a wait between tries, or lower Max Concurrent Model Calls.',
};

/**
 * The n8n error a finished run should be thrown as under `policy`, or undefined when the run is an
 * ordinary output item. A model error becomes a NodeApiError with the provider's HTTP status; a limit
 * (only when asked) a NodeOperationError naming the finish reason.
 */
export function runFailureError(
	context: IExecuteFunctions,
	result: AgentResult,
	policy: RunFailurePolicy,
	itemIndex: number,
): NodeApiError | NodeOperationError | undefined {
	const reason = result.finish_reason;
	if (NOT_FAILURES.has(reason)) return undefined;
	const message = result.stop_detail ?? `the run ended with finish_reason ${reason}`;
	if (MODEL_FAILURES.has(reason)) {
		if (policy.onModelError !== 'fail') return undefined;
		const status = providerStatusOf(result);
		const description =
			(status !== undefined ? STATUS_HINTS[status] : undefined) ??
			(reason === 'timeout'
				? 'The run hit its time limit: raise Run Timeout or Single Call Timeout under Limits, or let Retry On Fail try again.'
				: 'The model call failed after the provider retries; Retry On Fail can try again.');
		const error = new NodeApiError(
			context.getNode(),
			{ message, finish_reason: reason, ...(status !== undefined ? { status } : {}) } as JsonObject,
			{
				message,
				description,
				itemIndex,
				...(status !== undefined ? { httpCode: String(status) } : {}),
			},
		);
		// NodeApiError rewrites messages that mention common error codes; ours already says what happened.
		error.message = message;
		return error;
	}
	if (policy.onLimitReached !== 'fail') return undefined;
	const error = new NodeOperationError(context.getNode(), message, {
		itemIndex,
		description: `The run ended with finish_reason ${reason}. Set Options → On Limit Reached to Return the Run as an Item to get it as output instead.`,
	});
	error.message = message;
	return error;
}

/** The provider's HTTP status of the failed model call, as the engine recorded it in the trace. */
export function providerStatusOf(result: AgentResult): number | undefined {
	for (let index = result.trace.length - 1; index >= 0; index--) {
		const error = result.trace[index].error;
		if (error?.type === 'llm_error') return error.status;
	}
	return undefined;
}

/**
 * The item a failed run becomes under Continue On Fail: the error message with what the run did before it
 * stopped (the partial trace, the tokens it used, why it ended), so the error branch can log or bill it.
 */
export function failedRunJson(
	result: AgentResult,
	error: NodeApiError | NodeOperationError,
	sessionId: string,
): IDataObject {
	const status =
		error instanceof NodeApiError && error.httpCode ? Number(error.httpCode) : undefined;
	return {
		error: error.message,
		...(status !== undefined ? { status } : {}),
		finish_reason: result.finish_reason,
		...(result.stop_detail !== undefined ? { stop_detail: result.stop_detail } : {}),
		trace: result.trace,
		usage: result.usage,
		used_tools: result.used_tools,
		elapsed_ms: result.elapsed_ms,
		model: result.model,
		provider: result.provider,
		...(sessionId ? { session_id: sessionId } : {}),
	} as unknown as IDataObject;
}

/** Why a run gave no answer, in the words a chat user reads; the engine's stop_detail follows in brackets. */
const NO_ANSWER_BECAUSE: Record<Exclude<FinishReason, 'final'>, string> = {
	max_steps: 'the agent used all its steps before it answered',
	max_tool_calls: 'the agent used all its tool calls before it answered',
	timeout: 'the run ran out of time',
	token_budget: 'the run used up its token budget',
	llm_error: 'the model call failed',
	parse_error: "the model's replies did not follow the answer format",
	tool_error: 'a tool kept failing',
	max_output_tokens: "the model's reply was cut off at its output token limit",
	content_filter: "the provider's content filter blocked the reply",
	output_invalid: 'the answer did not match the output schema',
	loop: 'the agent kept repeating the same tool call',
	budget_exhausted: 'the shared token budget is used up',
	budget_unavailable: 'the shared token budget could not be checked',
	cost_limit: 'the run reached its cost limit',
	awaiting_approval: 'a tool call is waiting for approval',
	interrupted_call: 'a tool call was interrupted, and it is not repeated without a check',
	cancelled: 'the execution was cancelled',
	guardrail: 'a guardrail stopped the run',
	plan_rejected: 'the plan was rejected',
	plan_step_failed: 'a step of the plan failed',
};

/**
 * The item's `output`, the field n8n's Chat Trigger and Chat Hub show as the reply: the answer, or, when the
 * run ended without one, one sentence saying why (n8n's chat shows the whole item as JSON when `output` is empty):
 * `limitWords` when the node names the limit in its panel's words. A plan waiting for approval (issue #51) is
 * listed step by step under that sentence, unless `planShown` (a stream already showed it as the plan arrived).
 */
export function chatOutput(result: AgentResult, limitWords?: string, planShown = false): string {
	if (result.finish_reason === 'final') return result.final_answer;
	const plan = result.finish_reason === 'awaiting_approval' ? pendingPlanLines(result) : undefined;
	if (plan) {
		if (planShown) return 'No answer: the plan above waits for approval.';
		const steps = `${plan.length} step${plan.length === 1 ? '' : 's'}`;
		return `No answer: the plan of ${steps} waits for approval:\n${planList(plan)}`;
	}
	// A limit the user set, named as the panel names it, says all there is to say (see AgentCore/execute/output/limit-words.ts).
	if (limitWords) return `No answer: ${limitWords}.`;
	const because =
		NO_ANSWER_BECAUSE[result.finish_reason] ??
		`the run ended with finish_reason ${result.finish_reason}`;
	// The detail's first sentence only (a provider's message may add advice of its own), so the whole stays one.
	// A guardrail's detail may quote a hook's own reason: the chat names no more than that one stopped the run.
	const detail = (result.finish_reason === 'guardrail' ? undefined : result.stop_detail)
		?.trim()
		.split(/\.\s/)[0]
		.replace(/[.\s]+$/, '');
	return `No answer: ${because}${detail ? ` (${detail})` : ''}.`;
}
