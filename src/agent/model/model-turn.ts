// A step's model call as the run keeps it: the limits checked before it, the call (with failover), its tokens and cost counted, its reply kept.
import type { ChatMessage } from '../../core/messages';
import { addUsage, estimateWhenUnreported } from '../../core/usage';
import type { ChatResponse, ResponseFormat } from '../../providers/chat-model';
import type { AgentConfig } from '../../settings/config';
import type { TraceStep } from '../../trace/types';
import type { AnswerRelease } from './answer/answer-release';
import type { RunLedger } from '../base/run-ledger';
import { callWithFailover, type ModelChoice } from './model-call';
import { modelMessages, partTokens } from '../protocol/file-messages';
import { abortedReason, timeLimit } from '../base/run-clock';
import type { Spending } from './shared-budget';
import { limitReached, type StepOutcome } from '../base/step-outcome';

/** What a step's model call needs of the run. */
export interface ModelTurnContext {
	config: AgentConfig;
	models: ModelChoice;
	spending: Spending;
	ledger: RunLedger;
	/** The run's response format (see protocolFormat). */
	format: ResponseFormat;
	runSignal: AbortSignal;
	/** Each attempt's answer stream to the listener, or none. */
	release: () => AnswerRelease | undefined;
	/** before_model (issue #50): the hooks may change this one call's messages, or end the step. */
	beforeModel?: (messages: ChatMessage[]) => Promise<ChatMessage[] | StepOutcome>;
}

/**
 * The step's model call on the conversation so far. A failed call (after its retries and the fallback) or
 * a shared budget that cannot be charged ends the run; else the reply, counted in the trace, the usage and
 * the cost, and added to the conversation.
 */
export async function modelTurn(
	entry: TraceStep,
	context: ModelTurnContext,
): Promise<StepOutcome | { response: ChatResponse; release?: AnswerRelease }> {
	const { config, ledger, runSignal } = context;
	let sent = modelMessages(ledger.conversation, config.observation_max_len);
	if (context.beforeModel) {
		const changed = await context.beforeModel(sent);
		if (!Array.isArray(changed)) return changed;
		sent = changed;
	}
	const request = { config, format: context.format, messages: sent, runSignal };
	const { call, release } = await callWithFailover(context.models, entry, context.release, request);
	entry.model_ms = Math.round(call.elapsedMs);
	if (!call.ok) {
		entry.error = call.error;
		if (call.runAborted) return { next: 'finish', ...abortedReason(runSignal.reason) };
		const { type, message } = call.error;
		if (type === 'timeout') return { next: 'finish', ...timeLimit(message) };
		return { next: 'finish', reason: 'llm_error', detail: message };
	}
	const { response } = call;
	const tokens = partTokens(sent, entry.provider ?? '');
	entry.usage = estimateWhenUnreported(call.usage, response, sent, tokens);
	if (response.notices?.length) entry.notices = [...(entry.notices ?? []), ...response.notices];
	addUsage(ledger.usage, call.usage);
	const model = { name: entry.model ?? '', provider: entry.provider ?? '' };
	const uncharged = await context.spending.record(entry, call.usage, model);
	ledger.conversation.push({ role: 'assistant', content: response.text });
	if (uncharged) {
		release?.finishWithoutAnswer(uncharged.detail);
		return limitReached(entry, uncharged.reason, uncharged.detail);
	}
	return { response, release };
}

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
