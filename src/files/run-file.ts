/** One file a run holds: its checked facts, and its bytes, which nothing but a model request ever reads. */
import { createHash } from 'node:crypto';
import type { FileRef } from '../core/messages';
import { measureFile, type FileMeasure } from './file-measure';

/** How a file reaches the model: as an image part, a document part, or text inside the data wrapper. */
export type FileKind = 'image' | 'pdf' | 'text';

/** Bytes a base64 chunk encodes: a multiple of 3, so chunks join into one base64 text without padding between them. */
const CHUNK_BYTES = 3 * 128 * 1024;

/**
 * A checked file. Its bytes are a private field, never an own property: JSON.stringify, the redactor, a trace or
 * a log see `{name, type, bytes, sha256}` only. They are the caller's bytes, not a copy (a 20 MB PDF is not held
 * twice); base64 is made when a request is built, whole (`base64()`) or in chunks (`base64Chunks()`) for a body
 * written without holding the whole text. The caller must not change the bytes while the run holds them.
 */
export class RunFile implements FileRef {
	readonly #data: Buffer;
	readonly #text?: string;
	readonly #measure: FileMeasure;

	private constructor(
		readonly name: string,
		readonly type: string,
		readonly kind: FileKind,
		readonly bytes: number,
		readonly sha256: string,
		data: Buffer,
		measure: FileMeasure,
		text?: string,
	) {
		this.#data = data;
		this.#measure = measure;
		this.#text = text;
	}

	/** A file from its bytes; `type` and `kind` must already be read from them (see sniffType). */
	static of(name: string, type: string, kind: FileKind, data: Uint8Array): RunFile {
		const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
		const sha256 = createHash('sha256').update(buffer).digest('hex');
		const text = kind === 'text' ? buffer.toString('utf8') : undefined;
		// A text file goes to the model as text: its bytes are not kept.
		const kept = kind === 'text' ? Buffer.alloc(0) : buffer;
		const measure = measureFile(buffer, type);
		return new RunFile(name, type, kind, buffer.byteLength, sha256, kept, measure, text);
	}

	/** The bytes as base64, for a provider's image or document part. */
	base64(): string {
		return this.#data.toString('base64');
	}

	/** `data:<type>;base64,…`, as OpenAI's and LangChain's image parts take it. */
	dataUrl(): string {
		return `data:${this.type};base64,${this.base64()}`;
	}

	/** The base64 text in pieces of about 4 MiB that join into `base64()`: a body can be written without the whole text. */
	*base64Chunks(): Generator<string> {
		for (let at = 0; at < this.#data.byteLength; at += CHUNK_BYTES)
			yield this.#data.subarray(at, at + CHUNK_BYTES).toString('base64');
	}

	/** The length of `base64()`, without making it. */
	get base64Length(): number {
		return 4 * Math.ceil(this.#data.byteLength / 3);
	}

	/** A text file's content (UTF-8); empty for other kinds. */
	text(): string {
		return this.#text ?? '';
	}

	/** An image's width and height, a PDF's pages, as its header says (for the providers' token rules). */
	measure(): FileMeasure {
		return this.#measure;
	}

	/** What the file is everywhere but in a model request. */
	ref(): FileRef {
		return { name: this.name, type: this.type, bytes: this.bytes, sha256: this.sha256 };
	}

	toJSON(): FileRef {
		return this.ref();
	}
}

/** A file's bytes are in hand (a RunFile) rather than only its reference (from memory, a run state, the audit). */
export const hasBytes = (file: FileRef): file is RunFile => file instanceof RunFile;
