/** The OpenAI (and compatible) adapter: the class that sends chat completions, plain or streamed. */
import type OpenAI from 'openai';
import type { ChatModel, ChatRequest, ChatResponse } from '../chat-model';
import { collectChatCompletionStream } from './stream';
import type { DroppableField } from '../refused-fields';
import { attemptWithoutRefused, DEFAULT_MAX_RETRIES, withRetries } from '../retry';
import { StreamedText } from '../streamed-text';
import { fileRefusal } from '../provider-errors';
import { sharedOpenAiClient } from './sdk';
import { bodyWithFiles, fileMarkers, type FileMarkers } from '../file-body';
import type { SentFile } from '../file-parts';
import { classifyOpenAiError, refusedField, withReadableMessage } from './errors';
import { openAiMessages, openAiResponseFormat, readCompletion, withPromptCacheKey } from './wire';
import { MODEL_OPTION_NAMES, type OpenAiModelOptions } from '../model-options';
import { checkKnownOptions } from '../../core/known-options';

/** Chat completions through the official `openai` SDK. */
export class OpenAiChatModel implements ChatModel {
	readonly provider = 'openai';
	readonly secrets: readonly string[];
	private readonly client: OpenAI;
	private readonly maxRetries: number;
	/** Fields an endpoint refused, so later calls of the same model object leave them out. */
	private readonly refused = new Set<DroppableField>();

	constructor(options: OpenAiModelOptions) {
		checkKnownOptions('OpenAiChatModel', options, MODEL_OPTION_NAMES.OpenAiChatModel);
		this.secrets = [options.apiKey];
		this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
		this.client = sharedOpenAiClient(options.apiKey, options.baseUrl);
	}

	async generate(request: ChatRequest): Promise<ChatResponse> {
		const streamed = request.onTextDelta ? new StreamedText(request) : undefined;
		const attempt = (dropped: ReadonlySet<DroppableField>) =>
			withRetries(() => this.complete(request, dropped, streamed), {
				maxRetries: this.maxRetries,
				signal: request.signal,
				deadline: request.deadline,
				classify: (error) => classifyOpenAiError(error, streamed !== undefined),
			});
		try {
			return await attemptWithoutRefused(request, this.refused, attempt, refusedField);
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
		// With files, the body is written by bodyWithFiles (each file's base64 in chunks), not by the SDK;
		// the markers are made for the first file, so a request without files never enters ../file-body.
		let markers: FileMarkers | undefined;
		const urlOf = (file: SentFile) => (markers ??= fileMarkers()).urlOf(file);
		const body: OpenAI.ChatCompletionCreateParamsNonStreaming = {
			model: request.model,
			messages: openAiMessages(request.messages, urlOf),
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
			if (!markers?.files.length) return {};
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
