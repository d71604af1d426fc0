/** The run's files (issue #40): taken from the caller once, checked before any model call, and put back on a resumed conversation. */
import type { ChatMessage, FileRef } from '../core/messages';
import { acceptFiles, hasBytes, type RunFile } from '../files';
import type { AgentConfig } from '../settings/config';
import { Redactor } from '../trace/redact';
import type { RunAgentOptions } from './run-options';

/** The files a run took, and a notice for each one an option left out. */
export interface TakenFiles {
	files: RunFile[];
	notices: string[];
}

export const NO_FILES: TakenFiles = { files: [], notices: [] };

/**
 * Checks the caller's files (throws an InputError naming the file and the fix) and reads each one's type from
 * its bytes. A name that looks like a secret is redacted before it goes anywhere, the model request included.
 */
export function takeFiles(
	options: Pick<RunAgentOptions, 'files' | 'secrets' | 'model'>,
	config: AgentConfig,
): TakenFiles {
	if (!options.files?.length) return NO_FILES;
	const redactor = new Redactor([...(options.secrets ?? []), ...(options.model.secrets ?? [])]);
	const named = options.files.map((file) =>
		typeof file?.name === 'string' ? { ...file, name: redactor.text(file.name) } : file,
	);
	return acceptFiles(named, config);
}

/** `message` with `files` added to those it carries (a message from the caller may hold references already). */
export function withFiles(message: ChatMessage, files: readonly RunFile[]): void {
	if (files.length) message.files = [...(message.files ?? []), ...files];
}

/**
 * Gives back the bytes to the references of a conversation restored from a run state or a checkpoint, by
 * SHA-256; a reference without a matching file stays one (the model reads a note that it was sent).
 */
export function reattachFiles(conversation: ChatMessage[], files: readonly RunFile[]): void {
	if (!files.length) return;
	const byHash = new Map(files.map((file) => [file.sha256, file]));
	for (const message of conversation) {
		if (!message.files?.length) continue;
		message.files = message.files.map((file) => byHash.get(file.sha256) ?? file);
	}
}

/** A message's files by reference only: for the output, memory, the trace. */
export const fileRefs = (files: readonly FileRef[] | undefined): FileRef[] | undefined =>
	files?.length
		? files.map((file) =>
				hasBytes(file)
					? file.ref()
					: { name: file.name, type: file.type, bytes: file.bytes, sha256: file.sha256 },
			)
		: undefined;
