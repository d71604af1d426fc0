import type { GenerateContentParameters, GoogleGenAI } from '@google/genai';
import { mapGeminiFinishReason } from './finish-reasons';
import { loadOnce } from '../core/load-once';

/** The @google/genai SDK, loaded when the first client is made (see loadOnce). */
const genAi = loadOnce(() => require('@google/genai') as typeof import('@google/genai'));
import {
	describeUnexpectedBody,
	ProviderResponseError,
	type ChatModel,
	type ChatRequest,
	type ChatResponse,
	type ReasoningEffort,
} from './chat-model';
import { type FileMarkers, fileMarkers } from './file-body';
import { toGeminiContents } from './gemini-parts';
export { toGeminiContents } from './gemini-parts';
import { collectGeminiStream, isStreamErrorEvent, type GeminiReply } from './gemini-stream';
import { callDroppingRefusedFields, type DroppableField } from './refused-fields';
import { decideByStatus, DEFAULT_MAX_RETRIES, withRetries } from './retry';
import { fileRefusal, ProviderHttpError, readGeminiError, shortMessage } from './provider-errors';
import { fetchKeepingFinishMessage, type RawReplyNotes } from './gemini-raw';
import { streamedTextFor, type StreamedText } from './streamed-text';

/** Connection settings of the Gemini API. */
export interface GeminiModelOptions {
	apiKey: string;
	/** Overrides https://generativelanguage.googleapis.com (e.g. a proxy or a local test server). */
	baseUrl?: string;
	/** Retries of 408/429/5xx and connection errors, with abortable waits (default 2). */
	maxRetries?: number;
}

/**
 * `reasoning_effort` as a Gemini thinking budget in tokens (provider-behaviours.md §2: `thinkingBudget`,
 * 0 disables; 2.5 Flash takes 0–24576). `minimal` asks for the least thinking a model allows.
 */
export const GEMINI_THINKING_BUDGETS: Record<ReasoningEffort, number> = {
	minimal: 0,
	low: 1024,
	medium: 8192,
	high: 24576,
};

/** generateContent through the official `@google/genai` SDK. */
export class GeminiChatModel implements ChatModel {
	readonly provider = 'gemini';
	readonly secrets: readonly string[];
	private readonly client: GoogleGenAI;
	private readonly maxRetries: number;
	/** Fields the endpoint refused, so later calls of the same model object leave them out. */
	private readonly refused = new Set<DroppableField>();

	constructor(options: GeminiModelOptions) {
		this.secrets = [options.apiKey];
		this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
		// No `retryOptions`: the SDK's retries (p-retry) sleep past the abort signal; ./retry.ts does them.
		this.client = new (genAi().GoogleGenAI)({
			apiKey: options.apiKey,
			httpOptions: options.baseUrl ? { baseUrl: options.baseUrl } : {},
		});
	}

	async generate(request: ChatRequest): Promise<ChatResponse> {
		const streamed = streamedTextFor(request);
		return callDroppingRefusedFields(
			request,
			this.refused,
			(dropped) => this.generateOnce(request, dropped, streamed),
			(error, dropped) => refusedField(error, request, dropped),
		).catch((error: unknown) => Promise.reject(fileRefusal(error, request) ?? error));
	}

	private async generateOnce(
		request: ChatRequest,
		dropped: ReadonlySet<DroppableField>,
		streamed?: StreamedText,
	): Promise<ChatResponse> {
		// Each attempt's ApiError is read at once (status, message, RetryInfo), so the retry waits as the body asks.
		const attempt = () =>
			this.call(request, dropped, streamed).catch((error: unknown) =>
				Promise.reject(readGeminiError(error)),
			);
		const response = await withRetries(attempt, {
			maxRetries: this.maxRetries,
			signal: request.signal,
			deadline: request.deadline,
			classify: (error) => {
				if (request.signal.aborted) return { retry: false };
				// An error event inside a 200 stream is the provider's answer to this call, not retried (as openai-node does not).
				if (isStreamErrorEvent(error) || (error instanceof ProviderHttpError && error.inStream))
					return { retry: false };
				if (error instanceof ProviderHttpError)
					return decideByStatus(error.status, undefined, error.retryAfterMs);
				// fetch's own failure (connection refused or reset, or broken mid-stream) is a TypeError; anything
				// else is not retried. By name: undici's TypeError may come from another realm (as under jest).
				return { retry: (error as Error | null)?.name === 'TypeError' };
			},
		});
		return readResponse(response);
	}

	/** One attempt; with a stream listener it streams (`streamGenerateContent?alt=sse`), else it asks for the whole reply. */
	private async call(
		request: ChatRequest,
		dropped: ReadonlySet<DroppableField>,
		streamed?: StreamedText,
	): Promise<GeminiReply> {
		// Files go as markers the body's stream replaces by their base64 (file-body.ts), not as base64 text.
		const markers = fileMarkers('base64');
		const { systemInstruction, contents } = toGeminiContents(request.messages, markers.urlOf);
		const parameters: GenerateContentParameters = {
			model: request.model,
			contents,
			config: {
				abortSignal: request.signal,
				...(systemInstruction ? { systemInstruction } : {}),
				...(request.temperature === undefined || dropped.has('temperature')
					? {}
					: { temperature: request.temperature }),
				...(request.maxOutputTokens === undefined
					? {}
					: { maxOutputTokens: request.maxOutputTokens }),
				...(request.reasoningEffort === undefined
					? {}
					: {
							thinkingConfig: { thinkingBudget: GEMINI_THINKING_BUDGETS[request.reasoningEffort] },
						}),
				// The JSON mime type, with the compiled protocol as `responseJsonSchema` (JSON Schema, anyOf included:
				// provider-behaviours.md §2 [GG-types]) unless the endpoint refused it; the parser still checks every reply.
				...(request.responseFormat.type === 'text' ? {} : { responseMimeType: 'application/json' }),
				...(request.responseFormat.type === 'json_schema' && !dropped.has('json_schema')
					? { responseJsonSchema: request.responseFormat.schema }
					: {}),
			},
		};
		try {
			if (!streamed) {
				const notes: RawReplyNotes = {};
				const reply = await this.client.models.generateContent(noting(parameters, notes, markers));
				const candidate = reply.candidates?.[0];
				if (candidate && notes.finishMessage !== undefined)
					candidate.finishMessage ??= notes.finishMessage;
				return reply;
			}
			streamed.beginAttempt();
			const notes: RawReplyNotes = {};
			const events = counted(
				await this.client.models.generateContentStream(noting(parameters, notes, markers)),
			);
			const reply = await collectGeminiStream(events, streamed);
			await notes.read;
			const candidate = reply.candidates?.[0];
			if (candidate && notes.finishMessage !== undefined)
				candidate.finishMessage ??= notes.finishMessage;
			// Realworld case `genai:Client_Tests_generateContentStream_ML_Dev_should_return_the_headers_in_the_sdkHttpResponse_for_each_chunk#0`:
			// a 200 event stream with no event at all, which read as `body: "{}"`.
			if (events.count === 0)
				throw new ProviderResponseError(
					'the endpoint answered the streamed call with an empty event stream (no event at all)',
				);
			return reply;
		} catch (error) {
			// The SDK parses every 200 body as JSON: an HTML page or an event stream fails right there.
			// (By name, not instanceof: the error may come from another realm.)
			const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
			if (
				name === 'SyntaxError' ||
				(typeof message === 'string' && /^SyntaxError\b/.test(message))
			) {
				throw new ProviderResponseError(
					`the endpoint answered without a Gemini response (${String(message).slice(0, 160)}); check the base URL`,
				);
			}
			throw error;
		}
	}

	async listModels(signal?: AbortSignal): Promise<string[]> {
		const ids: string[] = [];
		const pager = await this.client.models.list({ config: { abortSignal: signal } });
		for await (const model of pager) {
			if (model.name) ids.push(model.name.replace(/^models\//, ''));
		}
		return ids.sort();
	}
}

/**
 * What an HTTP 400 refuses that the call can do without: a user-set temperature, or the response schema (an
 * endpoint or model without `responseJsonSchema`: the call goes on with the JSON mime type alone).
 */
function refusedField(
	error: unknown,
	request: ChatRequest,
	dropped: ReadonlySet<DroppableField>,
): DroppableField | undefined {
	if (!(error instanceof ProviderHttpError) || error.status !== 400 || error.inStream)
		return undefined;
	if (
		request.temperature !== undefined &&
		!dropped.has('temperature') &&
		/temperature/i.test(error.message)
	)
		return 'temperature';
	const refusesSchema = /response_?json_?schema|responseSchema|response_schema/i.test(
		error.message,
	);
	return refusesSchema &&
		request.responseFormat.type === 'json_schema' &&
		!dropped.has('json_schema')
		? 'json_schema'
		: undefined;
}

/** The ChatResponse of a whole reply or of one joined from a stream's events. */
function readResponse(response: GeminiReply): ChatResponse {
	const candidate = response.candidates?.[0];
	const blocked = response.promptFeedback?.blockReason;
	if (!candidate && !blocked) {
		throw new ProviderResponseError(
			`the endpoint answered without candidates (body: ${describeUnexpectedBody(response)}); check the base URL and model`,
		);
	}
	const parts = candidate?.content?.parts ?? [];
	const nativeToolCalls = parts
		.filter((part) => part.functionCall)
		.map((part) => part.functionCall?.name ?? 'unnamed');
	const metadata = response.usageMetadata;
	const prompt = metadata?.promptTokenCount ?? 0;
	const thoughts = metadata?.thoughtsTokenCount ?? 0;
	const completion = (metadata?.candidatesTokenCount ?? 0) + thoughts;
	// [GG-types] `cachedContentTokenCount`: the cached part of the input, inside `promptTokenCount` (realworld case
	// `genai:Client_Tests_generateContent_ML_Dev_should_generate_content_with_given_valid_json_schema_in_responseSchema#0`:
	// 3 of 5). Cumulative in a stream like the rest, so the last chunk's holds. Gemini reports no cache writes.
	const cached = metadata?.cachedContentTokenCount ?? 0;
	return {
		// Thought parts are left out, as the SDK's own `text` does (provider-behaviours.md §2).
		text: parts
			.filter((part) => typeof part.text === 'string' && !part.thought)
			.map((part) => part.text)
			.join(''),
		usage: {
			prompt_tokens: prompt,
			completion_tokens: completion,
			total_tokens: metadata?.totalTokenCount ?? 0,
			...(thoughts ? { reasoning_tokens: thoughts } : {}),
			...(cached ? { cached_tokens: cached } : {}),
		},
		// `usageMetadata` without counts is a report of 0 (a blocked prompt's, realworld case
		// pyd:test_google/test_google_model_armor_prompt_template_text_gets_blocked#1); no `usageMetadata` is none.
		usageReported: typeof metadata === 'object' && metadata !== null,
		finishReason: blocked ? 'content_filter' : mapGeminiFinishReason(candidate?.finishReason),
		...geminiFinishMessage(response, candidate),
		...(nativeToolCalls.length ? { nativeToolCalls } : {}),
	};
}

/**
 * The provider's words on a block or an unusual end: the candidate's `finishMessage` or the prompt's
 * `blockReasonMessage` ([GG-types]; Vertex Model Armor sends "The response violated Responsible AI Safety
 * settings …", realworld case `pyd:test_google/test_google_model_armor_response_template_real_block#0`),
 * else the reason's name. None for a normal stop.
 */
function geminiFinishMessage(
	response: GeminiReply,
	candidate: { finishReason?: unknown; finishMessage?: unknown } | undefined,
): { finishMessage?: string } {
	const feedback = response.promptFeedback as
		| { blockReason?: unknown; blockReasonMessage?: unknown }
		| undefined;
	if (feedback?.blockReason) {
		const words =
			typeof feedback.blockReasonMessage === 'string' && feedback.blockReasonMessage.trim() !== ''
				? `: ${feedback.blockReasonMessage.trim()}`
				: '';
		return {
			finishMessage: shortMessage(
				`Gemini blocked the prompt (${String(feedback.blockReason)})${words}`,
			),
		};
	}
	const reason = candidate?.finishReason;
	if (reason === undefined || reason === 'STOP' || reason === 'MAX_TOKENS') return {};
	const words =
		typeof candidate?.finishMessage === 'string' && candidate.finishMessage.trim() !== ''
			? `: ${candidate.finishMessage.trim()}`
			: '';
	return { finishMessage: shortMessage(`Gemini finishReason ${String(reason)}${words}`) };
}

/** The call's parameters with a fetch that notes what the SDK drops (see fetchKeepingFinishMessage) and streams files. */
function noting(
	parameters: GenerateContentParameters,
	notes: RawReplyNotes,
	markers: FileMarkers,
): GenerateContentParameters {
	const fetch = fetchKeepingFinishMessage(notes, markers);
	return { ...parameters, config: { ...parameters.config, httpOptions: { fetch } } };
}

/** The stream's events, counted as they pass (an empty stream is not a reply). */
function counted<T>(stream: AsyncIterable<T>): AsyncIterable<T> & { count: number } {
	const wrapper = {
		count: 0,
		async *[Symbol.asyncIterator]() {
			for await (const event of stream) {
				wrapper.count++;
				yield event;
			}
		},
	};
	return wrapper;
}
