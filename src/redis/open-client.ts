/**
 * The one place that opens a client for a connection: a plain client, or, when the server named is a node of a
 * Redis Cluster, a cluster client seeded with that node, so a connection naming any node of a cluster just works.
 */
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { checkKnownOptions } from '../core/known-options';
import { loadOnce } from '../core/load-once';
import {
	createClient,
	createRedisClientOptions,
	DEFAULT_COMMAND_TIMEOUT_MS,
	DEFAULT_CONNECT_TIMEOUT_MS,
	describeRedisFailure,
	ignoreError,
	quitClient,
	REDIS_CONNECTION_OPTIONS,
	redisAddress,
	waitUntilReady,
	type RedisConnectionOptions,
} from './connection';
import { RedisError, InvalidContextInputError } from './errors';

/** ioredis, loaded when the first cluster is opened (see loadOnce). */
const ioredis = loadOnce(() => require('ioredis') as typeof import('ioredis'));

/** A client of one Redis, or of a whole Redis Cluster. */
export type RedisClient = Redis | Cluster;

export function isClusterClient(client: RedisClient): client is Cluster {
	return client.isCluster === true;
}

/**
 * Connects to the server the connection names and asks it (INFO cluster) whether it is a cluster node. If not,
 * that client is returned as it is (one connection, as before); if it is, it is closed and a cluster client
 * seeded with the same node is returned once the cluster is ready (cluster_state:ok). Rejects with the
 * underlying failure, having closed whatever it opened; a database other than 0 on a cluster is refused.
 */
export async function openRedisClient(connection: RedisConnectionOptions): Promise<RedisClient> {
	const options = createRedisClientOptions(connection);
	const connectTimeout = options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS;
	const probe = createClient(options);
	let clusterNode: boolean;
	try {
		await waitUntilReady(probe, connectTimeout);
		clusterNode = await isClusterNode(probe);
	} catch (error) {
		await quitClient(probe);
		throw error;
	}
	if (!clusterNode) return probe;
	await quitClient(probe);
	if (options.db) throw clusterDatabaseError(redisAddress(options), options.db);
	const cluster = createClusterClient(options);
	try {
		await waitUntilReady(cluster, connectTimeout);
		return cluster;
	} catch (error) {
		await quitClient(cluster);
		throw error;
	}
}

/** Opens a ready client (see openRedisClient) or throws a `RedisError` naming the address. */
export async function connectRedis(connection: RedisConnectionOptions): Promise<RedisClient> {
	const address = redisAddress(createRedisClientOptions(connection));
	try {
		return await openRedisClient(connection);
	} catch (error) {
		throw describeRedisFailure(error, address, 'connect');
	}
}

/** Connects, sends PING and closes: what a credential test needs, as a result rather than an exception. */
export async function pingRedis(
	connection: RedisConnectionOptions,
): Promise<{ ok: true; latencyMs: number } | { ok: false; message: string }> {
	checkKnownOptions('pingRedis', connection, REDIS_CONNECTION_OPTIONS);
	let client: RedisClient | undefined;
	let address = 'the configured address';
	try {
		address = redisAddress(createRedisClientOptions(connection));
		client = await connectRedis(connection);
		const started = performance.now();
		await client.ping();
		return { ok: true, latencyMs: Math.round(performance.now() - started) };
	} catch (error) {
		if (error instanceof InvalidContextInputError) return { ok: false, message: error.message };
		return { ok: false, message: describeRedisFailure(error, address, 'ping').message };
	} finally {
		if (client) await quitClient(client);
	}
}

async function isClusterNode(client: Redis): Promise<boolean> {
	try {
		return /^cluster_enabled:1\s*$/m.test(await client.info('cluster'));
	} catch (error) {
		// A user whose ACL denies INFO: taken for a plain Redis, as before cluster support.
		if (/NOPERM/.test((error as Error | undefined)?.message ?? '')) return false;
		throw error;
	}
}

function clusterDatabaseError(address: string, db: number): RedisError {
	return new RedisError(
		`Redis at ${address} is a node of a Redis Cluster, and a cluster has only database 0: database ${db} cannot be used`,
		{ failure: 'configuration', address, operation: 'connect' },
		(connection) =>
			`Set the database in ${connection} to 0 (the /${db} at the end of a Redis URL, or the credential's Database).`,
	);
}

/**
 * A cluster client with the plain client's fail-fast habits: no reconnect loop in the background (a cluster
 * whose every node is gone ends, and the next operation opens it anew), bounded connect and command times on
 * every node, credentials and TLS as given, no NAT mapping (nodes are reached at the addresses they announce).
 * A command that meets a failover (its node's connection closed, CLUSTERDOWN, TRYAGAIN, MOVED) is sent again
 * after a short delay with the slots re-read, at most 16 times, so that a failover of about a command timeout is
 * ridden out; the caller's deadline bounds the whole (see ManagedRedis).
 */
function createClusterClient(options: RedisOptions): Cluster {
	const commandTimeout = options.commandTimeout ?? DEFAULT_COMMAND_TIMEOUT_MS;
	const retryDelay = Math.max(50, Math.round(commandTimeout / 10));
	const { username, password, tls, connectTimeout, disconnectTimeout } = options;
	const cluster = new (ioredis().Cluster)([{ host: options.host, port: options.port }], {
		lazyConnect: true,
		clusterRetryStrategy: () => null,
		// Commands wait only while a node's connection is being opened (bounded by connectTimeout) or the slots are
		// re-read; without it, a command sent while a node connects fails and is retried after a delay instead.
		enableOfflineQueue: true,
		enableReadyCheck: true,
		scaleReads: 'master',
		maxRedirections: 16,
		retryDelayOnFailover: retryDelay,
		retryDelayOnClusterDown: retryDelay,
		retryDelayOnTryAgain: retryDelay,
		slotsRefreshTimeout: connectTimeout,
		// With TLS, nodes are reached by the names they announce, so certificates for those names verify.
		...(tls
			? {
					dnsLookup: (address: string, callback: (error: null, address: string) => void) =>
						callback(null, address),
				}
			: {}),
		redisOptions: {
			username,
			password,
			tls,
			connectTimeout,
			commandTimeout,
			disconnectTimeout,
			maxRetriesPerRequest: 0,
		},
	});
	// Failures reach callers through rejected commands; these listeners only keep them from being reported twice.
	cluster.on('error', ignoreError);
	cluster.on('node error', ignoreError);
	return cluster;
}
