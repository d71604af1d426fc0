import { checkKnownOptions, type OptionNames } from '../core/known-options';
import { InputError } from '../core/input-error';
import {
	createRedisClientOptions,
	DeadlineError,
	DEFAULT_COMMAND_TIMEOUT_MS,
	DEFAULT_CONNECT_TIMEOUT_MS,
	describeRedisFailure,
	ignoreError,
	quitClient,
	redisAddress,
	REDIS_CONNECTION_OPTIONS,
	ReplicaUnconfirmedError,
	waitUntilReady,
	withinDeadline,
	type RedisConnectionOptions,
} from './connection';
import { RedisError } from './errors';
import { isClusterClient, openRedisClient, type RedisClient } from './open-client';
import { currentSharedRedisClient, withSharedRedis } from './shared-clients';

/**
 * Either a connection the owner opens and owns; or this process's shared client for a connection (see
 * withSharedRedis: n8n executions reuse it instead of connecting each time); or a client the caller owns
 * and closes (a plain or a cluster client, used as it is).
 */
export type RedisSource =
	| { connection: RedisConnectionOptions }
	| { shared: RedisConnectionOptions }
	| {
			client: RedisClient;
			/** Also quit this client on `close()`. Default false. */ closeClient?: boolean;
	  };

/** RedisSource's option names, spread into each store's own list (`{ ...REDIS_SOURCE_OPTIONS, keyPrefix: true }`). */
export const REDIS_SOURCE_OPTIONS = {
	connection: true,
	shared: true,
	client: true,
	closeClient: true,
} satisfies OptionNames<RedisSource>;

/**
 * Refuses a Redis store's options before anything connects: an option `known` lacks (see checkKnownOptions),
 * a connection option RedisConnectionOptions lacks (`hots` would otherwise be a silent 127.0.0.1), and none or
 * more than one of `connection`, `shared` and `client` (which one would win is not the caller's guess to make).
 */
export function checkRedisStoreOptions(
	where: string,
	given: unknown,
	known: Readonly<Record<string, true>>,
): void {
	checkKnownOptions(where, given, known);
	const options = given as Record<string, unknown>;
	const sources = (['connection', 'shared', 'client'] as const).filter(
		(name) => options[name] !== undefined,
	);
	if (sources.length !== 1)
		throw new InputError(
			sources[0] ?? 'connection',
			`${where} takes one Redis source, ${sources.length === 0 ? 'none was given' : `not ${sources.join(' and ')}`}`,
			"Give one of connection (a connection the store opens and closes), shared (the process's shared " +
				'client for a connection) or client (a client you own).',
		);
	if (sources[0] !== 'client')
		checkKnownOptions(`${where} ${sources[0]}`, options[sources[0]], REDIS_CONNECTION_OPTIONS);
}

/**
 * One Redis client as the stores use it: opened on first use (a cluster client when the connection names a
 * Redis Cluster node, see openRedisClient), commands failing as one clear RedisError naming the address,
 * concurrent first uses sharing one attempt, a failed attempt retried by the next command, each operation
 * bounded by a deadline (connect time plus twice the command time: a cluster client's retries during a failover
 * included, see attempt), and closed once.
 */
export class ManagedRedis {
	readonly address: string;
	private readonly connection?: RedisConnectionOptions;
	private readonly shared?: RedisConnectionOptions;
	private current?: RedisClient;
	private readonly borrowed: boolean;
	private readonly ownsClient: boolean;
	private readonly deadlineMs: number;
	private opening: Promise<RedisClient> | undefined;
	private closed = false;

	/** `what` names the owner in the error after close, e.g. "Redis context store". */
	constructor(
		source: RedisSource,
		private readonly what: string,
	) {
		if ('client' in source) {
			this.current = source.client;
			this.borrowed = true;
			this.ownsClient = source.closeClient ?? false;
			// Without a listener, ioredis prints every connection error as an unhandled 'error' event.
			this.current.on('error', ignoreError);
			this.address = borrowedAddress(source.client);
			this.deadlineMs = deadlineOf(
				isClusterClient(source.client)
					? (source.client.options.redisOptions ?? {})
					: source.client.options,
			);
		} else {
			const connection = 'shared' in source ? source.shared : source.connection;
			if ('shared' in source) this.shared = connection;
			else this.connection = connection;
			this.borrowed = false;
			this.ownsClient = !('shared' in source);
			const options = createRedisClientOptions(connection);
			this.address = redisAddress(options);
			this.deadlineMs = deadlineOf(options);
		}
	}

	/** The client commands went to last (a shared one is looked up each time: the process may have replaced it). */
	get client(): RedisClient {
		const client = this.shared ? currentSharedRedisClient(this.shared) : this.current;
		if (!client) throw new Error(`The ${this.what} has not connected yet`);
		return client;
	}

	async run<T>(operation: string, command: (client: RedisClient) => Promise<T>): Promise<T> {
		if (this.closed) {
			throw new RedisError(`The ${this.what} for ${this.address} is closed`, {
				failure: 'command',
				address: this.address,
				operation,
			});
		}
		const failures: unknown[] = [];
		try {
			return await withinDeadline(
				this.attempt(command, Date.now() + this.deadlineMs, failures),
				this.deadlineMs,
			);
		} catch (error) {
			// Past the deadline after attempts that failed, what they met says more than the deadline.
			throw describeRedisFailure(
				error instanceof DeadlineError && failures.length > 0 ? failures.at(-1) : error,
				this.address,
				operation,
			);
		}
	}

	/**
	 * Runs the command; on a cluster, one that failed on the way (a connection closed by a master that died,
	 * CLUSTERDOWN or TRYAGAIN while a replica takes over, no replica confirming yet) is sent again while the deadline
	 * allows: every write's script carries an id it applies once, so a write sent twice is applied once.
	 */
	private async attempt<T>(
		command: (client: RedisClient) => Promise<T>,
		deadlineAt: number,
		failures: unknown[],
	): Promise<T> {
		for (;;) {
			let used: RedisClient | undefined;
			const run = (client: RedisClient) => {
				used = client;
				return command(client);
			};
			try {
				return await (this.shared ? withSharedRedis(this.shared, run) : this.ready().then(run));
			} catch (error) {
				if (
					!used ||
					!isClusterClient(used) ||
					!passingClusterFailure(error) ||
					Date.now() + CLUSTER_RETRY_DELAY_MS >= deadlineAt
				)
					throw error;
				failures.push(error);
				await new Promise((resolve) => setTimeout(resolve, CLUSTER_RETRY_DELAY_MS));
			}
		}
	}

	/** Quits (or, if Redis does not answer, drops) the connection, when it is ours; a shared one stays for the next execution. */
	async close(): Promise<void> {
		this.closed = true;
		if (!this.ownsClient) return;
		const client = this.current ?? (await this.opening?.catch(() => undefined));
		if (client) await quitClient(client);
	}

	private ready(): Promise<RedisClient> {
		if (this.current?.status === 'ready') return Promise.resolve(this.current);
		this.opening ??= this.open().finally(() => {
			this.opening = undefined;
		});
		return this.opening;
	}

	private async open(): Promise<RedisClient> {
		if (this.borrowed) {
			const client = this.current!;
			await waitUntilReady(client, connectTimeoutOf(client)).catch((error: unknown) => {
				// A server that accepted the socket but never got ready would otherwise keep it open. (An
				// ended client is left alone: disconnecting it again arms a timer that keeps Node running.)
				if (this.ownsClient && client.status !== 'end') client.disconnect();
				throw error;
			});
			return client;
		}
		const stale = this.current;
		this.current = undefined;
		if (stale && stale.status !== 'end') stale.disconnect();
		const client = await openRedisClient(this.connection!);
		if (this.closed) {
			await quitClient(client);
			throw new Error('Connection is closed.');
		}
		this.current = client;
		return client;
	}
}

/** The pause before a command that met a cluster failover is sent again (see ManagedRedis.attempt). */
const CLUSTER_RETRY_DELAY_MS = 100;

/** A failure a cluster gets over by itself (a failover, a slot moving), as opposed to Redis refusing the command. */
function passingClusterFailure(error: unknown): boolean {
	if (error instanceof ReplicaUnconfirmedError) return true;
	const { name, message = '' } = (error ?? {}) as { name?: string; message?: string };
	if (name !== 'ReplyError') return !/WRONGPASS|NOAUTH|NOPERM/.test(message);
	return /^(CLUSTERDOWN|TRYAGAIN|MOVED|ASK|LOADING|MASTERDOWN|READONLY)\b/.test(message);
}

/** Connect time plus twice the command time: the first use connects, and a failover's retries take about a command time. */
function deadlineOf(options: { connectTimeout?: number; commandTimeout?: number }): number {
	return (
		(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS) +
		2 * (options.commandTimeout ?? DEFAULT_COMMAND_TIMEOUT_MS)
	);
}

function connectTimeoutOf(client: RedisClient): number {
	const options = isClusterClient(client) ? client.options.redisOptions : client.options;
	return options?.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS;
}

function borrowedAddress(client: RedisClient): string {
	if (!isClusterClient(client)) return redisAddress(client.options);
	// ioredis keeps the seed nodes it was given; the first names the cluster in messages.
	const [seed] =
		(client as unknown as { startupNodes?: Array<{ host?: string; port?: number }> })
			.startupNodes ?? [];
	return seed ? redisAddress(seed) : 'a Redis Cluster';
}
