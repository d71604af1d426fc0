import { checkKnownOptions, type OptionNames } from '../core/known-options';
import {
	checkRedisStoreOptions,
	ManagedRedis,
	REDIS_SOURCE_OPTIONS,
	type RedisSource,
} from '../redis/managed-client';
import { evaluateWrite, luaScript } from '../redis/script';

/**
 * Where a durable run's checkpoints are kept, one record per run key (issue #30). The store keeps text it is
 * given (the engine signs and seals it: see src/agent/checkpoints.ts) and who is running the run now: an
 * attempt `claim`s the run key before its first step, and its writes succeed only while it still holds it,
 * so that of two attempts on one run key (a stalled job picked up again while the first worker still runs)
 * the later one goes on and the earlier one stops at its next write, before it could run a step twice.
 * RedisCheckpoints holds them for every process and n8n worker; MemoryCheckpoints for this process only.
 */
export interface CheckpointStore {
	/**
	 * Takes the run key over for `attempt` and returns its record as it stands after the takeover (none yet:
	 * undefined), so nothing an earlier attempt writes later is missed. `run` fingerprints the run (its
	 * config, request and secret): a key kept for another run is not taken over (`taken: false`, with its
	 * record, so the caller can say why). A new key lives `ttlSeconds`; taking one over does not extend it.
	 */
	claim(runKey: string, attempt: string, run: string): Promise<{ taken: boolean; record?: string }>;
	/** Replaces the record and restarts its TTL, if `attempt` still holds the run key; false when another attempt took it over (or it expired). */
	write(runKey: string, attempt: string, record: string): Promise<boolean>;
	close(): Promise<void>;
}

/** How long a checkpoint is kept after its last write, unless the store is given another TTL: one day. */
export const DEFAULT_CHECKPOINT_TTL_SECONDS = 86_400;
export const DEFAULT_CHECKPOINT_PREFIX = 'agent_core:checkpoint:';

/** The one key layout of a run's checkpoint: `<prefix>{<run key>}`, the run key a hash tag (one slot in a Redis Cluster). */
export function checkpointKey(prefix: string, runKey: string): string {
	return `${prefix}{${runKey}}`;
}

/** What both stores are configured with. */
export interface CheckpointStoreOptions {
	/** Seconds a checkpoint is kept after its last write (default DEFAULT_CHECKPOINT_TTL_SECONDS): a retry after that starts afresh. */
	ttlSeconds?: number;
}

type MemoryCheckpointsOptions = CheckpointStoreOptions & { now?: () => number };
type RedisCheckpointsOptions = RedisSource & CheckpointStoreOptions & { keyPrefix?: string };
const MEMORY_OPTIONS = {
	ttlSeconds: true,
	now: true,
} satisfies OptionNames<MemoryCheckpointsOptions>;
const REDIS_OPTIONS = {
	...REDIS_SOURCE_OPTIONS,
	ttlSeconds: true,
	keyPrefix: true,
} satisfies OptionNames<RedisCheckpointsOptions>;

function ttlOf(options: CheckpointStoreOptions): number {
	const ttl = options.ttlSeconds ?? DEFAULT_CHECKPOINT_TTL_SECONDS;
	if (!Number.isInteger(ttl) || ttl < 1)
		throw new TypeError(
			`ttlSeconds must be a whole number of seconds, at least 1, not ${JSON.stringify(ttl)}`,
		);
	return ttl;
}

/** Checkpoints in this process only: a run continued in another process does not find them. */
export class MemoryCheckpoints implements CheckpointStore {
	private readonly runs = new Map<
		string,
		{ run: string; attempt: string; record?: string; until: number }
	>();
	private readonly ttlSeconds: number;
	private readonly now: () => number;

	constructor(options: MemoryCheckpointsOptions = {}) {
		checkKnownOptions('MemoryCheckpoints', options, MEMORY_OPTIONS);
		this.ttlSeconds = ttlOf(options);
		this.now = options.now ?? Date.now;
	}

	async claim(
		runKey: string,
		attempt: string,
		run: string,
	): Promise<{ taken: boolean; record?: string }> {
		const now = this.now();
		for (const [known, kept] of this.runs) if (kept.until <= now) this.runs.delete(known);
		const kept = this.runs.get(runKey);
		if (!kept) {
			this.runs.set(runKey, { run, attempt, until: now + this.ttlSeconds * 1000 });
			return { taken: true };
		}
		if (kept.run !== run) return { taken: false, record: kept.record };
		kept.attempt = attempt;
		return { taken: true, record: kept.record };
	}

	async write(runKey: string, attempt: string, record: string): Promise<boolean> {
		const run = this.runs.get(runKey);
		if (!run || run.attempt !== attempt || run.until <= this.now()) return false;
		Object.assign(run, { record, until: this.now() + this.ttlSeconds * 1000 });
		return true;
	}

	async close(): Promise<void> {}
}

/** Takeover and read in one step, so no write of the earlier attempt falls between them; another run's key is left as it is. */
const CLAIM_SCRIPT = luaScript(`
local record = redis.call('HGET', KEYS[1], 'record')
local run = redis.call('HGET', KEYS[1], 'run')
if run and run ~= ARGV[3] then return { 0, record } end
redis.call('HSET', KEYS[1], 'run', ARGV[3], 'attempt', ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2])) end
return { 1, record }
`);

/** A write only while the attempt holds the run key. */
const WRITE_SCRIPT = luaScript(`
if redis.call('HGET', KEYS[1], 'attempt') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`);

/**
 * Checkpoints in Redis: one hash per run key (`run`, `attempt`, `record`), expiring `ttlSeconds` after its last
 * write. On a cluster a claim or write is done only once a replica holds it (evaluateWrite), so a failover
 * never loses the record of a call that started; both scripts may be applied twice with the same effect.
 */
export class RedisCheckpoints implements CheckpointStore {
	private readonly redis: ManagedRedis;
	private readonly keyPrefix: string;
	private readonly ttlSeconds: number;

	constructor(options: RedisCheckpointsOptions) {
		checkRedisStoreOptions('RedisCheckpoints', options, REDIS_OPTIONS);
		this.ttlSeconds = ttlOf(options);
		this.redis = new ManagedRedis(options, 'Redis checkpoint store');
		this.keyPrefix = options.keyPrefix ?? DEFAULT_CHECKPOINT_PREFIX;
	}

	async claim(
		runKey: string,
		attempt: string,
		run: string,
	): Promise<{ taken: boolean; record?: string }> {
		const key = checkpointKey(this.keyPrefix, runKey);
		const [taken, record] = (await this.redis.run("read the run's checkpoint", (client) =>
			evaluateWrite(client, CLAIM_SCRIPT, [key], [attempt, this.ttlSeconds, run]),
		)) as [number, unknown];
		return { taken: taken === 1, ...(typeof record === 'string' ? { record } : {}) };
	}

	async write(runKey: string, attempt: string, record: string): Promise<boolean> {
		const key = checkpointKey(this.keyPrefix, runKey);
		const written = await this.redis.run("write the run's checkpoint", (client) =>
			evaluateWrite(client, WRITE_SCRIPT, [key], [attempt, record, this.ttlSeconds]),
		);
		return written === 1;
	}

	close(): Promise<void> {
		return this.redis.close();
	}
}
