import type { Redis, RedisOptions } from 'ioredis';
import { canonicalJson } from '../validation/canonical-json';
import { createClient, createRedisClientOptions, quitClient, type RedisConnectionOptions } from './connection';

/** Clients kept per process at most; beyond, the least recently used idle one is closed (issue #20). */
export const MAX_SHARED_CLIENTS = 16;

interface SharedClient {
  client: Redis;
  /** Commands (and connects) under way; while there are none, the socket does not hold the process open. */
  busy: number;
  lastUsed: number;
}

const clients = new Map<string, SharedClient>();

/** The key of one Redis: its address, user, password, database, TLS and timeouts. */
function keyOf(options: RedisOptions): string {
  const { host, port, username, password, db, tls, connectTimeout, commandTimeout } = options;
  return canonicalJson({ host, port, username, password, db, tls: Boolean(tls), connectTimeout, commandTimeout });
}

/**
 * Runs `work` on this process's client for `connection`: one client per Redis and process, reused by
 * every execution instead of a connection each (a connect costs more than the commands of a prepare or a
 * persist). The client keeps the store's fail-fast options, so a connection that died is opened again by
 * the next command (never queued behind a dead socket); a command that fails other than by Redis's own
 * error reply drops the connection, in case it died silently. While no command runs, its socket is unref'd: an
 * idle shared client never keeps a process (a CLI run, a test) from ending. At most MAX_SHARED_CLIENTS are
 * kept; closeSharedRedisClients() closes them all.
 */
export async function withSharedRedis<T>(connection: RedisConnectionOptions, work: (client: Redis) => Promise<T>): Promise<T> {
  const options = createRedisClientOptions(connection);
  const key = keyOf(options);
  const shared = sharedClient(options, key);
  shared.busy++;
  shared.lastUsed = Date.now();
  holdProcess(shared.client, true);
  shared.client.once('connect', keepAliveWhileBusy);
  try {
    return await work(shared.client);
  } catch (error) {
    // Anything but Redis's own answer (a timeout, a reset) may mean the connection is dead without the
    // client knowing yet: the client is replaced, so the next command connects anew instead of waiting on it.
    if ((error as Error | undefined)?.name !== 'ReplyError' && clients.get(key) === shared) {
      clients.delete(key);
      shared.client.disconnect();
    }
    throw error;
  } finally {
    shared.busy--;
    shared.client.off('connect', keepAliveWhileBusy);
    if (shared.busy === 0) holdProcess(shared.client, false);
  }

  function keepAliveWhileBusy(): void {
    // A reconnect made a new socket, which holds the process until the work is done.
    holdProcess(shared.client, shared.busy > 0);
  }
}

/** This process's client for `connection`, made on first use (see withSharedRedis). */
export function sharedRedisClient(connection: RedisConnectionOptions): Redis {
  const options = createRedisClientOptions(connection);
  return sharedClient(options, keyOf(options)).client;
}

function sharedClient(options: RedisOptions, key: string): SharedClient {
  let shared = clients.get(key);
  if (!shared) {
    shared = { client: createClient(options), busy: 0, lastUsed: Date.now() };
    const client = shared.client;
    // Each new socket starts unref'd unless a command waits on it.
    client.on('connect', () => holdProcess(client, (clients.get(key)?.busy ?? 0) > 0));
    clients.set(key, shared);
    evictIdle();
  }
  return shared;
}

/** Keeps the number of clients bounded: the least recently used idle ones are closed. */
function evictIdle(): void {
  if (clients.size <= MAX_SHARED_CLIENTS) return;
  const idle = [...clients.entries()].filter(([, shared]) => shared.busy === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  for (const [key, shared] of idle.slice(0, clients.size - MAX_SHARED_CLIENTS)) {
    clients.delete(key);
    void quitClient(shared.client);
  }
}

function holdProcess(client: Redis, hold: boolean): void {
  const socket = (client as unknown as { stream?: { ref?: () => void; unref?: () => void } }).stream;
  if (hold) socket?.ref?.();
  else socket?.unref?.();
}

/** How many shared clients this process holds (for tests and benchmarks). */
export function sharedRedisClientCount(): number {
  return clients.size;
}

/** Closes every shared client (a process that shuts down; tests). */
export async function closeSharedRedisClients(): Promise<void> {
  const all = [...clients.values()];
  clients.clear();
  await Promise.all(all.map((shared) => quitClient(shared.client)));
}
