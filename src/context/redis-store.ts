import { randomUUID } from 'node:crypto';
import { hashTag } from '../redis/hash-tag';
import { ManagedRedis, type RedisSource } from '../redis/managed-client';
import { isClusterClient, type RedisClient } from '../redis/open-client';
import {
  assertSessionKey,
  decodeStoredTurns,
  encodeStoredTurn,
  InvalidContextInputError,
  validatePersistOptions,
  type ContextStore,
  type HistoryWindow,
  type PersistOptions,
  type PreparedHistory,
  type SessionSnapshot,
  type StoredTurn,
} from './store';
import { confirmWrite } from '../redis/replication';
import { evaluateScript, evaluateWrite, luaScript, WRITE_ID_TTL_SECONDS } from '../redis/script';
import { applyHistoryWindow, assertHistoryWindow, entriesToRead } from './window';

export { createRedisClientOptions, DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, type RedisConnectionOptions } from '../redis/connection';
export { connectRedis, pingRedis } from '../redis/open-client';

/** Either a connection the store opens and owns, or a client the caller owns and closes. */
export type RedisContextStoreOptions = { keyPrefix?: string } & RedisSource;

/**
 * The one key layout of a session: `<store prefix>{<session key>}:turns` (a list of JSON turns) and `…:system`
 * (a string), both carrying the session's expiry. The session key is the hash tag, so on a Redis Cluster both
 * keys (and the turn ids below) share one slot and one script may touch them together.
 */
export function redisSessionKeys(keyPrefix: string, sessionKey: string): { turns: string; system: string } {
  const session = `${keyPrefix}${hashTag(sessionKey)}`;
  return { turns: `${session}:turns`, system: `${session}:system` };
}

/** Where a persist's turn id is remembered (WRITE_ID_TTL_SECONDS), so a persist sent twice appends its turn once. */
function turnIdKey(keyPrefix: string, sessionKey: string, turnId: string): string {
  return `${keyPrefix}${hashTag(sessionKey)}:turn:${turnId}`;
}

/**
 * The layout before Redis Cluster support, `<store prefix><session key>:turns` and `…:system`, still read on a
 * plain Redis: the scripts move a session found there into the layout above on its first touch (see
 * MIGRATE_LUA), so a deployment that upgrades keeps its conversations. None when the old key could be another
 * session's key in the new layout (a session key that is itself `{…}`), so no session ever takes another's.
 */
export function legacyRedisSessionKeys(keyPrefix: string, sessionKey: string): { turns: string; system: string } | undefined {
  if (/^\{[^{}]*\}$/.test(sessionKey)) return undefined;
  return { turns: `${keyPrefix}${sessionKey}:turns`, system: `${keyPrefix}${sessionKey}:system` };
}

/**
 * migrate(turns, system, old turns, old system): moves a session in the old layout into the new one, in the
 * script that touches it, so it is atomic. Turns already in the new list (an old process still wrote the old
 * layout after an upgrade) stay after the old ones; a system message in the new layout wins. RENAME keeps the
 * expiry. Without old keys (a cluster, where nothing was written before), nothing to do.
 */
const MIGRATE_LUA = `
local function migrate(turns, system, oldTurns, oldSystem)
  if not oldTurns then return end
  if redis.call('EXISTS', oldTurns) == 1 then
    if redis.call('EXISTS', turns) == 0 then
      redis.call('RENAME', oldTurns, turns)
    else
      local entries = redis.call('LRANGE', oldTurns, 0, -1)
      for index = #entries, 1, -1 do redis.call('LPUSH', turns, entries[index]) end
      redis.call('DEL', oldTurns)
    end
  end
  if redis.call('EXISTS', oldSystem) == 1 then
    if redis.call('EXISTS', system) == 0 then redis.call('RENAME', oldSystem, system) else redis.call('DEL', oldSystem) end
  end
end
`;

/**
 * Reads the newest entries (LRANGE from ARGV[1]) with the length, system message and TTL: one
 * command, so prepare costs one round trip and O(window), whatever the history length.
 * KEYS: turns, system[, old turns, old system].
 */
const READ_SCRIPT = luaScript(`${MIGRATE_LUA}
migrate(KEYS[1], KEYS[2], KEYS[3], KEYS[4])
local entries = redis.call('LRANGE', KEYS[1], tonumber(ARGV[1]), -1)
return { entries, redis.call('LLEN', KEYS[1]), redis.call('GET', KEYS[2]), redis.call('TTL', KEYS[1]) }
`);

/**
 * Appends, trims, sets or removes the system message and refreshes both expiries in one script; a turn id
 * seen before (the same persist sent again, e.g. by a cluster client retrying during a failover) appends
 * nothing. The RPUSH goes first: if it fails (e.g. a foreign key of another type), nothing has been written.
 * KEYS: turns, system, turn id[, old turns, old system]; ARGV: entry, max stored, ttl, system mode, system message, id ttl.
 */
const PERSIST_SCRIPT = luaScript(`${MIGRATE_LUA}
migrate(KEYS[1], KEYS[2], KEYS[4], KEYS[5])
if redis.call('EXISTS', KEYS[3]) == 1 then return redis.call('LLEN', KEYS[1]) end
local length = redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('SET', KEYS[3], '1', 'EX', tonumber(ARGV[6]))
local maxStored = tonumber(ARGV[2])
if length > maxStored then
  redis.call('LTRIM', KEYS[1], -maxStored, -1)
  length = maxStored
end
if ARGV[4] == 'set' then redis.call('SET', KEYS[2], ARGV[5]) elseif ARGV[4] == 'delete' then redis.call('DEL', KEYS[2]) end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
else
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
end
return length
`);

type ReadReply = [string[], number, string | null, number];

/**
 * Conversation history in Redis, shared by every n8n process that uses the same Redis and prefix.
 * A session is a list of JSON turns (`…:turns`) plus an optional string (`…:system`). The two keys
 * are written only by Lua scripts, so concurrent requests never interleave a turn or half-write one.
 */
export class RedisContextStore implements ContextStore {
  private readonly redis: ManagedRedis;
  private readonly keyPrefix: string;

  constructor(options: RedisContextStoreOptions) {
    // The session key already carries the history's prefix (sessionStoreKey owns the layout); this one
    // only namespaces a whole store, e.g. per test.
    this.keyPrefix = options.keyPrefix ?? '';
    this.redis = new ManagedRedis(options, 'Redis context store');
  }

  async prepare(sessionKey: string, window: HistoryWindow): Promise<PreparedHistory> {
    const checkedKey = assertSessionKey(sessionKey);
    const checkedWindow = assertHistoryWindow(window);
    const [entries, storedTurns, systemMessage] = (await this.redis.run('prepare', (client) =>
      evaluateScript(client, READ_SCRIPT, this.sessionKeys(client, checkedKey), [-entriesToRead(checkedWindow)]),
    )) as ReadReply;
    return applyHistoryWindow({ entries, storedTurns: Number(storedTurns), systemMessage }, checkedWindow);
  }

  /**
   * Appends the turn. `write.turnId` (default: a new id) makes the persist idempotent: sent again with the same
   * id within WRITE_ID_TTL_SECONDS, the turn is not appended twice. On a Redis Cluster the persist is done once a
   * replica holds it.
   */
  async persist(sessionKey: string, turn: StoredTurn, options: PersistOptions, write: { turnId?: string } = {}): Promise<{ storedTurns: number }> {
    const checkedKey = assertSessionKey(sessionKey);
    const checked = validatePersistOptions(options);
    if (!checked.ok) throw new InvalidContextInputError('persist options', checked.issues);
    const entry = encodeStoredTurn(turn);
    const systemMode = options.systemMessage === undefined ? 'keep' : options.systemMessage === '' ? 'delete' : 'set';
    const turnId = write.turnId ?? randomUUID();
    const storedTurns = await this.redis.run('persist', (client) => {
      const [turns, system, ...legacy] = this.sessionKeys(client, checkedKey);
      return evaluateWrite(client, PERSIST_SCRIPT, [turns, system, turnIdKey(this.keyPrefix, checkedKey, turnId), ...legacy], [
        entry,
        options.maxStoredTurns,
        options.ttlSeconds,
        systemMode,
        options.systemMessage ?? '',
        WRITE_ID_TTL_SECONDS,
      ]);
    });
    return { storedTurns: Number(storedTurns) };
  }

  async clear(sessionKey: string): Promise<{ deleted: boolean }> {
    const checkedKey = assertSessionKey(sessionKey);
    const removed = await this.redis.run('clear', async (client) => {
      const keys = this.sessionKeys(client, checkedKey);
      // On a plain Redis the old layout's keys are among them: a cleared session does not come back from there.
      const deleted = await client.del(...keys);
      await confirmWrite(client, keys[0]);
      return deleted;
    });
    return { deleted: removed > 0 };
  }

  async get(sessionKey: string): Promise<SessionSnapshot> {
    const checkedKey = assertSessionKey(sessionKey);
    const [entries, , systemMessage, ttl] = (await this.redis.run('get', (client) =>
      evaluateScript(client, READ_SCRIPT, this.sessionKeys(client, checkedKey), [0]),
    )) as ReadReply;
    const snapshot: SessionSnapshot = { ...decodeStoredTurns(entries), ttlSeconds: ttl > 0 ? Number(ttl) : null };
    if (systemMessage !== null) snapshot.systemMessage = systemMessage;
    return snapshot;
  }

  /** Quits (or, if Redis does not answer, drops) the connection the store opened. */
  close(): Promise<void> {
    return this.redis.close();
  }

  /** turns, system, and on a plain Redis the old layout's turns and system (see legacyRedisSessionKeys). */
  private sessionKeys(client: RedisClient, sessionKey: string): string[] {
    const keys = redisSessionKeys(this.keyPrefix, sessionKey);
    const legacy = isClusterClient(client) ? undefined : legacyRedisSessionKeys(this.keyPrefix, sessionKey);
    return legacy ? [keys.turns, keys.system, legacy.turns, legacy.system] : [keys.turns, keys.system];
  }
}
