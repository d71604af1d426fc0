import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants as fileConstants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';

/** A Redis for tests; `stop` only stops a server this helper started. */
export interface TestRedis {
	url: string;
	stop(): Promise<void>;
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';
const NO_REDIS_MESSAGE =
	'No Redis: set REDIS_URL, or install one (Debian: apt-get install -y redis-server)';

/**
 * `REDIS_URL` when set; else the Redis on 127.0.0.1:6379 if it answers PING; else a throwaway
 * `redis-server` from PATH on a free loopback port, without persistence, in a temporary folder.
 */
export async function getTestRedis(): Promise<TestRedis> {
	const fromEnvironment = process.env.REDIS_URL;
	if (fromEnvironment) return { url: fromEnvironment, stop: async () => {} };
	if (await answersPing(DEFAULT_URL)) return { url: DEFAULT_URL, stop: async () => {} };
	return startRedisServer();
}

/** A client for arranging and inspecting test data directly, bypassing the store. */
export function openTestClient(url: string): Redis {
	const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
	client.on('error', () => {});
	return client;
}

/** A key prefix no other test (or concurrent test run) uses. */
export function uniqueKeyPrefix(label: string): string {
	return `agent_core_test:${label}:${process.pid}:${randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under the prefix (SCAN, never KEYS, so a shared Redis is not blocked). */
export async function deleteKeysByPrefix(client: Redis, prefix: string): Promise<number> {
	const pattern = `${prefix.replace(/[*?[\]\\]/g, (character) => `\\${character}`)}*`;
	let cursor = '0';
	let deleted = 0;
	do {
		const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
		cursor = next;
		if (keys.length > 0) deleted += await client.unlink(...keys);
	} while (cursor !== '0');
	return deleted;
}

/** A loopback port nothing listens on (it was free a moment ago). */
export async function freeLoopbackPort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers: a hung Redis. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
	const sockets = new Set<net.Socket>();
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('data', () => {});
		socket.on('error', () => {});
		socket.on('close', () => sockets.delete(socket));
	});
	return listenOnLoopback(server, sockets);
}

async function answersPing(url: string): Promise<boolean> {
	const client = new Redis(url, {
		lazyConnect: true,
		enableOfflineQueue: false,
		maxRetriesPerRequest: 0,
		retryStrategy: () => null,
		connectTimeout: 500,
		commandTimeout: 500,
		disconnectTimeout: 100,
	});
	client.on('error', () => {});
	try {
		await client.connect();
		return (await client.ping()) === 'PONG';
	} catch {
		return false;
	} finally {
		// Disconnecting an already ended client would arm ioredis's socket-destroy timer for nothing.
		if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
		else if (client.status !== 'end') client.disconnect();
	}
}

/** The executable `binary` on PATH, or undefined. */
export function findOnPath(binary: string): string | undefined {
	for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
		const candidate = path.join(folder, binary);
		try {
			accessSync(candidate, fileConstants.X_OK);
			return candidate;
		} catch {
			// not in this folder
		}
	}
	return undefined;
}

/** Whether `startRedisServer` can work here. */
export function hasRedisServerBinary(): boolean {
	return findOnPath('redis-server') !== undefined;
}

/** A throwaway `redis-server` of this test alone (safe for server-wide commands like SCRIPT FLUSH). */
export async function startRedisServer(): Promise<TestRedis> {
	const binary = findOnPath('redis-server');
	if (!binary) throw new Error(NO_REDIS_MESSAGE);
	const port = await freeLoopbackPort();
	const folder = await mkdtemp(path.join(os.tmpdir(), 'agent-core-redis-'));
	const args = [
		'--save',
		'',
		'--appendonly',
		'no',
		'--port',
		String(port),
		'--bind',
		'127.0.0.1',
		'--dir',
		folder,
	];
	const child = spawn(binary, args, { stdio: 'ignore' });
	const url = `redis://127.0.0.1:${port}`;
	const stop = async (): Promise<void> => {
		await stopProcess(child);
		await rm(folder, { recursive: true, force: true });
	};

	const deadline = Date.now() + 5000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) break;
		if (await answersPing(url)) return { url, stop };
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	await stop();
	throw new Error(
		`redis-server on 127.0.0.1:${port} did not start within 5 s (exit code ${child.exitCode})`,
	);
}

async function stopProcess(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	child.kill('SIGTERM');
	const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
	await exited;
	clearTimeout(timer);
}

/**
 * A fake Redis on 127.0.0.1 that completes ioredis's handshake (CLIENT SETINFO, INFO) and then never
 * answers the named commands: a Redis that hangs in the middle of an operation.
 */
export async function startStallingRedis(
	stalledCommands: string[],
): Promise<{ port: number; close(): Promise<void>; accepted(): number }> {
	const stalled = new Set(stalledCommands.map((name) => name.toUpperCase()));
	const sockets = new Set<net.Socket>();
	let accepted = 0;
	const server = net.createServer((socket) => {
		accepted++;
		sockets.add(socket);
		socket.on('error', () => {});
		socket.on('close', () => sockets.delete(socket));
		let pending = '';
		socket.on('data', (chunk) => {
			pending += chunk.toString('latin1');
			let parsed: { command: string[]; rest: string } | undefined;
			while ((parsed = parseRespCommand(pending))) {
				pending = parsed.rest;
				const name = parsed.command[0]?.toUpperCase() ?? '';
				if (stalled.has(name)) continue;
				if (name === 'INFO') {
					const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
					socket.write(`$${info.length}\r\n${info}\r\n`);
				} else if (name === 'QUIT') {
					socket.end('+OK\r\n');
				} else {
					socket.write('+OK\r\n');
				}
			}
		});
	});
	return { ...(await listenOnLoopback(server, sockets)), accepted: () => accepted };
}

/** Parses one RESP array of bulk strings from the front of `buffer`, or undefined if it is incomplete. */
function parseRespCommand(buffer: string): { command: string[]; rest: string } | undefined {
	const header = /^\*(\d+)\r\n/.exec(buffer);
	if (!header) return undefined;
	let offset = header[0].length;
	const command: string[] = [];
	for (let index = 0; index < Number(header[1]); index++) {
		const length = /^\$(\d+)\r\n/.exec(buffer.slice(offset));
		if (!length) return undefined;
		const start = offset + length[0].length;
		const end = start + Number(length[1]);
		if (buffer.length < end + 2) return undefined;
		command.push(buffer.slice(start, end));
		offset = end + 2;
	}
	return { command, rest: buffer.slice(offset) };
}

/** Listens on a free loopback port; `close()` also destroys the sockets still open, so tests end cleanly. */
async function listenOnLoopback(
	server: net.Server,
	sockets: Set<net.Socket>,
): Promise<{ port: number; close(): Promise<void> }> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	return {
		port,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A test file's Redis: found or started before its tests; after them, every key under the prefixes it handed out is deleted and both are closed. */
export interface TestRedisScope {
	readonly url: string;
	/** A client for setting up and inspecting keys behind the code under test. */
	readonly admin: Redis;
	/** A key prefix no other test uses, cleaned up after the file. */
	keyPrefix(label: string): string;
}

export function useTestRedis(): TestRedisScope {
	let testRedis: TestRedis | undefined;
	let admin: Redis | undefined;
	const prefixes: string[] = [];
	beforeAll(async () => {
		testRedis = await getTestRedis();
		admin = openTestClient(testRedis.url);
	});
	afterAll(async () => {
		if (admin) {
			// The context store's keys start with the prefix inside a hash tag: `{<prefix><session>}`.
			for (const prefix of prefixes)
				for (const form of [prefix, `{${prefix}`]) await deleteKeysByPrefix(admin, form);
			await admin.quit();
		}
		await testRedis?.stop();
	});
	const started = <T>(value: T | undefined): T => {
		if (value === undefined)
			throw new Error(
				'useTestRedis(): the test Redis is not up yet (use it inside tests or hooks)',
			);
		return value;
	};
	return {
		get url() {
			return started(testRedis).url;
		},
		get admin() {
			return started(admin);
		},
		keyPrefix(label: string) {
			const prefix = uniqueKeyPrefix(label);
			prefixes.push(prefix);
			return prefix;
		},
	};
}

/** The "Agent Core: Redis API" credential's data for the Redis at `url`, as n8n's engine hands it to the nodes. */
export function redisCredentialData(url: string) {
	const parsed = new URL(url);
	return {
		host: parsed.hostname,
		port: Number(parsed.port || 6379),
		username: '',
		password: '',
		database: 0,
		tls: false,
	};
}
