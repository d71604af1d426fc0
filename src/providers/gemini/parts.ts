/**
 * The engine's conversation as Gemini contents, with a run's files (issue #40). A user message with images
 * or PDFs becomes its text part and then one `inlineData` part per file, in order: `Part.inlineData` is a
 * `Blob` `{mimeType, data}`, `data` "Encoded as base64 string" (@google/genai's types, genai.d.ts `Blob_2`
 * and `Part`; the API's "inline data" for images and PDFs alike). `displayName` is not sent: the types say
 * the Gemini API reads it only with server-side tools.
 */
import type { Content, Part } from '@google/genai';
import { hasFilesKey, type ChatMessage } from '../../core/messages';
import { type SentFile, sentFiles } from '../file-parts';

/** What goes in `inlineData.data`: the file's base64, or a marker the body's stream replaces by it (../file-body.ts). */
type DataOf = (file: SentFile) => string;

/** One message's parts: its text, then each file it carries as inline data. */
export function geminiParts(
	message: ChatMessage,
	dataOf: DataOf = (file) => file.base64(),
): Part[] {
	const files = hasFilesKey(message) ? sentFiles(message) : [];
	if (files.length === 0) return [{ text: message.content }];
	return [
		// An empty text part is left out: the files are the whole message then.
		...(message.content === '' ? [] : [{ text: message.content }]),
		...files.map((file) => ({ inlineData: { mimeType: file.type, data: dataOf(file) } })),
	];
}

/** Gemini takes one system instruction and alternating user/model contents; consecutive same-role turns are merged. */
export function toGeminiContents(
	messages: readonly ChatMessage[],
	dataOf?: DataOf,
): {
	systemInstruction?: string;
	contents: Content[];
} {
	const system = messages
		.filter((message) => message.role === 'system')
		.map((message) => message.content);
	const contents: Content[] = [];
	for (const message of messages) {
		if (message.role === 'system') continue;
		const role = message.role === 'assistant' ? 'model' : 'user';
		const previous = contents[contents.length - 1];
		if (previous && previous.role === role) previous.parts!.push(...geminiParts(message, dataOf));
		else contents.push({ role, parts: geminiParts(message, dataOf) });
	}
	return { systemInstruction: system.length ? system.join('\n\n') : undefined, contents };
}
