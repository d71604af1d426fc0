// The Chat Completions wire format: the request built (a run's files as content parts, the prompt cache key,
// the response format) and the reply read (text, finish reason, refusal, reasoning whole or streamed, usage).
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import {
	describeUnexpectedBody,
	ProviderResponseError,
	type ChatRequest,
	type ChatResponse,
	type ResponseFormat,
} from '../chat-model';
import type { DroppableField } from '../refused-fields';
import { hasFilesKey, type ChatMessage } from '../../core/messages';
import type { TokenUsage } from '../../core/usage';
import { sentFiles, withoutFiles, type SentFile } from '../file-parts';
import { mapOpenAiFinishReason } from '../finish-reasons';

/**
 * OpenAI's `prompt_cache_key` ([ON-cc] `prompt_cache_key`: "used by OpenAI to cache responses for similar
 * requests to optimize your cache hit rates"): requests with the same key and prefix are routed together, so
 * the runs of one configuration share a cache. The key is a hash of the stable part of the system message,
 * which Agent Core writes first and ends at the message's first blank line (the protocol rules and the
 * tools: src/agent/prompt.ts), so the workflow's own text and the conversation after it never change the key.
 * None without a leading system message. An endpoint that refuses the field is called again without it.
 */
export function promptCacheKey(messages: ChatRequest['messages']): string | undefined {
	const first = messages[0];
	if (first?.role !== 'system' || first.content === '') return undefined;
	const end = first.content.indexOf('\n\n');
	const stable = end === -1 ? first.content : first.content.slice(0, end);
	// Every step of a run, and every run of a configuration, sends the same stable part: hashed once.
	if (stable !== lastStable) {
		lastStable = stable;
		lastKey = `agent-core-${createHash('sha256').update(stable).digest('hex').slice(0, 32)}`;
	}
	return lastKey;
}
/** The last stable part hashed and its key (a one-entry memo: the hash is pure). */
let lastStable: string | undefined;
let lastKey = '';

export function withPromptCacheKey(request: ChatRequest): { prompt_cache_key?: string } {
	const key = promptCacheKey(request.messages);
	return key ? { prompt_cache_key: key } : {};
}

/**
 * The engine's response format as chat completions' `response_format`; none for free text. A schema goes
 * strict in its strict form when it has one ([ON-shared], provider-behaviours.md §1.4), else non-strict;
 * after the endpoint refused it, plain JSON mode.
 */
export function openAiResponseFormat(
	format: ResponseFormat,
	dropped: ReadonlySet<DroppableField>,
): OpenAI.ResponseFormatJSONObject | OpenAI.ResponseFormatJSONSchema | undefined {
	if (format.type === 'text') return undefined;
	if (format.type === 'json_object' || dropped.has('json_schema')) return { type: 'json_object' };
	const strict = format.strictSchema !== undefined;
	return {
		type: 'json_schema',
		json_schema: { name: format.name, schema: format.strictSchema ?? format.schema, strict },
	};
}

/**
 * Chat completions messages with a run's files (issue #40). A user message with images or PDFs becomes a
 * list of content parts, its text first and then each file in order, in the shapes of openai-node's types
 * (node_modules/openai/resources/chat/completions/completions.d.ts):
 * - an image: `ChatCompletionContentPartImage` `{type: 'image_url', image_url: {url}}`, the url a `data:`
 *   URL ("Either a URL of the image or the base64 encoded image data");
 * - a PDF: `ChatCompletionContentPart.File` `{type: 'file', file: {filename, file_data}}`, `file_data` a
 *   `data:application/pdf;base64,…` URL as OpenAI's PDF guide sends it and as @langchain/openai's
 *   `completionsApiContentBlockConverter.fromStandardFileBlock` builds it (converters/completions.js).
 * Every other message is sent exactly as before. This is one file as such a content part.
 */
export function openAiFilePart(
	file: SentFile,
	urlOf: (file: SentFile) => string = (sent) => sent.dataUrl(),
): OpenAI.ChatCompletionContentPart {
	if (file.kind === 'image') return { type: 'image_url', image_url: { url: urlOf(file) } };
	return { type: 'file', file: { filename: file.name, file_data: urlOf(file) } };
}

/** The request's messages for chat completions: with files as content parts, the rest as they are. */
export function openAiMessages(
	messages: readonly ChatMessage[],
	/** Where each file's data URL is written (see ../file-body.ts); default: the data URL itself. */
	urlOf?: (file: SentFile) => string,
): OpenAI.ChatCompletionMessageParam[] {
	return messages.map((message) => {
		if (!hasFilesKey(message)) return message as OpenAI.ChatCompletionMessageParam;
		const files = sentFiles(message);
		const plain = withoutFiles(message) as OpenAI.ChatCompletionMessageParam;
		if (files.length === 0) return plain;
		// An empty text part is left out: the files are the whole message then.
		const parts: OpenAI.ChatCompletionContentPart[] = [
			...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
			...files.map((file) => openAiFilePart(file, urlOf)),
		];
		return { ...plain, role: 'user', content: parts } as OpenAI.ChatCompletionUserMessageParam;
	});
}

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
