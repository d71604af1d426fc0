import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import {
	describeUnexpectedBody,
	ProviderResponseError,
	type ChatModel,
	type ChatRequest,
	type ChatResponse,
	type ResponseFormat,
} from './chat-model';
import type { TokenUsage } from '../core/usage';
import { collectChatCompletionStream } from './openai-stream';
import { reasoningOf } from './openai-reasoning';
import { callDroppingRefusedFields, type DroppableField } from './refused-fields';
import { decideByStatus, DEFAULT_MAX_RETRIES, withRetries, type RetryDecision } from './retry';
import { streamedTextFor, type StreamedText } from './streamed-text';
import { fileRefusal, withUpstreamReason } from './provider-errors';
import { openAiSdk } from './openai-sdk';
import { mapOpenAiFinishReason } from './finish-reasons';
import { openAiMessages } from './openai-parts';
import { bodyWithFiles, fileMarkers } from './file-body';

/** Connection settings of an OpenAI or OpenAI-compatible endpoint. */
export interface OpenAiModelOptions {
	apiKey: string;
	/** e.g. https://api.openai.com/v1 (default), or any OpenAI-compatible server's /v1 URL. */
	baseUrl?: string;
	/** Retries of 408/409/429/5xx and connection errors, with abortable waits (default 2). */
	maxRetries?: number;
}

/** Chat completions through the official `openai` SDK. */
export class OpenAiChatModel implements ChatModel {
	readonly provider = 'openai';
	readonly secrets: readonly string[];
	private readonly client: OpenAI;
	private readonly maxRetries: number;
	/** Fields an endpoint refused, so later calls of the same model object leave them out. */
	private readonly refused = new Set<DroppableField>();

	constructor(options: OpenAiModelOptions) {
		this.secrets = [options.apiKey];
		this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
		this.client = new (openAiSdk())({
			apiKey: options.apiKey,
			baseURL: options.baseUrl || undefined,
			// Retries are ours (./retry.ts): the SDK's retry sleep ignores the abort signal.
			maxRetries: 0,
			// The engine enforces single_call_timeout itself through the abort signal.
			timeout: 24 * 3600 * 1000,
		});
	}

	async generate(request: ChatRequest): Promise<ChatResponse> {
		const streamed = streamedTextFor(request);
		try {
			return await callDroppingRefusedFields(
				request,
				this.refused,
				(dropped) =>
					withRetries(() => this.complete(request, dropped, streamed), {
						maxRetries: this.maxRetries,
						signal: request.signal,
						deadline: request.deadline,
						classify: (error) => classifyOpenAiError(error, streamed !== undefined),
					}),
				(error, dropped) => refusedField(error, request, dropped),
			);
		} catch (error) {
			throw fileRefusal(error, request) ?? withReadableMessage(error);
		}
	}

	/** One attempt; with a stream listener it streams ([ON-cc] `stream: true`), else it asks for the whole reply. */
	private async complete(
		request: ChatRequest,
		dropped: ReadonlySet<DroppableField>,
		streamed?: StreamedText,
	): Promise<ChatResponse> {
		const format = dropped.has('response_format')
			? undefined
			: openAiResponseFormat(request.responseFormat, dropped);
		// With files, the body is written by bodyWithFiles (each file's base64 in chunks), not by the SDK.
		const markers = fileMarkers();
		const body: OpenAI.ChatCompletionCreateParamsNonStreaming = {
			model: request.model,
			messages: openAiMessages(request.messages, markers.urlOf),
			...(request.temperature === undefined || dropped.has('temperature')
				? {}
				: { temperature: request.temperature }),
			...(request.maxOutputTokens === undefined
				? {}
				: { max_completion_tokens: request.maxOutputTokens }),
			...(request.reasoningEffort === undefined
				? {}
				: { reasoning_effort: request.reasoningEffort }),
			...(format ? { response_format: format } : {}),
			...(dropped.has('prompt_cache_key') ? {} : withPromptCacheKey(request)),
		};
		const written = (sent: object) => {
			if (!markers.files.length) return {};
			const { body: stream, length } = bodyWithFiles(sent, markers);
			const headers = { 'content-type': 'application/json', 'content-length': String(length) };
			return { body: stream, headers };
		};
		if (!streamed) {
			const completion: unknown = await this.client.chat.completions.create(body, {
				signal: request.signal,
				...written(body),
			});
			return readCompletion(completion);
		}
		streamed.beginAttempt();
		// include_usage: the usage comes on one extra chunk before [DONE] (provider-behaviours.md §1.6).
		const streaming = {
			...body,
			stream: true as const,
			...(dropped.has('stream_options') ? {} : { stream_options: { include_usage: true } }),
		};
		const stream = await this.client.chat.completions.create(streaming, {
			signal: request.signal,
			...written(streaming),
		});
		return readCompletion(await collectChatCompletionStream(stream, streamed, request.signal));
	}

	async listModels(signal?: AbortSignal): Promise<string[]> {
		const ids: string[] = [];
		for await (const model of this.client.models.list({ signal })) ids.push(model.id);
		return ids.sort();
	}
}

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

function withPromptCacheKey(request: ChatRequest): { prompt_cache_key?: string } {
	const key = promptCacheKey(request.messages);
	return key ? { prompt_cache_key: key } : {};
}

/** A chat completion's reply, or ProviderResponseError when the 200 body was something else (the SDK does not check). */
function readCompletion(completion: unknown): ChatResponse {
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
 * openai-node words an error `<status> <error.message>` ([ON-err]), which reads well, except where a router
 * puts the real reason in the body's metadata (OpenRouter's 429 "Provider returned error"): then the
 * reason is added. The error keeps its class and fields.
 */
function withReadableMessage(error: unknown): unknown {
	if (!(error instanceof openAiSdk().APIError)) return error;
	const readable = withUpstreamReason(error.message, error.error);
	if (readable) error.message = readable;
	return error;
}

function classifyOpenAiError(error: unknown, streaming: boolean): RetryDecision {
	if (error instanceof openAiSdk().APIUserAbortError) return { retry: false };
	if (error instanceof openAiSdk().APIConnectionError) return { retry: true };
	// An error event inside a 200 stream: openai-node throws it without a status and never retries it ([ON-stream]).
	if (error instanceof openAiSdk().APIError && error.status === undefined) return { retry: false };
	if (error instanceof openAiSdk().APIError) return decideByStatus(error.status, error.headers);
	// A stream whose connection broke mid-reply fails with undici's TypeError ("terminated"): a connection
	// error like any other, retried after the text already passed on is voided. By name: it may come from another realm.
	if (streaming && (error as Error | null)?.name === 'TypeError') return { retry: true };
	return { retry: false };
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
 * The request field a 400/422 refuses, when it is one the call can do without: `response_format` (an
 * endpoint without JSON mode), a user-set `temperature` (GPT-5 and o-series models accept only their
 * default: provider-behaviours.md §1.1, `param: "temperature"`, code `unsupported_value` or
 * `unsupported_parameter`), `prompt_cache_key` (compatible servers that refuse unknown fields) or, on a streamed
 * call, `stream_options`.
 */
function refusedField(
	error: unknown,
	request: ChatRequest,
	dropped: ReadonlySet<DroppableField>,
): DroppableField | undefined {
	if (!(error instanceof openAiSdk().APIError) || (error.status !== 400 && error.status !== 422))
		return undefined;
	if (
		request.responseFormat.type !== 'text' &&
		!dropped.has('response_format') &&
		(error.param === 'response_format' ||
			/response_format|json_object|json_schema/i.test(error.message))
	) {
		// A refused schema first falls back to plain JSON mode, once; JSON mode refused too, to none.
		return request.responseFormat.type === 'json_schema' && !dropped.has('json_schema')
			? 'json_schema'
			: 'response_format';
	}
	if (
		request.temperature !== undefined &&
		!dropped.has('temperature') &&
		(error.param === 'temperature' || /'temperature'/.test(error.message))
	) {
		return 'temperature';
	}
	if (
		!dropped.has('prompt_cache_key') &&
		promptCacheKey(request.messages) &&
		(error.param === 'prompt_cache_key' || /prompt_cache_key/.test(error.message))
	) {
		return 'prompt_cache_key';
	}
	// OpenAI-compatible servers that stream but predate stream_options refuse the field.
	if (
		request.onTextDelta &&
		!dropped.has('stream_options') &&
		(error.param === 'stream_options' || /stream_options/.test(error.message))
	) {
		return 'stream_options';
	}
	return undefined;
}
