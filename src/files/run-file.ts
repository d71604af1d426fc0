/** One file a run holds: its checked facts, and its bytes, which nothing but a model request ever reads. */
import { createHash } from 'node:crypto';
import type { FileRef } from '../core/messages';
import { measureFile, type FileMeasure } from './file-measure';

/** How a file reaches the model: as an image part, a document part, or text inside the data wrapper. */
export type FileKind = 'image' | 'pdf' | 'text';

/**
 * A checked file. Its bytes are a private field, kept as base64 (encoded once, as every provider sends it) and
 * never an own property: JSON.stringify, the redactor, a trace or a log see `{name, type, bytes, sha256}` only.
 */
export class RunFile implements FileRef {
	/** `data:<type>;base64,<bytes>`: made once; `base64()` is a slice of it, which V8 keeps without a copy. */
	readonly #dataUrl: string;
	readonly #text?: string;
	readonly #measure: FileMeasure;

	private constructor(
		readonly name: string,
		readonly type: string,
		readonly kind: FileKind,
		readonly bytes: number,
		readonly sha256: string,
		base64: string,
		measure: FileMeasure,
		text?: string,
	) {
		this.#dataUrl = kind === 'text' ? '' : `data:${type};base64,${base64}`;
		this.#measure = measure;
		this.#text = text;
	}

	/** A file from its bytes; `type` and `kind` must already be read from them (see sniffType). */
	static of(name: string, type: string, kind: FileKind, data: Uint8Array): RunFile {
		const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
		const sha256 = createHash('sha256').update(buffer).digest('hex');
		const text = kind === 'text' ? buffer.toString('utf8') : undefined;
		// A text file goes to the model as text: its base64 is never needed.
		const base64 = kind === 'text' ? '' : buffer.toString('base64');
		const measure = measureFile(buffer, type);
		return new RunFile(name, type, kind, buffer.byteLength, sha256, base64, measure, text);
	}

	/** The bytes as base64, for a provider's image or document part. */
	base64(): string {
		return this.#dataUrl.slice(this.#dataUrl.indexOf(',') + 1);
	}

	/** `data:<type>;base64,…`, as OpenAI's and LangChain's image parts take it. */
	dataUrl(): string {
		return this.#dataUrl;
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
