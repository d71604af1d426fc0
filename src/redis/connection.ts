/**
 * Connection settings, the life cycle of a client (ready, quit), and turning ioredis failures into one clear
 * `RedisError`. Opening a client for a connection (plain or cluster) is open-client.ts's.
 */
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { loadOnce } from '../core/load-once';
import { RedisError, InvalidContextInputError, type RedisFailure } from './errors';

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

/**
 * An operation as a whole (with a cluster client's retries during a failover) did not complete within its
 * deadline; a write may or may not have been applied (each write carries an id, so sending it again is safe).
 */
export class DeadlineError extends Error {
	override readonly name = 'DeadlineError';
	constructor(readonly deadlineMs: number) {
		super(`not completed within ${deadlineMs} ms`);
	}
}

/** A write was applied on a cluster master, but no replica confirmed it in time (see confirmWrite). */
export class ReplicaUnconfirmedError extends Error {
	override readonly name = 'ReplicaUnconfirmedError';
	constructor(readonly waitMs: number) {
		super(`no replica confirmed the write within ${waitMs} ms`);
	}
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

class ReadyTimeoutError extends Error {
	override readonly name = 'ReadyTimeoutError';
	constructor(
		readonly timeoutMs: number,
		readonly socketNeverOpened: boolean,
		readonly lastError: unknown,
	) {
		super(`not ready within ${timeoutMs} ms`);
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

/** Node's codes for a TLS peer whose certificate does not verify (tls.TLSSocket's authorizationError). */
const TLS_CERTIFICATE_CODES =
	/^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/** Turns any ioredis failure into one sentence naming Redis, the address and what to check. */
export function describeRedisFailure(
	error: unknown,
	address: string,
	operation: string,
): RedisError {
	if (error instanceof RedisError) return error;
	const fail = (failure: RedisFailure, message: string): RedisError =>
		new RedisError(message, { failure, address, operation, cause: error });
	if (error instanceof ReadyTimeoutError) {
		if (error.lastError) return describeRedisFailure(error.lastError, address, operation);
		if (error.socketNeverOpened) {
			return fail(
				'unreachable',
				`Redis at ${address} is unreachable (no connection within ${error.timeoutMs} ms); check the Redis credential's host and port`,
			);
		}
		return fail(
			'timeout',
			`Redis at ${address} accepted the connection but was not ready within ${error.timeoutMs} ms; ` +
				`check the Redis credential's host, port and TLS setting`,
		);
	}
	if (error instanceof DeadlineError) {
		return new RedisError(
			`Redis at ${address} did not complete ${operation} within ${error.deadlineMs} ms (a cluster failover or an overloaded Redis); a write may or may not have been applied`,
			{ failure: 'timeout', address, operation, cause: error },
			(connection) =>
				`Check that the Redis behind ${connection} is running and answering (a cluster: that each master has a replica to fail over to).`,
		);
	}
	if (error instanceof ReplicaUnconfirmedError) {
		return new RedisError(
			`Redis at ${address} applied ${operation}, but no replica confirmed it within ${error.waitMs} ms, so a failover now could lose it`,
			{ failure: 'timeout', address, operation, cause: error },
			(connection) =>
				`Check that each master of the Redis Cluster behind ${connection} has a replica that keeps up.`,
		);
	}
	const {
		code,
		syscall,
		message = String(error),
	} = (error ?? {}) as { code?: string; syscall?: string; message?: string };
	const firstLine = message.split('\n')[0];
	if (/WRONGPASS|NOAUTH|invalid password|invalid username-password|NOPERM/i.test(firstLine)) {
		return fail(
			'authentication',
			`Redis at ${address} refused the credentials (${firstLine}); check the Redis credential's user and password`,
		);
	}
	if (code && TLS_CERTIFICATE_CODES.test(code)) {
		return new RedisError(
			`Redis at ${address} refused over TLS: its certificate is not trusted here (${firstLine})`,
			{ failure: 'configuration', address, operation, cause: error },
			() =>
				"Nothing was written. Start n8n (or agent-core) with NODE_EXTRA_CA_CERTS set to the file of the CA that signed Redis's certificate, or give Redis a certificate for the name you connect to.",
		);
	}
	if (firstLine === 'Command timed out') {
		return fail(
			'timeout',
			`Redis at ${address} did not answer ${operation} in time (command timed out)`,
		);
	}
	if (code && (syscall === 'connect' || syscall === 'getaddrinfo' || /^E[A-Z]+$/.test(code))) {
		const reason = syscall ? `${syscall} ${code}` : code;
		// A server that speaks only TLS resets a plain connection at its first command.
		const tlsHint =
			code === 'ECONNRESET' ? ' and TLS setting (rediss:// for a server that speaks only TLS)' : '';
		return fail(
			'unreachable',
			`Redis at ${address} is unreachable (${reason}); check the Redis credential's host and port${tlsHint}`,
		);
	}
	if (
		/Connection is closed|Stream isn't writeable|enableOfflineQueue|None of startup nodes is available|Failed to refresh slots cache|Cluster is ended|Cluster isn't ready/.test(
			firstLine,
		)
	) {
		return fail(
			'unreachable',
			`Redis at ${address} is unreachable (connection closed); check the Redis credential's host and port`,
		);
	}
	return fail('command', `Redis at ${address} failed during ${operation}: ${firstLine}`);
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
