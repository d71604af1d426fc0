/** A chat completion read as the engine's ChatResponse: text, finish reason, refusal, reasoning (whole or streamed), usage. */
import type OpenAI from 'openai';
import { describeUnexpectedBody, ProviderResponseError, type ChatResponse } from '../chat-model';
import type { TokenUsage } from '../../core/usage';
import { mapOpenAiFinishReason } from '../finish-reasons';

/** A chat completion's reply, or ProviderResponseError when the 200 body was something else (the SDK does not check). */
export function readCompletion(completion: unknown): ChatResponse {
	const choices = (completion as { choices?: unknown } | null)?.choices;
	if (typeof completion !== 'object' || completion === null || !Array.isArray(choices)) {
		throw new ProviderResponseError(
			`the endpoint answered HTTP 200 without a chat completion (body: ${describeUnexpectedBody(completion)}); check that the base URL is the API's /v1 URL`,
		);
	}
	const choice = (choices[0] ?? {}) as OpenAI.ChatCompletion.Choice & {
		message?: { refusal?: string | null };
	};
	const message = choice.message ?? ({} as OpenAI.ChatCompletionMessage);
	const toolCalls = (message.tool_calls ?? []).map(
		(call) => ('function' in call ? call.function?.name : undefined) ?? 'unnamed',
	);
	const usage = (completion as OpenAI.ChatCompletion).usage;
	const refused = typeof message.refusal === 'string' && message.refusal !== '';
	const finishReason = refused ? 'content_filter' : mapOpenAiFinishReason(choice.finish_reason);
	const thinking = reasoningOf(message);
	return {
		text: typeof message.content === 'string' ? message.content : '',
		usage: readOpenAiUsage(usage),
		// A stream without the usage chunk, or a server that sends no `usage`, reported none; zeros are a report.
		usageReported: typeof usage === 'object' && usage !== null,
		finishReason,
		...(refused
			? { finishMessage: `the model refused: ${message.refusal}` }
			: finishReason === 'content_filter'
				? { finishMessage: 'finish_reason content_filter' }
				: {}),
		...(thinking ? { reasoning: thinking } : {}),
		...(toolCalls.length ? { nativeToolCalls: toolCalls } : {}),
	};
}

/**
 * Chat completions' `usage` in the engine's form ([ON-usage]): reasoning tokens are inside `completion_tokens`
 * and cached and cache-write tokens inside `prompt_tokens`, each also detailed apart. Zeros for what is
 * missing; whether usage was sent at all is the caller's `usageReported`. The one reader of it, for this
 * adapter (plain and streamed: the stream's usage chunk has the same shape) and for ChatOpenAI's raw `usage`
 * through LangChain.
 */
export function readOpenAiUsage(usage: unknown): TokenUsage {
	const fields = (
		typeof usage === 'object' && usage !== null ? usage : {}
	) as Partial<OpenAI.CompletionUsage>;
	const count = (value: unknown) =>
		typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
	const prompt = count(fields.prompt_tokens);
	const completion = count(fields.completion_tokens);
	const reasoning = count(fields.completion_tokens_details?.reasoning_tokens);
	// [ON-usage] `prompt_tokens_details.cached_tokens` (cache reads; DeepSeek, xAI, Mistral report it too:
	// realworld cases `vercel:deepseek/chat:deepseek-json.json`, `vercel:xai:xai-text.chunks.txt`), and
	// `cache_write_tokens` (openai-node 7.5.0's types; OpenRouter reports it for Claude's cache writes:
	// `pyd:test_cache/test_openrouter_cache_all_settings_real_api#2`, cached 2240 + written 329 of 2572).
	const details = fields.prompt_tokens_details as
		| { cached_tokens?: unknown; cache_write_tokens?: unknown }
		| null
		| undefined;
	const cached = count(details?.cached_tokens);
	const cacheWrite = count(details?.cache_write_tokens);
	return {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: count(fields.total_tokens) || prompt + completion,
		...(reasoning ? { reasoning_tokens: reasoning } : {}),
		...(cached ? { cached_tokens: cached } : {}),
		...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
	};
}

/**
 * The reasoning field of a message or a stream delta: `reasoning_content` (DeepSeek, Z.ai, Qwen, Moonshot,
 * xAI, llama.cpp) or `reasoning` (Groq, OpenRouter, Cerebras, Ollama since v0.11.1, vLLM since #27752);
 * provider-behaviours.md §4 [OL-go], [VL-ro], [LC-readme]. A stream sends it in pieces, like the text, so a
 * piece is kept as it is (a lone space is part of the reasoning); '' when the holder has none.
 */
export function reasoningPiece(holder: object): string {
	const { reasoning_content: content, reasoning } = holder as {
		reasoning_content?: unknown;
		reasoning?: unknown;
	};
	if (typeof content === 'string' && content !== '') return content;
	return typeof reasoning === 'string' ? reasoning : '';
}

/**
 * The whole reasoning of a chat completion message (a plain reply's, or one joined from a stream by
 * collectChatCompletionStream), undefined when there is none or only whitespace. Realworld cases
 * `vercel:deepseek/chat:deepseek-json.json:protocol:plain`, `vercel:groq:groq-reasoning.json:protocol:plain`,
 * and streamed `vercel:xai:xai-text.chunks.txt:protocol:stream`, `pyd:test_zai/test_zai_thinking_stream#0:protocol:stream`.
 */
export function reasoningOf(message: object): string | undefined {
	const { reasoning_content: content, reasoning } = message as {
		reasoning_content?: unknown;
		reasoning?: unknown;
	};
	// A blank `reasoning_content` beside a real `reasoning` (a proxy that fills both) is no reasoning of its own.
	const text =
		typeof content === 'string' && content.trim() !== ''
			? content
			: typeof reasoning === 'string'
				? reasoning
				: '';
	return text.trim() === '' ? undefined : text;
}
