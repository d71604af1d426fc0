/**
 * A request body that carries files, written without the whole base64 text in memory (issue #40): OpenAI's chat
 * completions (a data URL per file) and Gemini's generateContent (`inlineData.data`, the bare base64). The
 * body is serialised with a marker where each file's data goes; the request then reads it as a stream that
 * encodes each file's base64 chunk by chunk, only when the connection asks for the next one. A 20 MB PDF costs
 * the request a few hundred KiB of base64 at a time, instead of its 27 MB of base64 text, the JSON text holding
 * it and the encoded body (bench/files-memory.js measures it).
 *
 * The body's length is known before a byte is encoded (base64 is 4 characters per 3 bytes), so it is sent with a
 * Content-Length, not chunked: an endpoint or proxy that refuses chunked uploads sees an ordinary request.
 * openai-node passes a ReadableStream body through unchanged with `duplex: 'half'` (client.js `buildBody`, "Send
 * chunked stream"; `fetchWithTimeout`), and marks it not retryable; @google/genai writes its body with
 * JSON.stringify and hands it to the call's `httpOptions.fetch` (gemini/raw.ts), which swaps it for the stream.
 * The retries are ours (retry.ts), and each attempt builds its own body.
 */
import { randomUUID } from 'node:crypto';
import type { SentFile } from './file-parts';

/** Where each file's data goes: a marker no message can hold (a fresh random id per body), and the file it stands for. */
export interface FileMarkers {
	urlOf(file: SentFile): string;
	files: SentFile[];
	nonce: string;
	/** What replaces a marker: the file's data URL (OpenAI), or its bare base64 (Gemini's inlineData). */
	form: 'data-url' | 'base64';
}

/** Markers for one body: `urlOf` hands out `<nonce>:<n>` strings, which JSON writes unescaped. */
export function fileMarkers(form: FileMarkers['form'] = 'data-url'): FileMarkers {
	const nonce = `agent-core-file-${randomUUID()}`;
	const files: SentFile[] = [];
	return {
		nonce,
		files,
		form,
		urlOf(file) {
			files.push(file);
			return `${nonce}:${files.length - 1}`;
		},
	};
}

/** A body as the request sends it: the stream, and its length in bytes for the Content-Length header. */
export interface FileBody {
	body: ReadableStream<Uint8Array>;
	length: number;
}

/** One piece of the body: JSON text around the markers, or a file's data URL. */
type Piece = { text: string } | { file: SentFile };

/**
 * `body` as JSON (or the JSON text an SDK already wrote) with each marker replaced by its file's data. Nothing is
 * encoded until the stream is read, one piece (about 512 KiB of base64) per read, so the encoding also gives the
 * event loop a turn between pieces.
 */
export function bodyWithFiles(body: unknown, markers: FileMarkers): FileBody {
	const json = typeof body === 'string' ? body : JSON.stringify(body);
	const pieces: Piece[] = [];
	const pattern = new RegExp(`${markers.nonce}:(\\d+)`, 'g');
	let from = 0;
	for (const match of json.matchAll(pattern)) {
		const file = markers.files[Number(match[1])];
		const prefix = markers.form === 'data-url' ? `data:${file.type};base64,` : '';
		pieces.push({ text: `${json.slice(from, match.index)}${prefix}` }, { file });
		from = match.index + match[0].length;
	}
	pieces.push({ text: json.slice(from) });
	const length = pieces.reduce(
		(sum, piece) =>
			sum + ('text' in piece ? Buffer.byteLength(piece.text) : piece.file.base64Length),
		0,
	);
	const chunks = encoded(pieces);
	const stream = new ReadableStream<Uint8Array>(
		{
			pull(controller) {
				const next = chunks.next();
				if (next.done) controller.close();
				else controller.enqueue(next.value);
			},
			cancel() {
				chunks.return(undefined);
			},
		},
		// Nothing is read ahead: a chunk is encoded when the connection asks for it.
		{ highWaterMark: 0 },
	);
	return { body: stream, length };
}

function* encoded(pieces: readonly Piece[]): Generator<Uint8Array, void, undefined> {
	for (const piece of pieces) {
		if ('text' in piece) yield Buffer.from(piece.text);
		else for (const chunk of piece.file.base64Chunks()) yield Buffer.from(chunk, 'latin1');
	}
}
