/** Any LangChain chat model (what an n8n chat model sub-node supplies) as the engine's ChatModel, with the same call skeleton as the engine's own adapters. */
import type { ChatModel, ChatRequest, ChatResponse } from '../chat-model';
import { AnthropicStreamReader, isAnthropicStreamingModel, withEventTap } from './anthropic-stream';
import {
	asMessage,
	hasContent,
	readReply,
	reasoningField,
	splitContent,
	type MessageLike,
} from './reply';
import { openAiResponseFormat } from '../openai';
import { langChainMessages, pdfStyleOf } from './parts';
import { streamsFileBodies, withFileMarkers } from './file-fetch';
import { fileMarkers } from '../file-body';
import { fileKindsOf } from '../file-parts';
import { hasFilesKey } from '../../core/messages';
import { isOpenAiClass, normaliseProvider, safeLlmType } from './class';
import { fileRefusal, readSdkHttpError } from '../provider-errors';
import type { DroppableField } from '../refused-fields';
import { attemptWithoutRefused, decideByStatus, withRetries } from '../retry';
import { giveEventLoopATurn, StreamBound } from './stream-bound';
import { StreamedText } from '../streamed-text';
import { MODEL_OPTION_NAMES, type LangChainChatModelOptions } from '../model-options';
import { checkKnownOptions } from '../../core/known-options';

/**
 * The part of a LangChain chat model this adapter uses. It is typed structurally on purpose: n8n hands the
 * node an object built by n8n's own copy of @langchain/core, so `instanceof` against ours would always fail,
 * and src/ never loads @langchain/* itself.
 */
interface LangChainModelLike {
	invoke(messages: unknown, options?: Record<string, unknown>): Promise<unknown>;
	stream?(messages: unknown, options?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
	_llmType?(): string;
	lc_id?: unknown;
	model?: unknown;
	modelName?: unknown;
}

type Fields = Record<string, unknown>;

/** How the sub-node's class takes a JSON mode, if it has one. */
type JsonStyle = 'response_format' | 'ollama_format' | 'none';

/**
 * A LangChain chat model (ChatOpenAI, ChatAnthropic, ChatGoogleGenerativeAI, ChatOllama, …) as the engine's
 * ChatModel. The request's temperature, maxOutputTokens and reasoningEffort are ignored: the sub-node owns
 * those settings, and the user set them there. Like the engine's own adapters, a call is a refused-field
 * loop around retries around one attempt, and its errors read `<status> <the provider's own message>`.
 */
export class LangChainChatModel implements ChatModel {
	readonly provider: string;
	readonly modelName?: string;
	readonly secrets: readonly string[];
	private readonly model: LangChainModelLike;
	private readonly jsonStyle: JsonStyle;
	private readonly maxRetries: number;
	/** Fields the class's endpoint refused, so later calls of the same model object leave them out. */
	private readonly refused = new Set<DroppableField>();

	constructor(model: unknown, options: LangChainChatModelOptions | string = {}) {
		if (typeof options !== 'string')
			checkKnownOptions('LangChainChatModel', options, MODEL_OPTION_NAMES.LangChainChatModel);
		const { input = 'Chat Model', maxRetries = 0 } =
			typeof options === 'string' ? { input: options } : options;
		if (!isChatModelLike(model)) {
			throw new Error(
				`The ${input} input is not a chat model (it has no invoke method; got ${describeValue(model)})`,
			);
		}
		this.model = model;
		this.maxRetries = maxRetries;
		this.provider = normaliseProvider(safeLlmType(model));
		this.jsonStyle =
			this.provider === 'ollama'
				? 'ollama_format'
				: isOpenAiClass(model)
					? 'response_format'
					: 'none';
		const name =
			typeof model.model === 'string' && model.model !== '' ? model.model : model.modelName;
		if (typeof name === 'string' && name !== '') this.modelName = name;
		this.secrets = secretsOf(model);
	}

	async generate(request: ChatRequest): Promise<ChatResponse> {
		const streamed =
			typeof this.model.stream === 'function' && request.onTextDelta
				? new StreamedText(request)
				: undefined;
		const attempt = (dropped: ReadonlySet<DroppableField>) =>
			withRetries(() => this.attempt(request, dropped, streamed), {
				maxRetries: this.maxRetries,
				signal: request.signal,
				deadline: request.deadline,
				classify: (error) => {
					const { status, headers } = (error ?? {}) as {
						status?: unknown;
						headers?: { get?: unknown };
					};
					if (typeof status !== 'number') return { retry: false };
					return decideByStatus(
						status,
						typeof headers?.get === 'function'
							? (headers as { get(name: string): string | null })
							: undefined,
					);
				},
			});
		try {
			return await attemptWithoutRefused(request, this.refused, attempt, refusedField);
		} catch (error) {
			const read = readSdkHttpError(error);
			throw fileRefusal(read, request, this.modelName) ?? read;
		}
	}

	/** One call of the class: streamed when the request has a listener and the class can stream, else `invoke`. */
	private async attempt(
		request: ChatRequest,
		dropped: ReadonlySet<DroppableField>,
		streamed?: StreamedText,
	): Promise<ChatResponse> {
		const options = { signal: request.signal, ...this.jsonModeOptions(request, dropped) };
		// Files as content parts in the form this class converts right (parts.ts), as markers where
		// the class's requests stream them (file-fetch.ts).
		const markers = this.streamsFiles(request) ? fileMarkers('base64') : undefined;
		const messages = langChainMessages(request.messages, pdfStyleOf(this.model, options), markers);
		const send = async () => {
			if (!streamed) return readReply(asMessage(await this.model.invoke(messages, options)));
			streamed.beginAttempt();
			return this.streamReply(messages, options, streamed);
		};
		return markers ? withFileMarkers(markers, send) : send();
	}

	/** Whether this request's files go as markers: it has some, and the class's client sends through our fetch. */
	private streamsFiles(request: ChatRequest): boolean {
		return (
			request.messages.some(hasFilesKey) &&
			fileKindsOf(request.messages).size > 0 &&
			streamsFileBodies(this.model)
		);
	}

	/**
	 * Streams the reply, passing each chunk's text on as it arrives. Text and reasoning are the chunks' pieces
	 * joined; usage, finish reason and tool calls come from the chunks merged by LangChain's own `concat`
	 * (which sums usage and joins tool-call pieces), or from the last chunk when the object has no `concat`.
	 * ChatAnthropic's chunks lose the provider's usage and stop reason, so its events are read beside them.
	 *
	 * Whatever the class, the chunks are counted against a StreamBound (ChatAnthropic's events are counted
	 * before they become chunks): LangChain's `_streamIterator` merges every chunk it hands on, so a stream of
	 * endless empty chunks would hold n8n's main thread. Past the bound the attempt's own signal aborts the
	 * class's request, which releases the connection, and the bound's error ends the call.
	 */
	private async streamReply(
		messages: unknown,
		options: Fields,
		streamed: StreamedText,
	): Promise<ChatResponse> {
		const texts: string[] = [];
		const reasonings: string[] = [];
		const stop = new AbortController();
		const signal =
			options.signal instanceof AbortSignal
				? AbortSignal.any([options.signal, stop.signal])
				: stop.signal;
		const anthropic = isAnthropicStreamingModel(this.model)
			? new AnthropicStreamReader()
			: undefined;
		const tapped = this.model as LangChainModelLike & Parameters<typeof withEventTap>[0];
		const model = anthropic
			? withEventTap(tapped, anthropic, new StreamBound(this.provider, 'events'))
			: this.model;
		const bound = new StreamBound(this.provider, 'chunks');
		let merged: MessageLike | undefined;
		try {
			for await (const raw of await model.stream!(messages, { ...options, signal })) {
				const chunk = asMessage(raw);
				const exceeded = bound.count({ content: hasContent(chunk) });
				if (exceeded) throw exceeded;
				const { text, reasoning } = splitContent(chunk);
				if (text !== '') {
					texts.push(text);
					streamed.passOn(text);
				}
				if (reasoning !== '') reasonings.push(reasoning);
				merged = merged && typeof merged.concat === 'function' ? merged.concat(chunk) : chunk;
				if (bound.turnDue) await giveEventLoopATurn();
			}
		} catch (error) {
			// A failed or bounded stream must not keep its connection open (the class may not have closed it).
			stop.abort(error);
			throw error;
		}
		const reply: ChatResponse = {
			...readReply(merged ?? {}),
			text: texts.join(''),
			...reasoningField(reasonings.join('')),
		};
		const usage = anthropic?.tokenUsage;
		if (usage) Object.assign(reply, { usage, usageReported: true });
		if (anthropic?.finishReason)
			Object.assign(reply, {
				finishReason: anthropic.finishReason,
				finishMessage: anthropic.finishMessage,
			});
		if (reply.finishMessage === undefined) delete reply.finishMessage;
		return reply;
	}

	/**
	 * The call options that ask for JSON where the sub-node's class has a JSON mode: OpenAI's `response_format`
	 * (chat completions and, through LangChain, the Responses API; the same mapping as the engine's own
	 * adapter), Ollama's `format`. Other providers get nothing: the text protocol and its repair turn carry
	 * the format there.
	 */
	private jsonModeOptions(request: ChatRequest, dropped: ReadonlySet<DroppableField>): Fields {
		if (
			request.responseFormat.type === 'text' ||
			this.jsonStyle === 'none' ||
			dropped.has('response_format')
		)
			return {};
		if (this.jsonStyle === 'ollama_format') return { format: 'json' };
		return { response_format: openAiResponseFormat(request.responseFormat, dropped) };
	}
}

/**
 * The JSON-mode field a 400/422 refuses (the class passes the SDK's error on, with its status), so the call
 * is made again without it: a refused schema falls back to plain JSON mode once, JSON mode refused to none.
 */
function refusedField(
	error: unknown,
	request: ChatRequest,
	dropped: ReadonlySet<DroppableField>,
): DroppableField | undefined {
	const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown };
	if (
		(status !== 400 && status !== 422) ||
		request.responseFormat.type === 'text' ||
		dropped.has('response_format')
	)
		return undefined;
	if (!/response_format|json_object|json_schema|\bformat\b/i.test(String(message)))
		return undefined;
	return request.responseFormat.type === 'json_schema' && !dropped.has('json_schema')
		? 'json_schema'
		: 'response_format';
}

/** An object with `invoke`: the one thing every LangChain chat model (and runnable) has. */
function isChatModelLike(value: unknown): value is LangChainModelLike {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { invoke?: unknown }).invoke === 'function'
	);
}

/** A short description of what was connected instead of a chat model, for the error message. */
function describeValue(value: unknown): string {
	if (value === null || value === undefined) return String(value);
	if (typeof value !== 'object') return `a ${typeof value}`;
	const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
	return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an object';
}

const SECRET_NAME = /api[_-]?key|token|secret/i;

/**
 * The credentials the object holds, for the engine to redact through `ChatModel.secrets` (the one route a
 * key takes to the redactor): its own string properties named like a key, token or secret (apiKey,
 * openAIApiKey, anthropicApiKey, …), and the key of its client configuration.
 */
function secretsOf(model: object): string[] {
	const found = new Set<string>();
	for (const [name, value] of Object.entries(model)) {
		if (SECRET_NAME.test(name) && typeof value === 'string' && value !== '') found.add(value);
	}
	for (const holder of ['clientConfig', 'configuration']) {
		const apiKey = ((model as Fields)[holder] as { apiKey?: unknown } | undefined)?.apiKey;
		if (typeof apiKey === 'string' && apiKey !== '') found.add(apiKey);
	}
	return [...found];
}
