// How a redis_context call reaches Redis (the shared client, cancelled by the call's signal), and its error for the model.
import { type RedisConnectionOptions } from '../redis/connection';
import { ManagedRedis } from '../redis/managed-client';
import { type RedisClient } from '../redis/open-client';

/** A refusal or failure whose message is already written for the model. */
export class RedisContextError extends Error {
	override name = 'RedisContextError';
}

/**
 * Runs one command on this process's shared client for the connection (see withSharedRedis, reached through
 * ManagedRedis, which opens a cluster client when the connection names a Redis Cluster node): executions reuse
 * one connection instead of opening one per call. An abort (call timeout, run timeout, cancel) ends the call at
 * once; the command itself is bounded by the client's command timeout and the operation's deadline.
 */
export async function runOnRedis<T>(
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
