// The files of an audited run (issue #40): its row keeps their references only, so a candidate or a fork that asks
// the model again is given the same files again, matched by SHA-256, and told which are missing.
import type { ChatMessage, FileRef } from '../core/messages';
import { AgentCoreError } from '../core/agent-core-error';
import { acceptFiles, type FileInput, type FileLimits } from '../files';
import { shownFileName } from '../trace/shown-file-name';
import type { AuditRecord } from '../audit/record';
import { createHash } from 'node:crypto';

/** A run held files that were not given again (or none were given): named with their hashes. */
export class MissingFilesError extends AgentCoreError {
	override readonly name = 'MissingFilesError';
	constructor(
		readonly runId: string,
		readonly missing: readonly FileRef[],
	) {
		super(
			`run ${runId} was given ${missing.length === 1 ? 'a file' : `${missing.length} files`} that ${missing.length === 1 ? 'is' : 'are'} not here: ` +
				missing
					.map((file) => `${file.name} (${file.type}, ${file.bytes} bytes, sha256 ${file.sha256})`)
					.join('; '),
			{
				field: 'files',
				fix: 'Give the same files again (the CLI: --files DIR, a folder holding them; they are matched by SHA-256, not by name).',
			},
		);
	}
}

/** The files the audited run's question carried, by reference. */
export const recordedFiles = (record: AuditRecord): readonly FileRef[] =>
	record.messages[0]?.files ?? record.steps[0]?.step.files ?? [];

/** The sizes of the run's files: a folder's other files need not be read to be ruled out. */
export const recordedSizes = (record: AuditRecord): ReadonlySet<number> =>
	new Set(recordedFiles(record).map((file) => file.bytes));

/**
 * The audited run's question with its files' bytes back, from `given` (matched by SHA-256; other files are
 * ignored). Throws MissingFilesError naming every recorded file not given. A run without files needs none.
 */
export function questionWithFiles(
	record: AuditRecord,
	given: readonly FileInput[] | undefined,
	limits: FileLimits,
): ChatMessage {
	const question = record.messages[0] ?? { role: 'user' as const, content: '' };
	const wanted = recordedFiles(record);
	if (wanted.length === 0) return question;
	const byHash = new Map<string, FileInput>();
	for (const file of given ?? [])
		if (file?.data instanceof Uint8Array)
			byHash.set(createHash('sha256').update(file.data).digest('hex'), file);
	const missing = wanted.filter((file) => !byHash.has(file.sha256));
	if (missing.length) throw new MissingFilesError(record.run_id, missing);
	// Each under its recorded name, checked again as a run checks files (the bytes say what they are).
	const inputs = wanted.map((file) => ({ ...byHash.get(file.sha256)!, name: file.name }));
	const { files } = acceptFiles(
		inputs,
		{ ...limits, pass_images: true, pass_pdfs: true },
		shownFileName,
	);
	return { ...question, files };
}
