/** A LangChain chat model's reply (an AIMessage, or merged AIMessageChunks) read as the engine's ChatResponse, whichever provider package built it. */
import type { ChatResponse, ModelFinishReason } from '../chat-model';
import type { TokenUsage } from '../../core/usage';
import { anthropicFinishMessage, readAnthropicUsage } from './anthropic';
import {
	mapAnthropicStopReason,
	mapGeminiFinishReason,
	mapOllamaDoneReason,
	mapOpenAiFinishReason,
	mapResponsesStatus,
} from '../finish-reasons';
import { readOpenAiUsage } from '../openai';

type Fields = Record<string, unknown>;

/** The fields of an AIMessage / AIMessageChunk read here; every one may be missing (typed structurally: n8n's objects come from its own @langchain/core). */
export interface MessageLike {
	content?: unknown;
	additional_kwargs?: Record<string, unknown>;
	response_metadata?: Record<string, unknown>;
	usage_metadata?: Record<string, unknown>;
	tool_calls?: Array<{ name?: unknown }>;
	tool_call_chunks?: Array<{ name?: unknown; args?: unknown; id?: unknown }>;
	concat?(other: unknown): MessageLike;
}

/** A model's reply as a message; anything that is not an object reads as an empty message. */
export function asMessage(value: unknown): MessageLike {
	return typeof value === 'object' && value !== null ? (value as MessageLike) : {};
}

/** A whole reply (from `invoke`, or the merged chunks of a stream) as the engine's ChatResponse. */
export function readReply(message: MessageLike): ChatResponse {
	const { text, reasoning } = splitContent(message);
	const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((call) =>
		typeof call?.name === 'string' && call.name !== '' ? call.name : 'unnamed',
	);
	const finish = finishOf(message);
	const usage = usageOf(message);
	return {
		text,
		usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
		usageReported: usage !== undefined,
		...(finish.reason ? { finishReason: finish.reason } : {}),
		...(finish.message ? { finishMessage: finish.message } : {}),
		...(toolCalls.length ? { nativeToolCalls: toolCalls } : {}),
		...reasoningField(reasoning),
	};
}

/** The optional `reasoning` field, present only when there was reasoning text. */
export function reasoningField(reasoning: string): { reasoning?: string } {
	return reasoning === '' ? {} : { reasoning };
}

/**
 * The message's reply text and its reasoning, apart. `content` is a string or a list of blocks: text blocks
 * make the text; `thinking` (Anthropic, Gemini) and `reasoning` (OpenAI Responses, LangChain's standard
 * blocks) make the reasoning; `redacted_thinking` carries no readable text; other blocks (tool use, images)
 * are neither. DeepSeek and vLLM reasoning arrives as `additional_kwargs.reasoning_content`.
 */
export function splitContent(message: MessageLike): { text: string; reasoning: string } {
	const texts: string[] = [];
	const reasonings: string[] = [];
	const content = message.content;
	if (typeof content === 'string') texts.push(content);
	for (const block of Array.isArray(content) ? content : []) {
		if (typeof block === 'string') texts.push(block);
		else if (typeof block !== 'object' || block === null) continue;
		else if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
		else if (block.type === 'thinking' && typeof block.thinking === 'string')
			reasonings.push(block.thinking);
		else if (block.type === 'reasoning' && typeof block.reasoning === 'string')
			reasonings.push(block.reasoning);
	}
	const extra = message.additional_kwargs?.reasoning_content;
	if (typeof extra === 'string') reasonings.push(extra);
	return { text: texts.join(''), reasoning: reasonings.join('') };
}

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;
const filled = (value: unknown): boolean => typeof value === 'string' && value !== '';

/**
 * Whether a streamed chunk carries anything of the reply: text or reasoning, a tool call or a piece of one
 * (`tool_call_chunks`, OpenAI's `additional_kwargs.tool_calls`), a refusal, or a content block that is not an
 * empty text (a tool-use or image block). Usage, finish and role-only chunks carry none.
 */
export function hasContent(message: MessageLike): boolean {
	const { text, reasoning } = splitContent(message);
	if (text !== '' || reasoning !== '') return true;
	if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) return true;
	const pieces = Array.isArray(message.tool_call_chunks) ? message.tool_call_chunks : [];
	if (pieces.some((piece) => isObject(piece) && [piece.name, piece.args, piece.id].some(filled)))
		return true;
	const extra = message.additional_kwargs ?? {};
	if ((Array.isArray(extra.tool_calls) && extra.tool_calls.length > 0) || filled(extra.refusal))
		return true;
	const blocks = Array.isArray(message.content) ? message.content : [];
	return blocks.some(
		(block) => isObject(block) && !['text', 'thinking', 'reasoning'].includes(String(block.type)),
	);
}

/** A non-negative count, or 0 for anything else. */
function count(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** The parts of a count detailed apart: reasoning in the output, cache reads and writes in the input. */
interface Parts {
	reasoning?: unknown;
	cacheRead?: unknown;
	cacheWrite?: unknown;
}

/** Usage in the engine's form, with the total filled in when the provider left it out. */
function usage(
	prompt: unknown,
	completion: unknown,
	total: unknown,
	parts: Parts = {},
): TokenUsage {
	const prompt_tokens = count(prompt);
	const completion_tokens = count(completion);
	const reasoning_tokens = count(parts.reasoning);
	const cached_tokens = count(parts.cacheRead);
	const cache_write_tokens = count(parts.cacheWrite);
	return {
		prompt_tokens,
		completion_tokens,
		total_tokens: count(total) || prompt_tokens + completion_tokens,
		...(reasoning_tokens ? { reasoning_tokens } : {}),
		...(cached_tokens ? { cached_tokens } : {}),
		...(cache_write_tokens ? { cache_write_tokens } : {}),
	};
}

/**
 * Token usage from wherever the class put it: LangChain's standard `usage_metadata` first (its
 * `input_tokens` already hold cached and cache-creation tokens, detailed in `input_token_details.cache_read`
 * and `.cache_creation`; `output_token_details.reasoning` the reasoning ones); else
 * `response_metadata.tokenUsage` (LangChain's older form, without cache counts), the raw `usage` (OpenAI's
 * names, or Anthropic's, whose input is three counts), or Ollama's eval counts. Undefined when none is there.
 */
export function usageOf(message: MessageLike): TokenUsage | undefined {
	const metadata = message.response_metadata ?? {};
	const standard = message.usage_metadata;
	if (isObject(standard)) {
		const output = isObject(standard.output_token_details) ? standard.output_token_details : {};
		const input = isObject(standard.input_token_details) ? standard.input_token_details : {};
		// @langchain/anthropic 1.5.6 fills cache_read and cache_creation from Anthropic's two cache counts;
		// @langchain/openai 1.4.4 fills cache_read from `prompt_tokens_details.cached_tokens` (chat completions)
		// or `input_tokens_details.cached_tokens` (Responses API) but drops `cache_write_tokens`, which is read
		// from the raw `usage` it keeps in response_metadata (always when streamed; with a system_fingerprint otherwise).
		const cacheWrite =
			input.cache_creation ??
			(isObject(metadata.usage) ? readOpenAiUsage(metadata.usage).cache_write_tokens : undefined);
		return usage(standard.input_tokens, standard.output_tokens, standard.total_tokens, {
			reasoning: output.reasoning,
			cacheRead: input.cache_read,
			cacheWrite,
		});
	}
	const legacy = metadata.tokenUsage;
	if (isObject(legacy))
		return usage(legacy.promptTokens, legacy.completionTokens, legacy.totalTokens);
	const raw = metadata.usage;
	if (isObject(raw) && raw.input_tokens !== undefined && raw.prompt_tokens === undefined)
		return readAnthropicUsage(raw);
	if (isObject(raw) && (raw.prompt_tokens !== undefined || raw.completion_tokens !== undefined))
		return readOpenAiUsage(raw);
	if (metadata.prompt_eval_count !== undefined || metadata.eval_count !== undefined)
		return usage(metadata.prompt_eval_count, metadata.eval_count, undefined);
	return undefined;
}

/**
 * Why the model stopped, from the provider's own field: OpenAI `finish_reason` (or a `refusal`, which is a
 * content filter), Gemini `finishReason`, Anthropic `stop_reason` (in `response_metadata` from `invoke`; in
 * `additional_kwargs` when @langchain/anthropic streams, where its `message_delta` chunk puts it), Ollama
 * `done_reason`, the Responses API `status`. Empty when none is there.
 */
export function finishOf(message: MessageLike): { reason?: ModelFinishReason; message?: string } {
	const metadata = message.response_metadata ?? {};
	const extra = message.additional_kwargs ?? {};
	const refusal = extra.refusal;
	if (typeof refusal === 'string' && refusal !== '')
		return { reason: 'content_filter', message: `the model refused: ${refusal}` };
	const finish = metadata.finish_reason ?? metadata.finishReason;
	// Gemini's values are upper-case enums (STOP, MAX_TOKENS, SAFETY), under either key depending on the LangChain package.
	if (finish != null)
		return {
			reason:
				typeof finish === 'string' && /^[A-Z_]+$/.test(finish)
					? mapGeminiFinishReason(finish)
					: mapOpenAiFinishReason(finish),
		};
	const stopReason = metadata.stop_reason ?? extra.stop_reason;
	if (stopReason != null) {
		return {
			reason: mapAnthropicStopReason(stopReason),
			message: anthropicFinishMessage(stopReason, metadata.stop_details ?? extra.stop_details),
		};
	}
	if (metadata.done_reason != null) return { reason: mapOllamaDoneReason(metadata.done_reason) };
	if (metadata.status != null)
		return { reason: mapResponsesStatus(metadata.status, metadata.incomplete_details) };
	return {};
}
