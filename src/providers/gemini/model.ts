/** The Gemini adapter: the class that calls generateContent, plain or streamed. */
import type { GenerateContentParameters, GoogleGenAI } from '@google/genai';
import { loadOnce } from '../../core/load-once';

/** The @google/genai SDK, loaded when the first client is made (see loadOnce). */
const genAi = loadOnce(() => require('@google/genai') as typeof import('@google/genai'));
import {
	ProviderResponseError,
	type ChatModel,
	type ChatRequest,
	type ChatResponse,
} from '../chat-model';
import { fileMarkers } from '../file-body';
import { toGeminiContents } from './parts';
import { collectGeminiStream, isStreamErrorEvent, type GeminiReply } from './stream';
import type { DroppableField } from '../refused-fields';
import { attemptWithoutRefused, decideByStatus, DEFAULT_MAX_RETRIES, withRetries } from '../retry';
import { fileRefusal, ProviderHttpError, readGeminiError } from '../provider-errors';
import type { RawReplyNotes } from './raw';
import { StreamedText } from '../streamed-text';
import { readResponse } from './reply';
import { GEMINI_THINKING_BUDGETS, noting, refusedField } from './request';
import { MODEL_OPTION_NAMES, type GeminiModelOptions } from '../model-options';
import { checkKnownOptions } from '../../core/known-options';

/** generateContent through the official `@google/genai` SDK. */
export class GeminiChatModel implements ChatModel {
	readonly provider = 'gemini';
	readonly secrets: readonly string[];
	private readonly client: GoogleGenAI;
	private readonly maxRetries: number;
	/** Fields the endpoint refused, so later calls of the same model object leave them out. */
	private readonly refused = new Set<DroppableField>();

	constructor(options: GeminiModelOptions) {
		checkKnownOptions('GeminiChatModel', options, MODEL_OPTION_NAMES.GeminiChatModel);
		this.secrets = [options.apiKey];
		this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
		// No `retryOptions`: the SDK's retries (p-retry) sleep past the abort signal; ../retry.ts does them.
		this.client = new (genAi().GoogleGenAI)({
			apiKey: options.apiKey,
			httpOptions: options.baseUrl ? { baseUrl: options.baseUrl } : {},
		});
	}

	async generate(request: ChatRequest): Promise<ChatResponse> {
		const streamed = request.onTextDelta ? new StreamedText(request) : undefined;
		const attempt = (dropped: ReadonlySet<DroppableField>) =>
			this.generateOnce(request, dropped, streamed);
		return attemptWithoutRefused(request, this.refused, attempt, refusedField).catch(
			(error: unknown) => Promise.reject(fileRefusal(error, request) ?? error),
		);
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
		// Files go as markers the body's stream replaces by their base64 (../file-body.ts), not as base64 text.
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
