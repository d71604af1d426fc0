// A loopback event-stream server that floods: a head, one unit repeated as fast as the client reads, then a tail.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a flood server saw. */
export interface FloodServer {
	url: string;
	/** Requests that reached it. */
	requests(): number;
	/** Units written into the connection before it ended or closed (written, not necessarily read). */
	unitsWritten(): number;
	/** Resolves true when the client closed the connection before the whole body was written, false when it all was. */
	ended(): Promise<boolean>;
	close(): Promise<void>;
}

/**
 * Serves `head`, then `unit` `times` times, then `tail`, to every request, writing only while the client
 * reads (it waits for `drain`), so a client that stops reading and aborts is seen as a close before the end.
 */
export async function startFloodServer(
	head: string,
	unit: string,
	times: number,
	tail: string,
): Promise<FloodServer> {
	let requests = 0;
	let written = 0;
	let settle: (closedEarly: boolean) => void = () => undefined;
	const ended = new Promise<boolean>((resolve) => (settle = resolve));
	const batch = unit.repeat(50);
	const server = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			requests++;
			response.writeHead(200, { 'content-type': 'text/event-stream' });
			response.write(head);
			response.on('close', () => settle(!response.writableFinished));
			const pump = (): void => {
				while (!response.destroyed && written < times) {
					const count = Math.min(50, times - written);
					written += count;
					if (!response.write(count === 50 ? batch : unit.repeat(count)))
						return void response.once('drain', pump);
				}
				if (!response.destroyed) response.end(tail);
			};
			pump();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests: () => requests,
		unitsWritten: () => written,
		ended: () => ended,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
