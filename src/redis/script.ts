import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

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
 * SCRIPT FLUSH): one round trip in the usual case, the script's text only when needed.
 */
export async function evaluateScript(client: Redis, script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await client.eval(script.source, keys.length, ...keys, ...args);
  }
}
