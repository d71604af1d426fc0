import { ManagedRedis, type RedisSource } from '../redis/managed-client';
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
import { evaluateScript, luaScript } from '../redis/script';
import { applyHistoryWindow, assertHistoryWindow, entriesToRead } from './window';

export {
  connectRedis,
  createRedisClientOptions,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  pingRedis,
  type RedisConnectionOptions,
} from '../redis/connection';

/** Either a connection the store opens and owns, or a client the caller owns and closes. */
export type RedisContextStoreOptions = { keyPrefix?: string } & RedisSource;

/** The Redis keys of one session; both carry the session's expiry. */
export function redisSessionKeys(keyPrefix: string, sessionKey: string): { turns: string; system: string } {
  return { turns: `${keyPrefix}${sessionKey}:turns`, system: `${keyPrefix}${sessionKey}:system` };
}

/**
 * Reads the newest entries (LRANGE from ARGV[1]) with the length, system message and TTL: one
 * command, so prepare costs one round trip and O(window), whatever the history length.
 */
const READ_SCRIPT = luaScript(`
local entries = redis.call('LRANGE', KEYS[1], tonumber(ARGV[1]), -1)
return { entries, redis.call('LLEN', KEYS[1]), redis.call('GET', KEYS[2]), redis.call('TTL', KEYS[1]) }
`);

/**
 * Appends, trims, sets or removes the system message and refreshes both expiries in one script.
 * The RPUSH goes first: if it fails (e.g. a foreign key of another type), nothing has been written.
 */
const PERSIST_SCRIPT = luaScript(`
local length = redis.call('RPUSH', KEYS[1], ARGV[1])
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
    const keys = redisSessionKeys(this.keyPrefix, assertSessionKey(sessionKey));
    const checkedWindow = assertHistoryWindow(window);
    const [entries, storedTurns, systemMessage] = (await this.run('prepare', () =>
      evaluateScript(this.redis.client, READ_SCRIPT, [keys.turns, keys.system], [-entriesToRead(checkedWindow)]),
    )) as ReadReply;
    return applyHistoryWindow({ entries, storedTurns: Number(storedTurns), systemMessage }, checkedWindow);
  }

  async persist(sessionKey: string, turn: StoredTurn, options: PersistOptions): Promise<{ storedTurns: number }> {
    const keys = redisSessionKeys(this.keyPrefix, assertSessionKey(sessionKey));
    const checked = validatePersistOptions(options);
    if (!checked.ok) throw new InvalidContextInputError('persist options', checked.issues);
    const entry = encodeStoredTurn(turn);
    const systemMode = options.systemMessage === undefined ? 'keep' : options.systemMessage === '' ? 'delete' : 'set';
    const storedTurns = await this.run('persist', () =>
      evaluateScript(this.redis.client, PERSIST_SCRIPT, [keys.turns, keys.system], [
        entry,
        options.maxStoredTurns,
        options.ttlSeconds,
        systemMode,
        options.systemMessage ?? '',
      ]),
    );
    return { storedTurns: Number(storedTurns) };
  }

  async clear(sessionKey: string): Promise<{ deleted: boolean }> {
    const keys = redisSessionKeys(this.keyPrefix, assertSessionKey(sessionKey));
    const removed = await this.run('clear', () => this.redis.client.del(keys.turns, keys.system));
    return { deleted: removed > 0 };
  }

  async get(sessionKey: string): Promise<SessionSnapshot> {
    const keys = redisSessionKeys(this.keyPrefix, assertSessionKey(sessionKey));
    const [entries, , systemMessage, ttl] = (await this.run('get', () =>
      evaluateScript(this.redis.client, READ_SCRIPT, [keys.turns, keys.system], [0]),
    )) as ReadReply;
    const snapshot: SessionSnapshot = { ...decodeStoredTurns(entries), ttlSeconds: ttl > 0 ? Number(ttl) : null };
    if (systemMessage !== null) snapshot.systemMessage = systemMessage;
    return snapshot;
  }

  /** Quits (or, if Redis does not answer, drops) the connection the store opened. */
  close(): Promise<void> {
    return this.redis.close();
  }

  private run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    return this.redis.run(operation, command);
  }
}
