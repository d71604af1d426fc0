// A loopback TCP proxy that a test can cut on demand: a database connection lost mid-query, on cue.
import * as net from 'node:net';

/** A running proxy: its port, the connections it passed, and how to cut them. */
export interface TcpProxy {
	port: number;
	/** `postgres://…` URL of the proxied PostgreSQL (database `name`), for tests of the audit. */
	postgresUrl(database: string): string;
	/** Connections accepted so far. */
	readonly connections: number;
	/** Connections cut so far (by cutWhen or cutAll). */
	readonly cuts: number;
	/**
	 * From now on, the first connection whose client sends bytes containing `marker` is cut at that moment:
	 * those bytes never reach the server and both sides are destroyed (as a network cut or a server crash
	 * would look to the client). `times` connections are cut this way (default 1), then traffic flows again.
	 */
	cutWhen(marker: string, times?: number): void;
	/**
	 * Like cutWhen, but the connection goes silent instead: nothing more is passed either way and neither side
	 * is closed (a network partition, a server frozen mid-query), until close().
	 */
	freezeWhen(marker: string): void;
	/** Cuts every open connection now. */
	cutAll(): void;
	close(): Promise<void>;
}

/** How much of a connection's client bytes is kept to find a marker split across two chunks. */
const MARKER_WINDOW = 4_096;

/** Starts a proxy on 127.0.0.1 (a free port) to `target` on loopback. */
export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
	const open = new Set<{ client: net.Socket; server: net.Socket }>();
	let connections = 0;
	let cuts = 0;
	let marker: string | undefined;
	let remaining = 0;
	let freeze = false;

	const cut = (pair: { client: net.Socket; server: net.Socket }) => {
		cuts++;
		open.delete(pair);
		pair.client.destroy();
		pair.server.destroy();
	};

	const proxy = net.createServer((client) => {
		connections++;
		const server = net.connect({ host: target.host ?? '127.0.0.1', port: target.port });
		const pair = { client, server };
		open.add(pair);
		let seen = '';
		let frozen = false;
		client.on('data', (chunk: Buffer) => {
			if (frozen) return;
			if (marker !== undefined && remaining > 0) {
				seen = (seen + chunk.toString('latin1')).slice(-(MARKER_WINDOW + chunk.length));
				if (seen.includes(marker)) {
					remaining--;
					if (remaining === 0) marker = undefined;
					if (freeze) {
						frozen = true;
						return;
					}
					cut(pair);
					return;
				}
			}
			if (!server.destroyed) server.write(chunk);
		});
		server.on('data', (chunk: Buffer) => {
			if (!frozen && !client.destroyed) client.write(chunk);
		});
		const end = () => {
			open.delete(pair);
			client.destroy();
			server.destroy();
		};
		client.on('close', end);
		server.on('close', end);
		client.on('error', end);
		server.on('error', end);
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	const port = (proxy.address() as net.AddressInfo).port;

	return {
		port,
		postgresUrl: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
		get connections() {
			return connections;
		},
		get cuts() {
			return cuts;
		},
		cutWhen(text, times = 1) {
			marker = text;
			remaining = times;
			freeze = false;
		},
		freezeWhen(text) {
			marker = text;
			remaining = 1;
			freeze = true;
		},
		cutAll() {
			for (const pair of [...open]) cut(pair);
		},
		async close() {
			for (const pair of [...open]) {
				pair.client.destroy();
				pair.server.destroy();
			}
			open.clear();
			await new Promise<void>((resolve) => proxy.close(() => resolve()));
		},
	};
}
