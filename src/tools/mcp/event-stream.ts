// The server's reconnection hint in an event stream (`retry:`), held to a bound the run can wait.
import { Transform } from 'node:stream';

/**
 * The longest wait before the event stream is opened again, whatever the server's `retry:` asks. The SDK's transport
 * waits the server's hint as it is (streamableHttp.js `_getNextReconnectionDelay`), so a `retry: 3600000` would hold
 * a call until its MCP timeout.
 */
export const MAX_RECONNECTION_DELAY_MS = 2_000;

/** A `retry` field line: the field name, the optional space the event-stream format strips, and its digits. */
const RETRY_LINE = /^(retry: ?)(\d+)$/;

/**
 * Passes an event stream on with each `retry:` over `maxMs` lowered to it. The event-stream format (HTML "Server-sent
 * events", "Interpreting an event stream") ends a line with CR, LF or CR LF and reads `retry` only when its value is
 * ASCII digits: so complete lines are passed on at once, only the unfinished last one is held (the parser could not
 * act on it before its end either), and every byte but a lowered hint's digits is kept as it came.
 */
export function cappedRetryHints(maxMs: number = MAX_RECONNECTION_DELAY_MS): Transform {
	// The unfinished last line, kept as the chunks that came (joined once, when its end comes).
	let pending: Buffer[] = [];
	const rewrite = (bytes: Buffer) => {
		// latin1 maps each byte to one character and back, so the bytes of any other text pass unchanged.
		const text = bytes.toString('latin1');
		if (!text.includes('retry:')) return bytes;
		const lines = text
			.split(/(\r\n|\r|\n)/)
			.map((part) =>
				part.replace(RETRY_LINE, (line, field: string, digits: string) =>
					Number(digits) > maxMs ? `${field}${maxMs}` : line,
				),
			);
		return Buffer.from(lines.join(''), 'latin1');
	};
	return new Transform({
		transform(chunk: Buffer, _encoding, callback) {
			const end = Math.max(chunk.lastIndexOf(0x0a), chunk.lastIndexOf(0x0d)) + 1;
			if (end === 0) {
				pending.push(chunk);
				callback();
				return;
			}
			const complete = Buffer.concat([...pending, chunk.subarray(0, end)]);
			pending = end < chunk.length ? [chunk.subarray(end)] : [];
			callback(null, rewrite(complete));
		},
		flush(callback) {
			callback(null, pending.length > 0 ? rewrite(Buffer.concat(pending)) : undefined);
		},
	});
}
