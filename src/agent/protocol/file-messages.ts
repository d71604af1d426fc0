/**
 * The conversation as the model reads it when messages carry files (issue #40): a text file inside the data
 * wrapper, a file from an earlier turn (whose bytes are gone) as a one-line note, images and PDFs left as the parts
 * each provider adapter sends. The conversation itself keeps the files as they came, so a run state or a
 * checkpoint holds their references only and every model call is built from it the same way.
 */
import { truncateObservation, type ChatMessage, type FileRef } from '../../core/messages';
import { fileTokens, hasBytes, type RunFile } from '../../files';
import { dataBlock } from './prompt';

const sizeOf = (bytes: number): string =>
	bytes >= 1024 * 1024
		? `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
		: bytes >= 1024
			? `${(bytes / 1024).toFixed(1)} KiB`
			: `${bytes} bytes`;

/** The heading a file's facts are given under: name, type and size. */
export const fileHeading = (file: FileRef): string =>
	`File ${file.name} (${file.type}, ${sizeOf(file.bytes)})`;

/**
 * What a later turn (or a run resumed without the file) reads for a file whose bytes it no longer has: this
 * wording is documented in docs/files.md.
 */
export const earlierFileNote = (file: FileRef): string =>
	`[${fileHeading(file)}, sha256 ${file.sha256.slice(0, 12)}…, was sent with this message; its content is not part of this request.]`;

/** A text file as the model reads it: inside the data wrapper, cut to `maxLength` characters with a visible marker. */
export const textFileBlock = (file: RunFile, maxLength: number): string =>
	dataBlock(`${fileHeading(file)}:`, truncateObservation(file.text(), maxLength));

/** One message as sent: text files and notes appended to its text, only images and PDFs with their bytes left as files. */
function modelMessage(message: ChatMessage, maxLength: number): ChatMessage {
	const blocks: string[] = [];
	const parts: RunFile[] = [];
	for (const file of message.files ?? []) {
		if (!hasBytes(file)) blocks.push(earlierFileNote(file));
		else if (file.kind === 'text') blocks.push(textFileBlock(file, maxLength));
		else parts.push(file);
	}
	const content = [message.content, ...blocks].filter((text) => text !== '').join('\n\n');
	return { role: message.role, content, ...(parts.length ? { files: parts } : {}) };
}

/** The conversation as sent to the model: messages without files are passed as they are. */
export function modelMessages(
	conversation: readonly ChatMessage[],
	maxLength: number,
): ChatMessage[] {
	return conversation.map((message) =>
		message.files?.length ? modelMessage(message, maxLength) : message,
	);
}

/** The prompt tokens of the images and PDFs in `messages`, by `provider`'s rule (text is counted as text). */
export function partTokens(messages: readonly ChatMessage[], provider: string): number {
	let total = 0;
	for (const message of messages)
		for (const file of message.files ?? []) if (hasBytes(file)) total += fileTokens(file, provider);
	return total;
}
