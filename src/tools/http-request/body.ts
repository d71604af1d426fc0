import type http from 'node:http';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { Deadline } from './deadline';
import { HttpRequestError } from './error';

/**
 * Reads a response body up to a byte limit, decoding gzip, deflate and br on the way. The limit holds for
 * the bytes received and for the decoded bytes alike, so a decompression bomb (a gigabyte of zeros in a
 * megabyte of gzip) ends at the limit as a truncated body, having cost no more memory than the limit.
 */

/** A body as read: complete or cut at the limit, and how it arrived. */
export interface ReadBody {
	/** The decoded bytes; the bytes as received when `undecodable` is set. */
	body: Buffer;
	truncated: boolean;
	/** The content-encoding that was decoded (`gzip`, `br`), when the server compressed the body. */
	decodedFrom?: string;
	/** Why the body is not decoded, e.g. `unsupported content-encoding zstd`; the model is told instead of shown it. */
	undecodable?: string;
}

/**
 * When the limit stops the reading, the decoders are ended mid-stream; a lenient end makes them hand over
 * what they decoded instead of failing with "unexpected end of file".
 */
const LENIENT_END = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

/** One decoder per content coding; `first` is the first received chunk when the decoder is the outermost one. */
const DECODERS: Record<string, (first: Buffer | undefined) => Transform> = {
	gzip: () => zlib.createGunzip(LENIENT_END),
	'x-gzip': () => zlib.createGunzip(LENIENT_END),
	// RFC 9110's deflate is zlib-wrapped, but some servers send it raw; the first byte tells them apart, as browsers do.
	deflate: (first) =>
		first === undefined || (first[0] & 0x0f) === 0x08
			? zlib.createInflate(LENIENT_END)
			: zlib.createInflateRaw(LENIENT_END),
	br: () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
};
/** Every decoder holds a window of up to megabytes; a header listing dozens of codings would multiply it. */
const MAX_CODINGS = 2;

/** Reads at most `maxBytes` (received, and decoded); beyond that the socket is destroyed so a huge or endless body costs nothing more. */
export function readBody(
	response: http.IncomingMessage,
	maxBytes: number,
	deadline: Deadline,
): Promise<ReadBody> {
	const header = String(response.headers['content-encoding'] ?? '');
	const codings = header
		.split(',')
		.map((coding) => coding.trim().toLowerCase())
		.filter((coding) => coding !== '' && coding !== 'identity');
	const unsupported =
		codings.find((coding) => !(coding in DECODERS)) ??
		(codings.length > MAX_CODINGS ? `"${header}" (more than ${MAX_CODINGS} codings)` : undefined);
	if (unsupported !== undefined) {
		return readEncoded(response, maxBytes, deadline, []).then((read) => ({
			...read,
			undecodable: `unsupported content-encoding ${unsupported}`,
		}));
	}
	return readEncoded(response, maxBytes, deadline, codings);
}

/** Reads the body through the decoders for `codings` (in the order the server applied them; none: as is). */
function readEncoded(
	response: http.IncomingMessage,
	maxBytes: number,
	deadline: Deadline,
	codings: string[],
): Promise<ReadBody> {
	return new Promise((resolve, reject) => {
		const received: Buffer[] = [];
		let receivedBytes = 0;
		const decoded: Buffer[] = [];
		let decodedBytes = 0;
		// Built at the first chunk, whose first byte tells zlib-wrapped deflate from raw deflate.
		let decoders: Transform[] | undefined;
		let settled = false;
		let inputCut = false;
		let responseEnded = false;

		const settle = (outcome: () => void) => {
			if (settled) return;
			settled = true;
			stopWatching();
			response.destroy();
			for (const decoder of decoders ?? []) decoder.destroy();
			outcome();
		};
		const stopWatching = deadline.watch(() => settle(() => reject(deadline.error())));
		const resolveReceived = (truncated: boolean) =>
			settle(() => resolve({ body: Buffer.concat(received), truncated }));
		const resolveDecoded = (truncated: boolean) =>
			settle(() =>
				resolve({
					body: Buffer.concat(decoded),
					truncated,
					...(decoders ? { decodedFrom: codings.join(', ') } : {}),
				}),
			);

		const takeDecoded = (chunk: Buffer) => {
			if (settled) return;
			const room = maxBytes - decodedBytes;
			if (chunk.length <= room) {
				decoded.push(chunk);
				decodedBytes += chunk.length;
				return;
			}
			decoded.push(chunk.subarray(0, room));
			resolveDecoded(true);
		};

		const startDecoders = (first: Buffer): Transform[] => {
			const chain = [...codings]
				.reverse()
				.map((coding, index) => DECODERS[coding](index === 0 ? first : undefined));
			chain.forEach((decoder, index) => {
				decoder.on('error', (error: Error) =>
					settle(() =>
						resolve({
							body: Buffer.concat(received),
							truncated: inputCut,
							undecodable: `content-encoding ${codings.join(', ')} that could not be decoded (${error.message})`,
						}),
					),
				);
				if (index > 0) chain[index - 1].pipe(decoder);
			});
			const last = chain[chain.length - 1];
			last.on('data', takeDecoded);
			last.on('end', () => resolveDecoded(inputCut));
			return chain;
		};

		response.on('data', (chunk: Buffer) => {
			if (settled || inputCut) return;
			const room = maxBytes - receivedBytes;
			const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
			received.push(kept);
			receivedBytes += kept.length;
			inputCut = kept.length < chunk.length;
			if (codings.length === 0) {
				if (inputCut) resolveReceived(true);
				return;
			}
			decoders ??= startDecoders(kept);
			if (!inputCut) {
				decoders[0].write(kept);
				return;
			}
			// The received bytes hit the limit: decode what came, and stop the server sending more.
			decoders[0].end(kept);
			response.destroy();
		});
		response.on('end', () => {
			responseEnded = true;
			if (codings.length === 0) resolveReceived(false);
			else if (decoders) decoders[0].end();
			else resolveDecoded(false);
		});
		response.on('error', () => {
			if (!inputCut)
				settle(() =>
					reject(
						new HttpRequestError(
							'http_request failed: the connection closed while the response body was being read; retry once',
						),
					),
				);
		});
		response.on('close', () => {
			if (!inputCut && !responseEnded)
				settle(() =>
					reject(
						new HttpRequestError(
							'http_request failed: the connection closed before the response body was complete; retry once',
						),
					),
				);
		});
	});
}
