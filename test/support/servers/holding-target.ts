// A loopback HTTP target that proves calls overlapped by holding requests until enough are open at once.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingTarget {
	/** Base URL, e.g. http://127.0.0.1:12345 */
	url: string;
	/** "start GET /a" as each request arrives, "finish GET /a" as it is answered, in that order. */
	events: string[];
	/** The most requests open (arrived, not answered) at one time. */
	mostOpen(): number;
	close(): Promise<void>;
}

export interface HoldingTargetOptions {
	/** Requests wait, unanswered, until this many are open at once (default 1: each is answered as it comes). */
	holdUntil?: number;
	/**
	 * Once that many are open, they are answered this long later, so that a request sent alongside one would
	 * start before it finishes (a hold, not a timed assertion: the order is what is checked).
	 */
	holdMs?: number;
	/**
	 * A request still held this long is answered HTTP 504 saying how many were open: a caller that sends
	 * them one at a time fails with that message instead of hanging (unset: held until `holdUntil`).
	 */
	capMs?: number;
}

/**
 * Starts the target on 127.0.0.1. Each answer is JSON `{ path, together }`: the request's path and how many
 * requests were answered with it (`holdUntil` when they overlapped).
 */
export async function startHoldingTarget(
	options: HoldingTargetOptions = {},
): Promise<HoldingTarget> {
	const { holdUntil = 1, holdMs = 0, capMs } = options;
	const events: string[] = [];
	let open = 0;
	let mostOpen = 0;
	const waiting: Array<(together: number) => void> = [];
	const timers = new Set<NodeJS.Timeout>();
	const later = (work: () => void, ms: number) => {
		const timer = setTimeout(() => {
			timers.delete(timer);
			work();
		}, ms);
		timers.add(timer);
		return timer;
	};
	const server = createServer((request: IncomingMessage, response: ServerResponse) => {
		request.resume();
		request.on('end', () => {
			const name = `${request.method} ${request.url}`;
			events.push(`start ${name}`);
			open++;
			mostOpen = Math.max(mostOpen, open);
			let answered = false;
			const answer = (together: number, status = 200, error?: string) => {
				if (answered) return;
				answered = true;
				open--;
				events.push(`finish ${name}`);
				response.writeHead(status, { 'content-type': 'application/json' });
				response.end(JSON.stringify(error ? { error } : { path: request.url, together }));
			};
			waiting.push(answer);
			if (capMs !== undefined)
				later(() => {
					if (answered) return;
					waiting.splice(waiting.indexOf(answer), 1);
					answer(open, 504, `held ${capMs} ms with ${open} of ${holdUntil} requests open`);
				}, capMs);
			if (open >= holdUntil)
				later(() => {
					const released = waiting.splice(0);
					released.forEach((release) => release(released.length));
				}, holdMs);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		events,
		mostOpen: () => mostOpen,
		close: () => {
			timers.forEach((timer) => clearTimeout(timer));
			server.closeAllConnections();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}
