/**
 * The files of a run as every adapter sees them (issue #40): the images and PDFs a user message carries with
 * their bytes, in order. Each provider's own parts are built next to its adapter (openai/wire, gemini/parts,
 * langchain/parts); this is the one place that says which files go on the wire at all.
 */
import type { ChatMessage } from '../core/messages';
import { hasBytes, type RunFile } from '../files';

/** A file a provider receives as a part of its own: an image or a PDF with its bytes in hand. */
export type SentFile = RunFile & { kind: 'image' | 'pdf' };

/**
 * The files of `message` that go to the model as parts, in order. The engine hands over only images and PDFs
 * with bytes (text files are already in `content`, references from memory already a text note); anything
 * else is skipped here too, defensively, so that no reference and no text file ever reaches a wire format.
 */
export function sentFiles(message: ChatMessage): SentFile[] {
	if (message.role !== 'user' || !Array.isArray(message.files)) return [];
	return message.files.filter(
		(file): file is SentFile => hasBytes(file) && (file.kind === 'image' || file.kind === 'pdf'),
	);
}

/** Which kinds of file the request holds (for reading a provider's refusal of them). */
export function fileKindsOf(messages: readonly ChatMessage[]): Set<'image' | 'pdf'> {
	const kinds = new Set<'image' | 'pdf'>();
	for (const message of messages) for (const file of sentFiles(message)) kinds.add(file.kind);
	return kinds;
}

/**
 * The message as the provider-neutral wire object without its `files` (which hold RunFiles: their
 * reference must not go out as an unknown field). A message without the key is returned as it is, so a
 * request without files stays byte for byte what it was.
 */
export function withoutFiles(message: ChatMessage): ChatMessage {
	if (!('files' in message)) return message;
	const { files: _files, ...rest } = message;
	return rest;
}
