/** What a chat completions request carries: the messages (a run's files as content parts), the prompt cache key, the response format. */
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatRequest, ResponseFormat } from '../chat-model';
import type { DroppableField } from '../refused-fields';
import { hasFilesKey, type ChatMessage } from '../../core/messages';
import { sentFiles, withoutFiles, type SentFile } from '../file-parts';

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
