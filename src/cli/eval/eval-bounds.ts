// `agent-core eval`'s bounds on what it reads: a dataset line's size and text, and how deep a case or gates file nests.
import { closeSync, openSync, readSync } from 'node:fs';
import { MAX_NESTING_DEPTH } from '../../agent/protocol/protocol';
import { UsageError } from '../flags';

/**
 * A dataset line holds at most 4 MiB of UTF-8 (its line end not counted): room for a long document as a
 * case's input, while a runaway file (a line that never ends, `--dataset /dev/zero`) is refused after reading
 * that much, not held in memory whole.
 */
export const MAX_CASE_BYTES = 4 * 1024 * 1024;

/**
 * A case (and the gates file) nests objects and arrays at most this deep, its own object being level 1: the
 * engine's bound on the JSON a model sends. An expected answer deeper than any typed answer the engine takes
 * could never be met, and gates compare, redact and write values by recursion, which a deeper value overflows.
 */
export const MAX_CASE_DEPTH = MAX_NESTING_DEPTH;

/** Bytes read at a time: one line's size is checked as it grows, so no line is ever held past MAX_CASE_BYTES. */
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** One non-empty line of the dataset, as text, with its number in the file (from 1, blank lines counted). */
export interface DatasetLine {
	number: number;
	text: string;
}

const cannotRead = (path: string, error: unknown) =>
	new UsageError(
		`--dataset: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
	);

const tooLong = (path: string, number: number) =>
	new UsageError(
		`--dataset ${path} line ${number}: longer than ${MAX_CASE_BYTES} bytes, the most a case may hold: shorten its input, or split it ` +
			'into several cases',
	);

/** A line's bytes as text: UTF-8 or refused, without its `\r` (CRLF files), and without a byte order mark on line 1. */
function lineText(bytes: Buffer, number: number, path: string): string {
	const where = `--dataset ${path} line ${number}:`;
	const length =
		bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
	if (length > MAX_CASE_BYTES) throw tooLong(path, number);
	let text: string;
	try {
		// ignoreBOM keeps a mark in the text, so a mark mid-file is found below rather than silently dropped.
		text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
			bytes.subarray(0, length),
		);
	} catch {
		throw new UsageError(`${where} not UTF-8 text: save the dataset as UTF-8`);
	}
	if (text.startsWith('\uFEFF')) {
		if (number === 1) return text.slice(1);
		throw new UsageError(
			`${where} starts with a byte order mark (U+FEFF), which only a file's start may hold: save the dataset as UTF-8 ` +
				"without marks (files joined together keep each one's)",
		);
	}
	return text;
}

/**
 * The dataset's lines that hold more than white space, read a chunk at a time: a line over MAX_CASE_BYTES
 * is refused as soon as it grows past it, naming its number, before any later line is read.
 */
export function* datasetLines(path: string): Generator<DatasetLine> {
	let descriptor: number;
	try {
		descriptor = openSync(path, 'r');
	} catch (error) {
		throw cannotRead(path, error);
	}
	try {
		const chunk = Buffer.alloc(CHUNK_BYTES);
		let pieces: Buffer[] = [];
		let length = 0;
		let number = 1;
		const line = (): DatasetLine => ({
			number,
			text: lineText(Buffer.concat(pieces, length), number, path),
		});
		for (;;) {
			let read: number;
			try {
				read = readSync(descriptor, chunk, 0, CHUNK_BYTES, null);
			} catch (error) {
				throw cannotRead(path, error);
			}
			if (read === 0) break;
			for (let start = 0; start < read; ) {
				const newline = chunk.indexOf(NEWLINE, start);
				const end = newline === -1 || newline >= read ? read : newline;
				length += end - start;
				// One byte over the limit is allowed for a `\r`; lineText checks the line without it.
				if (length > MAX_CASE_BYTES + 1) throw tooLong(path, number);
				pieces.push(Buffer.from(chunk.subarray(start, end)));
				if (end === read) break;
				const done = line();
				if (done.text.trim() !== '') yield done;
				pieces = [];
				length = 0;
				number++;
				start = end + 1;
			}
		}
		if (length > 0) {
			const last = line();
			if (last.text.trim() !== '') yield last;
		}
	} finally {
		closeSync(descriptor);
	}
}

/**
 * The part of `value` (at most two keys down, e.g. `expected.answer`) where an object or array opens level
 * MAX_CASE_DEPTH + 1, or undefined. Iterative, with its own stack: a line 100,000 levels deep is measured without
 * a call per level. JSON.parse builds such a value without recursion since V8 7.6 ("[json] Make json parsing
 * iterative", v8/v8@4b60b40, limited by memory only), and MAX_CASE_BYTES bounds that memory.
 */
export function tooDeepPart(value: unknown): string | undefined {
	const stack: Array<{ value: unknown; depth: number; part: string; named: number }> = [
		{ value, depth: 1, part: '', named: 0 },
	];
	while (stack.length > 0) {
		const next = stack.pop()!;
		if (next.depth > MAX_CASE_DEPTH) return next.part || 'the whole value';
		for (const [key, child] of Object.entries(next.value as object)) {
			if (typeof child !== 'object' || child === null) continue;
			const step = Array.isArray(next.value) ? `[${key}]` : next.part ? `.${key}` : key;
			const part = next.named >= 2 ? next.part : `${next.part}${step}`;
			stack.push({ value: child, depth: next.depth + 1, part, named: next.named + 1 });
		}
	}
	return undefined;
}

/** Refuses a parsed case or gates file that nests deeper than MAX_CASE_DEPTH, naming `where` and the part. */
export function refuseTooDeep(value: unknown, where: string): void {
	if (typeof value !== 'object' || value === null) return;
	const part = tooDeepPart(value);
	if (part === undefined) return;
	throw new UsageError(
		`${where} ${part} nests objects or arrays more than ${MAX_CASE_DEPTH} levels deep (the outermost object is ` +
			'level 1), deeper than the engine reads any JSON from a model: flatten it',
	);
}
