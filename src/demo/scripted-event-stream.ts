// The scripted server's streams on the wire: a planned stream's events written to the HTTP response, paced.
import type * as http from 'node:http';
import type { ScriptedRequest, StreamEvent } from './scripted-types';

/** The events to send for a streamed call, and whether to break the connection after them. */
export interface StreamPlan {
	events: StreamEvent[];
	breakConnection: boolean;
}

/**
 * Writes the events as `text/event-stream`, `chunkDelayMs` apart. OpenAI frames end in `\n\n` [ON-stream],
 * Gemini's in `\r\n\r\n` as the recorded API sends them [GG-rec-stream]; named events (Anthropic [AN-stream])
 * start with their `event:` line. Ollama's native stream is NDJSON instead, one JSON per line [OL-api].
 * Stops as soon as the client leaves.
 */
export async function sendEventStream(
	response: http.ServerResponse,
	plan: StreamPlan,
	options: {
		provider: ScriptedRequest['provider'];
		chunkDelayMs: number;
		headers: Record<string, string>;
		pendingDelays: Set<() => void>;
	},
): Promise<void> {
	const { events } = plan;
	if (response.headersSent || response.destroyed) return;
	const ndjson = options.provider === 'ollama';
	const contentType = ndjson ? 'application/x-ndjson' : 'text/event-stream';
	response.writeHead(200, {
		'content-type': contentType,
		'cache-control': 'no-cache',
		...options.headers,
	});
	response.flushHeaders();
	const end = options.provider === 'gemini' ? '\r\n\r\n' : '\n\n';
	let written = Promise.resolve();
	for (const [index, event] of events.entries()) {
		if (
			index > 0 &&
			options.chunkDelayMs > 0 &&
			!(await waitUnlessClientLeaves(options.chunkDelayMs, response, options.pendingDelays))
		)
			return;
		if (response.destroyed) return;
		const frame = ndjson
			? `${event.data}\n`
			: `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}${end}`;
		written = new Promise((resolve) => response.write(frame, () => resolve()));
	}
	if (!plan.breakConnection) return void response.end();
	// Destroying at once would drop the events still buffered in the socket: the client must get them first.
	await written;
	response.socket?.destroy();
}

/** Resolves true after the delay, or false as soon as the client disconnects or the server closes. */
export function waitUnlessClientLeaves(
	delayMs: number,
	response: http.ServerResponse,
	pendingDelays: Set<() => void>,
): Promise<boolean> {
	return new Promise((resolve) => {
		const finish = (clientStillThere: boolean) => {
			clearTimeout(timer);
			response.off('close', cancel);
			pendingDelays.delete(cancel);
			resolve(clientStillThere);
		};
		const cancel = () => finish(false);
		const timer = setTimeout(() => finish(true), delayMs);
		response.once('close', cancel);
		pendingDelays.add(cancel);
	});
}
