// A Node response's body as the SDK reads it: capped in bytes (and in reconnection hints for an event stream), as a web stream, with its headers.
import type http from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { McpTransportError } from './errors';
import { cappedRetryHints } from './event-stream';

/** True when the response is an event stream (`text/event-stream`). */
export function isEventStream(incoming: http.IncomingMessage): boolean {
	return /^\s*text\/event-stream\s*(;|$)/i.test(incoming.headers['content-type'] ?? '');
}

/** The stream with its reconnection hints capped; a failure of the stream (the byte cap) fails what is read. */
export function withCappedHints(source: Readable): Readable {
	const hints = cappedRetryHints();
	source.once('error', (error) => hints.destroy(error));
	return source.pipe(hints);
}

/** Passes the body on, failing it once more than `limit` bytes came: the SDK would otherwise hold any amount. */
export function byteCap(
	limit: number,
	where: string,
	source: http.IncomingMessage,
	onCut: (error: McpTransportError) => void,
): Transform {
	let seen = 0;
	return new Transform({
		transform(chunk: Buffer, _encoding, callback) {
			seen += chunk.length;
			if (seen > limit) {
				const error = new McpTransportError(
					'too_large',
					`${where} answered more than ${limit} bytes; ask it for less`,
				);
				source.destroy();
				onCut(error);
				callback(error);
				return;
			}
			callback(null, chunk);
		},
	});
}

/**
 * The body as a web stream, read as the SDK pulls it. (Readable.toWeb throws "Controller is already closed" from an
 * event handler when the SDK cancels a body whose last bytes are still arriving, which it does after a 202.)
 */
export function webStream(source: Readable): ReadableStream<Uint8Array> {
	return new ReadableStream<Uint8Array>({
		start(controller) {
			const settle = (action: () => void) => {
				try {
					action();
				} catch {
					// Already cancelled or closed: nothing is waiting for more.
				}
			};
			source.on('data', (chunk: Buffer) => {
				settle(() =>
					controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
				);
				if ((controller.desiredSize ?? 1) <= 0) source.pause();
			});
			source.once('end', () => settle(() => controller.close()));
			source.once('error', (error) => settle(() => controller.error(error)));
		},
		pull() {
			source.resume();
		},
		cancel() {
			source.destroy();
		},
	});
}

export function headersOf(incoming: http.IncomingHttpHeaders): Headers {
	const headers = new Headers();
	for (const [name, value] of Object.entries(incoming)) {
		if (value === undefined) continue;
		for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
	}
	return headers;
}
