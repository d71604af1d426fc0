import { createHash } from 'node:crypto';
import type { RedisClient } from './open-client';
import { confirmWrite } from './replication';

/** A Lua script with its SHA-1, as EVALSHA wants it. */
export interface LuaScript {
	source: string;
	sha: string;
}

export function luaScript(source: string): LuaScript {
	return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * EVALSHA, falling back to EVAL once when Redis has not cached the script yet (after a restart or a
 * SCRIPT FLUSH; on a cluster, each node has its own cache): one round trip in the usual case, the
 * script's text only when needed. On a cluster the script goes to the master of its keys' slot.
 */
export async function evaluateScript(
	client: RedisClient,
	script: LuaScript,
	keys: string[],
	args: Array<string | number>,
): Promise<unknown> {
	try {
		return await client.evalsha(script.sha, keys.length, ...keys, ...args);
	} catch (error) {
		if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
		return await client.eval(script.source, keys.length, ...keys, ...args);
	}
}

/** evaluateScript for a script that writes: on a cluster, done only once a replica holds the write (see confirmWrite). */
export async function evaluateWrite(
	client: RedisClient,
	script: LuaScript,
	keys: string[],
	args: Array<string | number>,
): Promise<unknown> {
	const reply = await evaluateScript(client, script, keys, args);
	await confirmWrite(client, keys[0]);
	return reply;
}

/**
 * How long a write's id is remembered (a conversation turn, a budget charge, a redis_context change): far
 * longer than any call's deadline, within which a cluster client may send the same write again.
 */
export const WRITE_ID_TTL_SECONDS = 600;
