// How a redis_context call reaches Redis (its script on the shared client, cancelled by the call's signal); loaded
// with the tool's first call, so the node panels, which read only the tool's card, load no Redis client.
import { randomUUID } from 'node:crypto';
import type { RedisConnectionOptions } from '../redis/connection';
import { ManagedRedis } from '../redis/managed-client';
import { isClusterClient, type RedisClient } from '../redis/open-client';
import { evaluateScript, evaluateWrite, WRITE_ID_TTL_SECONDS } from '../redis/script';
import { RedisContextError } from './redis-context-error';
import { INDEX_SUFFIX, WRITE_ID_INFIX } from './redis-context-keys';
import { OPERATION_SCRIPT } from './redis-context-script';

/** The settings one operation runs with (`RedisContextSettings` of redis-context.ts, which reads them). */
export interface OperationSettings {
	connection: RedisConnectionOptions;
	ttlSeconds: number;
	maxValueBytes: number;
	maxKeys: number;
}

/** One checked operation on a session's keys: its namespaces (sessionNamespace, legacySessionNamespace) and args. */
export interface SessionOperation {
	operation: string;
	namespace: string;
	legacy: string;
	key: string;
	value: string;
}

/**
 * Runs OPERATION_SCRIPT for one operation (see its KEYS and ARGV) on the shared client and returns its reply. A
 * write carries a fresh id and goes through evaluateWrite; the old layout's index is passed on a plain Redis only.
 */
export function runSessionOperation(
	settings: OperationSettings,
	{ operation, namespace, legacy, key, value }: SessionOperation,
	signal: AbortSignal,
): Promise<unknown> {
	const writes = operation !== 'get' && operation !== 'list';
	const writeIdKey = `${namespace}${WRITE_ID_INFIX}${randomUUID()}`;
	return runOnRedis(settings.connection, operation, signal, (client) => {
		const keys = [`${namespace}${INDEX_SUFFIX}`, `${namespace}${key}`, writeIdKey];
		// The old layout exists only on a plain Redis (nothing worked on a cluster before).
		if (!isClusterClient(client)) keys.push(`${legacy}${INDEX_SUFFIX}`);
		const argv = [
			operation,
			namespace,
			settings.ttlSeconds,
			settings.maxKeys,
			settings.maxValueBytes,
			key,
			value,
			legacy,
			WRITE_ID_TTL_SECONDS,
		];
		return (writes ? evaluateWrite : evaluateScript)(client, OPERATION_SCRIPT, keys, argv);
	});
}

/**
 * Runs one command on this process's shared client for the connection (see withSharedRedis, reached through
 * ManagedRedis, which opens a cluster client when the connection names a Redis Cluster node): executions reuse
 * one connection instead of opening one per call. An abort (call timeout, run timeout, cancel) ends the call at
 * once; the command itself is bounded by the client's command timeout and the operation's deadline.
 */
async function runOnRedis<T>(
	connection: RedisConnectionOptions,
	operation: string,
	signal: AbortSignal,
	command: (client: RedisClient) => Promise<T>,
): Promise<T> {
	let redis: ManagedRedis;
	try {
		redis = new ManagedRedis({ shared: connection }, 'redis_context tool');
	} catch (error) {
		throw new RedisContextError(
			`redis_context is misconfigured: ${(error as Error).message}; fix tool_settings.redis_context`,
		);
	}
	if (signal.aborted) throw stopped(redis.address, false);
	let onAbort: (() => void) | undefined;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(stopped(redis.address, true));
		signal.addEventListener('abort', onAbort, { once: true });
	});
	aborted.catch(() => undefined); // only observed through the race below
	try {
		return await Promise.race([redis.run(operation, command), aborted]);
	} catch (error) {
		if (error instanceof RedisContextError) throw error;
		throw new RedisContextError(`redis_context failed: ${(error as Error).message}`);
	} finally {
		if (onAbort) signal.removeEventListener('abort', onAbort);
	}
}

function stopped(address: string, commandMayHaveRun: boolean): RedisContextError {
	const outcome = commandMayHaveRun
		? '; a set, append or delete may or may not have been applied'
		: '; nothing was sent';
	return new RedisContextError(
		`redis_context stopped: the call was cancelled (time limit or cancel) before Redis at ${address} answered${outcome}`,
	);
}
