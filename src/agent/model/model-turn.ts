// One model turn: the limits before it, the conversation as the model receives it (files included), the call with
// failover and its tokens and cost, and its reply read as what it asks of the loop.
import { truncateObservation, type ChatMessage, type FileRef } from '../../core/messages';
import { addUsage, estimateWhenUnreported } from '../../core/usage';
import { fileTokens, hasBytes, type RunFile } from '../../files';
import type { ChatResponse, ResponseFormat } from '../../providers/chat-model';
import type { AgentConfig } from '../../settings/config';
import type { Tool } from '../../tools/tool';
import type { FinishReason, StepError, TraceStep } from '../../trace/types';
import type { AnswerRelease } from './answer/answer-release';
import type { RunLedger } from '../base/run-ledger';
import type { RepairReason } from '../base/streaks';
import { callWithFailover, type ModelChoice } from './model-call';
import { dataBlock, repairMessage, type PromptExamples } from '../protocol/prompt';
import type { ToolCallRequest } from '../protocol/actions-turn';
import { readReply } from '../protocol/protocol';
import { callArgs, withoutNullOptionals, type ProtocolFormat } from '../protocol/protocol-schema';
import { checkAnswer } from '../protocol/typed-answer';
import { abortedReason, timeLimit } from '../base/run-clock';
import type { Spending } from './shared-budget';
import { failedStep, limitReached, REPLY_EXCERPT, type StepOutcome } from '../base/step-outcome';

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

/**
 * The step's outcome when the reply answers or breaks the protocol; a plan (plan mode) as read; otherwise the
 * calls it asks for — one action in the `action` form — with their args as the protocol's schema sent them (see callArgs). An answer on
 * its way to the listener is released or called off here.
 */
export function replyTurn(
	entry: TraceStep,
	response: ChatResponse,
	context: {
		config: AgentConfig;
		format: ProtocolFormat;
		tools: ReadonlyMap<string, Tool>;
		release?: AnswerRelease;
	},
): StepOutcome | { calls: ToolCallRequest[]; form?: 'action' } | { planned: unknown } {
	const { config, format, tools, release } = context;
	const turn = readReply(response, config.max_output_tokens, format.rules);
	if (turn.reasoning) entry.reasoning = turn.reasoning;
	if (turn.kind === 'final')
		return answered(entry, turn.answer, response.text, format, config, release);
	release?.finishWithoutAnswer(
		turn.kind === 'error'
			? 'the reply broke the protocol'
			: turn.kind === 'plan'
				? 'the reply was a plan'
				: 'the reply was a tool call',
	);
	// Plan mode (issue #51): the plan room reads and checks it.
	if (turn.kind === 'plan') return { planned: turn.value };
	if (turn.kind === 'error') {
		entry.reply_excerpt = response.text.slice(0, REPLY_EXCERPT);
		if (response.finishReason === 'content_filter') {
			const why = response.finishMessage ? `: ${response.finishMessage}` : '';
			entry.error = {
				type: 'content_filter',
				message: `the provider withheld the reply (its safety filter)${why}`,
			};
			return { next: 'finish', reason: 'content_filter', detail: entry.error.message };
		}
		if (response.finishReason === 'length')
			return failedStep(
				entry,
				{ type: 'output_limit', message: turn.message },
				'max_output_tokens',
			);
		return failedStep(entry, { type: 'parse_error', message: turn.message }, 'parse_error');
	}
	const asked = turn.kind === 'actions' ? turn.calls : [{ tool: turn.tool, args: turn.args }];
	const calls = asked.map(({ tool, args }) => ({
		tool,
		args: callArgs(format, tools, tool, args),
	}));
	if (turn.kind === 'actions') return { calls };
	entry.action = calls[0];
	return { calls, form: 'action' };
}

/** A final reply, its answer checked against `output_schema` when the run has one: the run's answer, or a failed step (repair). */
function answered(
	entry: TraceStep,
	answer: unknown,
	reply: string,
	format: ProtocolFormat,
	config: Pick<AgentConfig, 'output_schema'>,
	release?: AnswerRelease,
): StepOutcome {
	const schema = config.output_schema;
	// Without output_schema the answer is the reply's text: typed answers are not asked (issue #49).
	const checked = schema
		? checkAnswer(withoutNullOptionals(answer, schema, format), schema)
		: { ok: true as const, text: answer as string };
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

/** After a failed step the model sees the error and gets one repair turn, unless the failure streak ends the run. */
export function repairOrEnd(
	ledger: Pick<RunLedger, 'failures' | 'conversation'>,
	failed: { error: StepError; reason: RepairReason },
	examples: PromptExamples,
): { reason: FinishReason; detail: string } | undefined {
	const { error, reason } = failed;
	const ended = ledger.failures.fail(error, reason);
	if (!ended)
		ledger.conversation.push({
			role: 'user',
			content: repairMessage(error.message, reason !== 'tool_error', examples),
		});
	return ended;
}

/**
 * The conversation as the model reads it when messages carry files (issue #40): a text file inside the data
 * wrapper, a file from an earlier turn (whose bytes are gone) as a one-line note, images and PDFs left as the parts
 * each provider adapter sends. The conversation itself keeps the files as they came, so a run state or a
 * checkpoint holds their references only and every model call is built from it the same way.
 */

const sizeOf = (bytes: number): string =>
	bytes >= 1024 * 1024
		? `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
		: bytes >= 1024
			? `${(bytes / 1024).toFixed(1)} KiB`
			: `${bytes} bytes`;

/** The heading a file's facts are given under: name, type and size. */
export const fileHeading = (file: FileRef): string =>
	`File ${file.name} (${file.type}, ${sizeOf(file.bytes)})`;

/**
 * What a later turn (or a run resumed without the file) reads for a file whose bytes it no longer has: this
 * wording is documented in docs/files.md.
 */
export const earlierFileNote = (file: FileRef): string =>
	`[${fileHeading(file)}, sha256 ${file.sha256.slice(0, 12)}…, was sent with this message; its content is not part of this request.]`;

/** A text file as the model reads it: inside the data wrapper, cut to `maxLength` characters with a visible marker. */
export const textFileBlock = (file: RunFile, maxLength: number): string =>
	dataBlock(`${fileHeading(file)}:`, truncateObservation(file.text(), maxLength));

/** One message as sent: text files and notes appended to its text, only images and PDFs with their bytes left as files. */
function modelMessage(message: ChatMessage, maxLength: number): ChatMessage {
	const blocks: string[] = [];
	const parts: RunFile[] = [];
	for (const file of message.files ?? []) {
		if (!hasBytes(file)) blocks.push(earlierFileNote(file));
		else if (file.kind === 'text') blocks.push(textFileBlock(file, maxLength));
		else parts.push(file);
	}
	const content = [message.content, ...blocks].filter((text) => text !== '').join('\n\n');
	return { role: message.role, content, ...(parts.length ? { files: parts } : {}) };
}

/** The conversation as sent to the model: messages without files are passed as they are. */
export function modelMessages(
	conversation: readonly ChatMessage[],
	maxLength: number,
): ChatMessage[] {
	return conversation.map((message) =>
		message.files?.length ? modelMessage(message, maxLength) : message,
	);
}

/** The prompt tokens of the images and PDFs in `messages`, by `provider`'s rule (text is counted as text). */
export function partTokens(messages: readonly ChatMessage[], provider: string): number {
	let total = 0;
	for (const message of messages)
		for (const file of message.files ?? []) if (hasBytes(file)) total += fileTokens(file, provider);
	return total;
}
