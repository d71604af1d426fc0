/**
 * The one bounded read of a file's bytes (issue #48): at most `limit` + 1 bytes, whatever `stat` or a stream's
 * metadata says, so a file over the limit is refused before it is read whole — from a path (the CLI's `--file`,
 * `--files`, `--config`) or from a stream (n8n's binary data service, a tool's binary). Only a regular file is
 * read from a path: a directory, a FIFO, a device or a socket is refused before it is opened for good, and a
 * procfs or sysfs file that reports 0 bytes but holds data is refused at its first read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/** The bytes read, or why they were not: `over` once the source passed `limit`, `problem` (a sentence) otherwise. */
export type BoundedRead =
	| { ok: true; bytes: Buffer }
	| { ok: false; over: true }
	| { ok: false; over?: false; problem: string };

/** How much one read asks for. */
const CHUNK_BYTES = 1024 * 1024;

/** Chunks gathered up to `limit` bytes: the only place the bound is kept. */
class Gathered {
	#chunks: Buffer[] = [];
	#total = 0;
	constructor(private readonly limit: number) {}
	/** How many more bytes to ask for: one past the limit, so going over is seen without reading further. */
	get wanted(): number {
		return Math.min(CHUNK_BYTES, this.limit + 1 - this.#total);
	}
	/** Adds a chunk; false once the bytes passed the limit (what was gathered is dropped). */
	add(chunk: Buffer): boolean {
		this.#total += chunk.length;
		if (this.#total > this.limit) {
			this.#chunks = [];
			return false;
		}
		this.#chunks.push(chunk);
		return true;
	}
	get bytes(): Buffer {
		return Buffer.concat(this.#chunks, this.#total);
	}
}

/** What a file that is not a regular one is, in words; undefined for a regular file. */
function notRegular(stats: Stats): string | undefined {
	if (stats.isFile()) return undefined;
	if (stats.isDirectory()) return 'a directory, not a file';
	if (stats.isFIFO()) return 'a named pipe (FIFO), not a regular file';
	if (stats.isCharacterDevice()) return 'a character device, not a regular file';
	if (stats.isBlockDevice()) return 'a block device, not a regular file';
	if (stats.isSocket()) return 'a socket, not a regular file';
	return 'not a regular file';
}

const reason = (error: unknown): string =>
	(error as NodeJS.ErrnoException).code ?? (error as Error).message;

/** What a file that says it is empty is read for. */
const PROBE_BYTES = 4096;
const SPECIAL =
	'reports 0 bytes but holds data: a special file (procfs, sysfs or the like), not a regular file';

/**
 * The bytes of the regular file at `path`, at most `limit` of them. Refused before reading: what is not a regular
 * file (checked on the path, then on the opened descriptor, which is opened non-blocking so a FIFO cannot hold
 * it), and a file whose size is over `limit`. A file `stat` says is empty is read once: a procfs or sysfs file
 * says 0 and holds data, and is refused at its first read. Reading stops one byte past `limit` in any case.
 */
export function readFileBounded(path: string, limit: number): BoundedRead {
	let stats: Stats;
	try {
		stats = statSync(path);
	} catch (error) {
		return { ok: false, problem: `cannot read it (${reason(error)})` };
	}
	const before = notRegular(stats);
	if (before) return { ok: false, problem: `is ${before}` };
	let descriptor: number;
	try {
		descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		return { ok: false, problem: `cannot read it (${reason(error)})` };
	}
	try {
		const opened = fstatSync(descriptor);
		const after = notRegular(opened);
		if (after) return { ok: false, problem: `is ${after}` };
		if (opened.size > limit) return { ok: false, over: true };
		// One page is asked for (procfs files such as pagemap refuse reads that are not whole words).
		if (opened.size === 0)
			return readSync(descriptor, Buffer.alloc(PROBE_BYTES), 0, PROBE_BYTES, null) === 0
				? { ok: true, bytes: Buffer.alloc(0) }
				: { ok: false, problem: SPECIAL };
		const gathered = new Gathered(limit);
		for (;;) {
			const chunk = Buffer.allocUnsafe(gathered.wanted);
			const read = readSync(descriptor, chunk, 0, chunk.length, null);
			if (read === 0) return { ok: true, bytes: gathered.bytes };
			if (!gathered.add(chunk.subarray(0, read))) return { ok: false, over: true };
		}
	} catch (error) {
		return { ok: false, problem: `cannot read it (${reason(error)})` };
	} finally {
		closeSync(descriptor);
	}
}

/** The bytes of `stream`, at most `limit` of them: past that it is destroyed, nothing more is read or held. */
export async function readStreamBounded(
	stream: AsyncIterable<unknown> & { destroy(): void },
	limit: number,
): Promise<BoundedRead> {
	const gathered = new Gathered(limit);
	for await (const chunk of stream) {
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
		if (!gathered.add(buffer)) {
			stream.destroy();
			return { ok: false, over: true };
		}
	}
	return { ok: true, bytes: gathered.bytes };
}
