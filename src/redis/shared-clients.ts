import type { RedisOptions } from 'ioredis';
import { canonicalJson } from '../validation/canonical-json';
import { createRedisClientOptions, quitClient, type RedisConnectionOptions } from './connection';
import { isClusterClient, openRedisClient, type RedisClient } from './open-client';

/** Clients kept per process at most; beyond, the least recently used idle one is closed (issue #20). */
export const MAX_SHARED_CLIENTS = 16;

interface SharedClient {
	/** The client once opened: a plain client, or a cluster client when the connection names a cluster node. */
	client?: RedisClient;
	/** The opening under way, shared by the commands that wait for it. */
	opening?: Promise<RedisClient>;
	/** Commands (and connects) under way; while there are none, the sockets do not hold the process open. */
	busy: number;
	lastUsed: number;
}

const clients = new Map<string, SharedClient>();

/** The key of one Redis: its address, user, password, database, TLS and timeouts. */
function keyOf(options: RedisOptions): string {
	const { host, port, username, password, db, tls, connectTimeout, commandTimeout } = options;
	return canonicalJson({
		host,
		port,
		username,
		password,
		db,
		tls: Boolean(tls),
		connectTimeout,
		commandTimeout,
	});
}

/**
 * Runs `work` on this process's ready client for `connection`: one client per Redis (or Redis Cluster) and
 * process, reused by every execution instead of a connection each (a connect costs more than the commands of a
 * prepare or a persist). The client keeps the store's fail-fast options, so a connection that died is opened
 * again by the next command (never queued behind a dead socket); a command that fails other than by Redis's own
 * error reply drops a plain client, in case its connection died silently (a cluster client stays, see below). While no command runs, its sockets are
 * unref'd: an idle shared client never keeps a process (a CLI run, a test) from ending. At most
 * MAX_SHARED_CLIENTS are kept; closeSharedRedisClients() closes them all.
 */
export async function withSharedRedis<T>(
	connection: RedisConnectionOptions,
	work: (client: RedisClient) => Promise<T>,
): Promise<T> {
	const key = keyOf(createRedisClientOptions(connection));
	const shared = sharedEntry(key);
	shared.busy++;
	shared.lastUsed = Date.now();
	holdProcess(shared);
	let client: RedisClient | undefined;
	try {
		client = await readyClient(shared, connection);
		return await work(client);
	} catch (error) {
		if (
			client &&
			(error as Error | undefined)?.name !== 'ReplyError' &&
			clients.get(key) === shared &&
			shared.client === client
		) {
			if (isClusterClient(client)) {
				// A cluster client outlives a node: it re-reads the slots and goes to the node now serving them (the node
				// named by the connection may be the one that is gone, so opening the cluster anew could not even start).
				client.refreshSlotsCache();
			} else {
				// Anything but Redis's own answer (a timeout, a reset) may mean the connection is dead without the client
				// knowing yet: the client is replaced, so the next command connects anew instead of waiting on it.
				clients.delete(key);
				client.disconnect();
			}
		}
		throw error;
	} finally {
		shared.busy--;
		holdProcess(shared);
	}
}

/** This process's client for `connection` if one is open (see withSharedRedis). */
export function currentSharedRedisClient(
	connection: RedisConnectionOptions,
): RedisClient | undefined {
	return clients.get(keyOf(createRedisClientOptions(connection)))?.client;
}

function sharedEntry(key: string): SharedClient {
	let shared = clients.get(key);
	if (!shared) {
		shared = { busy: 0, lastUsed: Date.now() };
		evictIdle(MAX_SHARED_CLIENTS - 1);
		clients.set(key, shared);
	}
	return shared;
}

/** The entry's client when ready; else one opened anew (plain or cluster), by one attempt however many wait. */
function readyClient(
	shared: SharedClient,
	connection: RedisConnectionOptions,
): Promise<RedisClient> {
	if (shared.client?.status === 'ready') return Promise.resolve(shared.client);
	shared.opening ??= (async () => {
		const stale = shared.client;
		shared.client = undefined;
		if (stale && stale.status !== 'end') stale.disconnect();
		const client = await openRedisClient(connection);
		shared.client = client;
		// A cluster opens a connection to each node it sends to; each starts held or not as the entry's work says.
		if (isClusterClient(client))
			client.on('+node', (node) => node.on('connect', () => holdProcess(shared)));
		holdProcess(shared);
		return client;
	})().finally(() => {
		shared.opening = undefined;
	});
	return shared.opening;
}

/** Keeps the number of clients at most `limit`, as far as idle ones allow: the least recently used idle ones are closed. */
function evictIdle(limit: number): void {
	if (clients.size <= limit) return;
	const idle = [...clients.entries()]
		.filter(([, shared]) => shared.busy === 0)
		.sort((a, b) => a[1].lastUsed - b[1].lastUsed);
	for (const [key, shared] of idle.slice(0, clients.size - limit)) {
		clients.delete(key);
		if (shared.client) void quitClient(shared.client);
	}
}

/** Refs the client's sockets while work is under way, unrefs them otherwise. */
function holdProcess(shared: SharedClient): void {
	const client = shared.client;
	if (!client) return;
	const hold = shared.busy > 0;
	for (const node of isClusterClient(client) ? client.nodes() : [client]) {
		const socket = (node as unknown as { stream?: { ref?: () => void; unref?: () => void } })
			.stream;
		if (hold) socket?.ref?.();
		else socket?.unref?.();
	}
}

/** How many shared clients this process holds (for tests and benchmarks). */
export function sharedRedisClientCount(): number {
	return clients.size;
}

/** Closes every shared client (a process that shuts down; tests). */
export async function closeSharedRedisClients(): Promise<void> {
	const all = [...clients.values()];
	clients.clear();
	await Promise.all(
		all.map(async (shared) => {
			const client = shared.client ?? (await shared.opening?.catch(() => undefined));
			if (client) await quitClient(client);
		}),
	);
}
