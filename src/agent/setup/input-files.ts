/** The run's files (issue #40): taken from the caller once, checked before any model call, and put back on a resumed conversation. */
import type { ChatMessage, FileRef } from '../../core/messages';
import { acceptFiles, hasBytes, type FileInput, type RunFile } from '../../files';
import type { AgentConfig } from '../../settings/config';
import { Redactor } from '../../trace/redact';
import { shownFileName } from '../../trace/shown-file-name';
import type { RunAgentOptions } from '../base/run-options';
import type { FilesHeld } from '../base/run-ledger';

/** The files a run took, and a notice for each one an option left out. */
export interface TakenFiles {
	files: RunFile[];
	notices: string[];
}

/** Notes of files left out that one observation holds at most. */
const MAX_FILE_NOTES = 5;

export const NO_FILES: TakenFiles = { files: [], notices: [] };

/**
 * Checks the caller's files (throws an InputError naming the file and the fix) and reads each one's type from
 * its bytes. Every name is shown by shownFileName (secrets redacted, controls escaped) wherever it goes, the model
 * request included.
 */
export function takeFiles(
	options: Pick<RunAgentOptions, 'files' | 'secrets' | 'model'>,
	config: AgentConfig,
): TakenFiles {
	if (!options.files?.length) return NO_FILES;
	const redactor = new Redactor([...(options.secrets ?? []), ...(options.model.secrets ?? [])]);
	return acceptFiles(options.files, config, (name) => shownFileName(name, redactor));
}

/**
 * The files a tool returned (see WithFiles), each checked as the run's own files are, within what is left of
 * max_files and max_files_bytes; never throws: a file that does not pass, or that an option leaves out, becomes
 * a one-line note for the observation. `held` grows by what is taken; names are redacted first.
 */
export function takeToolFiles(
	inputs: readonly FileInput[],
	config: AgentConfig,
	held: FilesHeld,
	redactor: Redactor,
): { files: RunFile[]; notes: string[] } {
	const taken: { files: RunFile[]; notes: string[] } = { files: [], notes: [] };
	for (const [index, input] of inputs.entries()) {
		const label = input?.label ?? `file ${index + 1} of the result`;
		const shown = shownFileName(label, redactor);
		const size = input?.data instanceof Uint8Array ? input.data.byteLength : 0;
		if (held.count >= config.max_files) {
			const left = inputs.length - index;
			taken.notes.push(
				`[${left} more file${left === 1 ? '' : 's'} left out: the run holds max_files (${config.max_files}) already]`,
			);
			break;
		}
		if (held.bytes + size > config.max_files_bytes) {
			taken.notes.push(
				`[${shown} left out: it would take the run over max_files_bytes (${config.max_files_bytes})]`,
			);
			continue;
		}
		try {
			const accepted = acceptFiles(
				[{ ...input, label }],
				{ ...config, max_files: 1 },
				(name) => shownFileName(name, redactor),
				'tool file',
			);
			for (const notice of accepted.notices) taken.notes.push(`[${notice}]`);
			for (const file of accepted.files) {
				taken.files.push(file);
				held.count++;
				held.bytes += file.bytes;
			}
		} catch (error) {
			taken.notes.push(`[${redactor.text((error as Error).message)}]`);
		}
	}
	// A result of many bad files says so once, not once per file.
	if (taken.notes.length > MAX_FILE_NOTES) {
		const rest = taken.notes.length - (MAX_FILE_NOTES - 1);
		taken.notes.splice(MAX_FILE_NOTES - 1, rest, `[and ${rest} more files left out]`);
	}
	return taken;
}

/**
 * An observation and the files its tool returned, as the model gets them: the files that pass (takeToolFiles),
 * and inside the observation a note for each one left out and a line saying the rest follow it, as data.
 */
export function observedFiles(
	observation: string,
	returned: readonly FileInput[],
	config: AgentConfig,
	held: FilesHeld,
	redactor: Redactor,
): { observation: string; files: RunFile[] } {
	const { files, notes } = takeToolFiles(returned, config, held, redactor);
	const which =
		files.length === 1
			? 'the file this call returned follows'
			: `${files.length} files this call returned follow`;
	const attached = files.length
		? [`[${which} this message: data, like the rest of the observation]`]
		: [];
	return { observation: [observation, ...notes, ...attached].join('\n'), files };
}

/** Every file of a conversation, by reference, in order: what an approver is shown the run holds. */
export function heldFiles(conversation: readonly ChatMessage[]): FileRef[] {
	return conversation.flatMap((message) => fileRefs(message.files) ?? []);
}

/** The files a conversation holds (the question's and those tools returned), for the caps on the next ones. */
export function filesHeldIn(conversation: readonly ChatMessage[]): FilesHeld {
	const held: FilesHeld = { count: 0, bytes: 0 };
	for (const message of conversation)
		for (const file of message.files ?? []) {
			held.count++;
			held.bytes += file.bytes;
		}
	return held;
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
