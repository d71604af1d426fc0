/**
 * Chat completions messages with a run's files (issue #40). A user message with images or PDFs becomes a
 * list of content parts, its text first and then each file in order, in the shapes of openai-node's types
 * (node_modules/openai/resources/chat/completions/completions.d.ts):
 * - an image: `ChatCompletionContentPartImage` `{type: 'image_url', image_url: {url}}`, the url a `data:`
 *   URL ("Either a URL of the image or the base64 encoded image data");
 * - a PDF: `ChatCompletionContentPart.File` `{type: 'file', file: {filename, file_data}}`, `file_data` a
 *   `data:application/pdf;base64,…` URL as OpenAI's PDF guide sends it and as @langchain/openai's
 *   `completionsApiContentBlockConverter.fromStandardFileBlock` builds it (converters/completions.js).
 * Every other message is sent exactly as before.
 */
import type OpenAI from 'openai';
import { hasFilesKey, type ChatMessage } from '../../core/messages';
import { sentFiles, withoutFiles, type SentFile } from '../file-parts';

/** One file as a chat completions content part. */
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
