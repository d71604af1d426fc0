/**
 * A chat completions body that carries files, written without the whole base64 text in memory (issue #40). The
 * body is serialised with a marker where each file's data URL goes, then put together as a Blob of pieces: the
 * JSON around the markers, and each file's base64 in chunks of about 4 MiB, each chunk a Blob of its own so its
 * text is freed once copied. A 20 MB PDF then costs the request its 27 MB of base64 once (the Blob), instead of
 * the base64 text, the JSON text holding it and the encoded body (bench/files-memory.js measures it).
 * openai-node passes a Blob body through unchanged (client.js `buildBody`: "Pass raw type verbatim"), and
 * undici streams it with its length known.
 */
import { randomUUID } from 'node:crypto';
import type { SentFile } from './file-parts';

/** Where each file's data URL goes: a marker no message can hold (a fresh random id per body), and the file it stands for. */
export interface FileMarkers {
	urlOf(file: SentFile): string;
	files: SentFile[];
	nonce: string;
}

/** Markers for one body: `urlOf` hands out `<nonce>:<n>` strings, which JSON writes unescaped. */
export function fileMarkers(): FileMarkers {
	const nonce = `agent-core-file-${randomUUID()}`;
	const files: SentFile[] = [];
	return {
		nonce,
		files,
		urlOf(file) {
			files.push(file);
			return `${nonce}:${files.length - 1}`;
		},
	};
}

/** Chunks encoded between two turns of the event loop: about 3 MiB of a file, a few milliseconds of work. */
const CHUNKS_PER_TURN = 8;

/**
 * `body` as JSON with each marker replaced by its file's data URL, as a Blob of pieces. The encoding gives the
 * event loop a turn every CHUNKS_PER_TURN chunks, so a large file does not hold the process while it is encoded.
 */
export async function bodyWithFiles(body: unknown, markers: FileMarkers): Promise<Blob> {
	const json = JSON.stringify(body);
	const pieces: Blob[] = [];
	const pattern = new RegExp(`${markers.nonce}:(\\d+)`, 'g');
	let from = 0;
	let encoded = 0;
	for (const match of json.matchAll(pattern)) {
		const file = markers.files[Number(match[1])];
		pieces.push(new Blob([json.slice(from, match.index), `data:${file.type};base64,`]));
		for (const chunk of file.base64Chunks()) {
			pieces.push(new Blob([chunk]));
			if (++encoded % CHUNKS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
		}
		from = match.index + match[0].length;
	}
	pieces.push(new Blob([json.slice(from)]));
	return new Blob(pieces, { type: 'application/json' });
}
