// `--file PATH` (run, resume; repeatable) and `--files DIR` (audit replay and fork): files read for a run (issue #40).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FileInput } from '../files';
import { UsageError } from './flags';

/** max_file_bytes' default (settings/file-settings.ts), for a config that does not set it. */
const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

const maxFileBytes = (config: unknown): number => {
	const set = (config as { max_file_bytes?: unknown } | null)?.max_file_bytes;
	return typeof set === 'number' && set > 0 ? set : DEFAULT_MAX_FILE_BYTES;
};

/** The size of a regular file at `path`, or a UsageError naming `flag` and what is wrong. */
function regularFileSize(path: string, flag: string): number {
	let stats;
	try {
		stats = statSync(path);
	} catch (error) {
		throw new UsageError(
			`${flag} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
		);
	}
	if (!stats.isFile()) throw new UsageError(`${flag} ${path}: not a file`);
	return stats.size;
}

/**
 * The files of `--file` flags, in order: each named by its base name. A file over the config's max_file_bytes
 * is refused before it is read (the run would refuse it anyway, after holding all of it in memory).
 */
export function readFileFlags(
	paths: readonly string[] | undefined,
	config: unknown,
	flag = '--file',
): FileInput[] {
	const limit = maxFileBytes(config);
	return (paths ?? []).map((path) => {
		const size = regularFileSize(path, flag);
		if (size > limit)
			throw new UsageError(
				`${flag} ${path}: ${size} bytes, over max_file_bytes (${limit}); send a smaller file or raise max_file_bytes in --config`,
			);
		return { name: basename(path), data: readFileSync(path), label: `${flag} ${path}` };
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
			`--files ${dir}: cannot read the folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
		);
	}
	const files: FileInput[] = [];
	for (const name of names.sort()) {
		const path = join(dir, name);
		const stats = statSync(path, { throwIfNoEntry: false });
		if (!stats?.isFile() || !sizes.has(stats.size)) continue;
		files.push({ name, data: readFileSync(path), label: `--files ${path}` });
	}
	return files;
}
