// `--file PATH` (run, resume; repeatable) and `--files DIR` (audit replay and fork): files read for a run (issue #40).
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readFileBounded, type FileInput } from '../files';
import { shownFileName } from '../trace/shown-file-name';
import { UsageError } from './flags';

/** max_file_bytes' default (settings/file-settings.ts), for a config that does not set it. */
const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

const maxFileBytes = (config: unknown): number => {
	const set = (config as { max_file_bytes?: unknown } | null)?.max_file_bytes;
	return typeof set === 'number' && set > 0 ? set : DEFAULT_MAX_FILE_BYTES;
};

/**
 * The files of `--file` flags, in order: each named by its base name. Each is read at most max_file_bytes + 1
 * bytes, whatever `stat` says (readFileBounded): a file over the limit is refused before it is read whole, and
 * what is not a regular file (a directory, a FIFO, a device, a procfs file reporting 0 bytes) before it is read.
 */
export function readFileFlags(
	paths: readonly string[] | undefined,
	config: unknown,
	flag = '--file',
): FileInput[] {
	const limit = maxFileBytes(config);
	return (paths ?? []).map((path) => {
		const read = readFileBounded(path, limit);
		if (read.ok) return { name: basename(path), data: read.bytes, label: `${flag} ${path}` };
		const shown = shownFileName(path);
		throw new UsageError(
			read.over
				? `${flag} ${shown}: over max_file_bytes (${limit} bytes); send a smaller file or raise max_file_bytes in --config`
				: `${flag} ${shown}: ${read.problem}`,
		);
	});
}

/**
 * The files in `--files DIR` (not its subfolders) whose size is one of `sizes` (an audited run's files): the
 * others cannot match and are not read.
 */
export function readFolderFiles(dir: string, sizes: ReadonlySet<number>): FileInput[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch (error) {
		throw new UsageError(
			`--files ${shownFileName(dir)}: cannot read the folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
		);
	}
	const files: FileInput[] = [];
	for (const name of names.sort()) {
		const path = join(dir, name);
		const stats = statSync(path, { throwIfNoEntry: false });
		if (!stats?.isFile() || !sizes.has(stats.size)) continue;
		// Read no more than the size it claims: a file that grows or a special file cannot match.
		const read = readFileBounded(path, stats.size);
		if (read.ok && read.bytes.length === stats.size)
			files.push({ name, data: read.bytes, label: `--files ${path}` });
	}
	return files;
}
