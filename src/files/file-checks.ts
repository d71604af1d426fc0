/** The checks every file passes before any model call: count, size, name, and the type its bytes say. */
import { InputError } from '../core/input-error';
import { CONTROL_OR_BIDI } from './escape-controls';
import { RunFile } from './run-file';
import { sniffType } from './sniff';

/** A file as a caller hands it over: bytes, a name, and the type it claims (which is only a hint). */
export interface FileInput {
	name?: string;
	/** The declared MIME type: it chooses among text types, never decides what the bytes are. */
	mimeType?: string;
	data: Uint8Array;
	/** Where it came from, for errors: `files[0]`, `--file ./a.png`, `binary property "data"`. */
	label?: string;
}

/** The settings that govern files (rows of the settings table, see settings/file-settings.ts). */
export interface FileLimits {
	max_file_bytes: number;
	max_files_bytes: number;
	max_files: number;
	pass_images: boolean;
	pass_pdfs: boolean;
}

/** What the files came to: those the model gets, in order, and a notice for each one left out by an option. */
export interface AcceptedFiles {
	files: RunFile[];
	notices: string[];
}

/** The longest file name taken: the common file-system limit. */
export const MAX_FILE_NAME_LENGTH = 255;

const mebibytes = (bytes: number): string =>
	bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;

/** The accepted types, as an error lists them. */
export const ACCEPTED_TYPES =
	'PNG, JPEG, GIF and WebP images, PDF documents, and UTF-8 text (plain, Markdown, CSV, JSON)';

/** The problem of a file name, or undefined: names go into prompts, traces and audit rows, so they stay plain. */
export function fileNameProblem(name: string): string | undefined {
	if (name.trim() === '') return 'is empty';
	if (name.length > MAX_FILE_NAME_LENGTH)
		return `is longer than ${MAX_FILE_NAME_LENGTH} characters`;
	if (/[/\\]/.test(name)) return 'holds a path separator (/ or \\): give the file name alone';
	if (name === '.' || name === '..') return 'is a directory name';
	// Controls could forge lines in a prompt or a log; bidirectional controls show a name reversed (invoice\u202egnp.exe).
	if (new RegExp(CONTROL_OR_BIDI.source).test(name))
		return 'holds a control or bidirectional character (a line break, an escape, a right-to-left override, …)';
	return undefined;
}

/** The size problem of one file at `label`, or undefined (checked before its bytes are read further). */
function sizeProblem(label: string, bytes: number, limits: FileLimits): string | undefined {
	if (bytes === 0) return `${label} is empty (0 bytes): nothing to send`;
	if (bytes > limits.max_file_bytes)
		return `${label} is ${mebibytes(bytes)}, over max_file_bytes (${mebibytes(limits.max_file_bytes)}); send a smaller file or raise max_file_bytes`;
	return undefined;
}

/**
 * Checks `inputs` in order and reads each one's type from its bytes. Throws an InputError naming `field`, the
 * file and the fix at the first problem, before any model call: too many files or bytes, an empty file, a bad
 * name, a type no model takes. An image or PDF whose passthrough option is off is left out, with a notice.
 * `show` is shownFileName with the run's redactor: every name and label, in errors and in the RunFile, passes it.
 */
export function acceptFiles(
	inputs: readonly FileInput[],
	limits: FileLimits,
	show: (name: string) => string,
	field = 'files',
): AcceptedFiles {
	if (inputs.length > limits.max_files)
		throw new InputError(
			field,
			`${inputs.length} files were given, over max_files (${limits.max_files}); send fewer or raise max_files`,
		);
	// One file too big is named before the total is: the fix is that file.
	for (const [index, input] of inputs.entries()) {
		const tooBig = sizeProblem(
			show(input.label ?? `${field}[${index}]`),
			input.data?.byteLength ?? 1,
			limits,
		);
		if (tooBig) throw new InputError(field, tooBig);
	}
	const total = inputs.reduce((sum, input) => sum + (input.data?.byteLength ?? 0), 0);
	if (total > limits.max_files_bytes)
		throw new InputError(
			field,
			`the files hold ${mebibytes(total)} together, over max_files_bytes ` +
				`(${mebibytes(limits.max_files_bytes)}); send fewer or smaller files, or raise max_files_bytes`,
		);
	const accepted: AcceptedFiles = { files: [], notices: [] };
	for (const [index, input] of inputs.entries()) {
		const label = show(input.label ?? `${field}[${index}]`);
		if (!(input.data instanceof Uint8Array))
			throw new InputError(
				field,
				`${label}.data must be the file's bytes (a Buffer or Uint8Array); for base64 text use Buffer.from(text, 'base64')`,
			);
		const raw = input.name ?? `file-${index + 1}`;
		const nameProblem = fileNameProblem(raw);
		const name = show(raw);
		if (nameProblem)
			throw new InputError(field, `${label}: the file name "${name}" ${nameProblem}`);
		const sniffed = sniffType(input.data, name, input.mimeType);
		if (!sniffed.ok) {
			const declared = input.mimeType ? ` (declared ${input.mimeType})` : '';
			throw new InputError(
				field,
				`${label} "${name}"${declared} is ${sniffed.what} by its bytes; accepted are ${ACCEPTED_TYPES}${sniffed.hint ? ` (${sniffed.hint})` : ''}`,
			);
		}
		const off =
			(sniffed.kind === 'image' && !limits.pass_images && 'pass_images') ||
			(sniffed.kind === 'pdf' && !limits.pass_pdfs && 'pass_pdfs');
		if (off) {
			accepted.notices.push(`${label} "${name}" (${sniffed.type}) was left out: ${off} is off`);
			continue;
		}
		accepted.files.push(RunFile.of(name, sniffed.type, sniffed.kind, input.data));
	}
	return accepted;
}
