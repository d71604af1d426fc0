/**
 * Connection settings and the life cycle of a client (ready, quit, deadline); turning ioredis failures into one
 * clear `RedisError` is failure.ts's. Opening a client for a connection (plain or cluster) is open-client.ts's.
 */
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { OptionNames } from '../core/known-options';
import { loadOnce } from '../core/load-once';
import { InvalidContextInputError } from './errors';
import { DeadlineError, ReadyTimeoutError } from './failure';

export { DeadlineError, describeRedisFailure, ReplicaUnconfirmedError } from './failure';

/** ioredis, loaded when the first connection is opened (see loadOnce). */
const ioredis = loadOnce(() => require('ioredis') as typeof import('ioredis'));

/** Where Redis is, as the n8n Redis credential describes it; `url` (redis:// or rediss://) wins over the fields. */
export interface RedisConnectionOptions {
	url?: string;
	/** Default 127.0.0.1. */
	host?: string;
	/** Default 6379. */
	port?: number;
	username?: string;
	password?: string;
	db?: number;
	tls?: boolean;
	/** Time to open the connection and get Redis ready. Default 1500 ms. */
	connectTimeoutMs?: number;
	/** Time for one command to be answered. Default 2000 ms. */
	commandTimeoutMs?: number;
}

/** RedisConnectionOptions' names: a misspelt one (`hots`, `passwd`) is refused, never a silent 127.0.0.1:6379. */
export const REDIS_CONNECTION_OPTIONS = {
	url: true,
	host: true,
	port: true,
	username: true,
	password: true,
	db: true,
	tls: true,
	connectTimeoutMs: true,
	commandTimeoutMs: true,
} satisfies OptionNames<RedisConnectionOptions>;

/** Time to open the connection and get Redis ready, unless the connection options say otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 1500;
/** Time for one command to be answered, unless the connection options say otherwise. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/**
 * ioredis options that fail fast instead of queueing: no offline queue, no background reconnects
 * (the next operation reconnects), bounded connect and command times. A store (or a credential test)
 * behind a dead Redis then reports an error in about two seconds rather than hanging an execution.
 */
export function createRedisClientOptions(connection: RedisConnectionOptions): RedisOptions {
	const fromUrl = connection.url ? parseRedisUrl(connection.url) : {};
	const tls = fromUrl.tls ?? connection.tls ?? false;
	return {
		host: fromUrl.host ?? connection.host ?? '127.0.0.1',
		port: fromUrl.port ?? connection.port ?? 6379,
		username: fromUrl.username ?? (connection.username || undefined),
		password: fromUrl.password ?? (connection.password || undefined),
		db: fromUrl.db ?? connection.db ?? 0,
		...(tls ? { tls: {} } : {}),
		lazyConnect: true,
		enableOfflineQueue: false,
		maxRetriesPerRequest: 0,
		retryStrategy: () => null,
		connectTimeout: connection.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
		commandTimeout: connection.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
		// After giving up on a Redis that does not answer, its half-closed socket is destroyed soon
		// rather than holding the process open for ioredis's default 2 s.
		disconnectTimeout: 250,
	};
}

/** For promises and events whose failure is reported another way. */
export function ignoreError(): void {}

/** A plain client with the store's fail-fast options and a listener that keeps errors from going unhandled. */
export function createClient(options: RedisOptions): Redis {
	const client = new (ioredis().Redis)(options);
	// Failures reach callers through rejected commands and connects; the listener only stops ioredis
	// from reporting them a second time as unhandled 'error' events.
	client.on('error', ignoreError);
	return client;
}

/** Resolves once the client is ready; rejects with the underlying error when the attempt fails or times out. */
export function waitUntilReady(client: Redis | Cluster, timeoutMs: number): Promise<void> {
	if (client.status === 'ready') return Promise.resolve();
	return new Promise((resolve, reject) => {
		let lastError: unknown;
		const onError = (error: unknown): void => {
			lastError = error;
		};
		const onReady = (): void => {
			cleanUp();
			resolve();
		};
		const onClose = (): void => {
			cleanUp();
			reject(lastError ?? new Error('Connection is closed.'));
		};
		const timer = setTimeout(() => {
			cleanUp();
			// 'connecting' means the socket never opened; 'connect' means it opened but Redis never got ready.
			reject(new ReadyTimeoutError(timeoutMs, client.status === 'connecting', lastError));
		}, timeoutMs);
		function cleanUp(): void {
			clearTimeout(timer);
			client.off('error', onError).off('ready', onReady).off('close', onClose).off('end', onClose);
		}
		client.on('error', onError).on('ready', onReady).on('close', onClose).on('end', onClose);
		if (client.status === 'wait' || client.status === 'end' || client.status === 'close') {
			client.connect().catch(ignoreError); // its failure arrives through the 'error' and 'close' events above
		}
	});
}

/** Settles with `work`, or rejects with a DeadlineError after `deadlineMs`. */
export async function withinDeadline<T>(work: Promise<T>, deadlineMs: number): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new DeadlineError(deadlineMs)), deadlineMs);
	});
	try {
		return await Promise.race([work, deadline]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * Quits politely when Redis is there and drops the socket otherwise, then waits (at most 1 s) until
 * the connection has ended, so nothing is left open once this resolves.
 */
export async function quitClient(client: Redis | Cluster): Promise<void> {
	if (client.status === 'end') return;
	let timer: NodeJS.Timeout | undefined;
	const ended = new Promise<void>((resolve) => {
		client.once('end', resolve);
		timer = setTimeout(() => {
			client.off('end', resolve);
			client.disconnect();
			resolve();
		}, 1000);
	});
	if (client.status === 'ready') client.quit().catch(() => client.disconnect());
	else client.disconnect();
	await ended;
	clearTimeout(timer);
}

/** `host:port` for messages; never includes credentials. */
export function redisAddress(options: RedisOptions): string {
	const host = options.host ?? '127.0.0.1';
	return `${host.includes(':') ? `[${host}]` : host}:${options.port ?? 6379}`;
}

function parseRedisUrl(url: string): Partial<{
	host: string;
	port: number;
	username: string;
	password: string;
	db: number;
	tls: boolean;
}> {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new InvalidContextInputError('Redis URL', [
			'must look like redis://[user:password@]host[:port][/db]',
		]);
	}
	if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
		throw new InvalidContextInputError('Redis URL', [
			`protocol must be redis: or rediss:, got ${parsed.protocol}`,
		]);
	}
	const db = parsed.pathname.replace(/^\//, '');
	return {
		host: parsed.hostname.replace(/^\[|\]$/g, '') || undefined,
		port: parsed.port ? Number(parsed.port) : undefined,
		username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
		password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
		db: db ? Number(db) : undefined,
		tls: parsed.protocol === 'rediss:' ? true : undefined,
	};
}
