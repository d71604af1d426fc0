import { randomUUID } from 'node:crypto';
import type { OptionNames } from '../core/known-options';
import {
	checkRedisStoreOptions,
	ManagedRedis,
	REDIS_SOURCE_OPTIONS,
	type RedisSource,
} from '../redis/managed-client';
import { evaluateWrite, luaScript } from '../redis/script';

/**
 * Which run states were already used to resume, so that one cannot be replayed (approve once, resume twice).
 * RedisUsedStates holds them for every process and n8n worker; MemoryUsedStates for this process only.
 */
export interface UsedStates {
	/** Marks the state used; false when it already was. `ttlSeconds` bounds how long it is remembered. */
	markUsed(id: string, ttlSeconds: number): Promise<boolean>;
	close(): Promise<void>;
}

export const DEFAULT_USED_STATE_PREFIX = 'agent_core:run_state:';
const USED_STATES_OPTIONS = {
	...REDIS_SOURCE_OPTIONS,
	keyPrefix: true,
} satisfies OptionNames<RedisSource & { keyPrefix?: string }>;

/** Used states in this process only: a state resumed in another process is not known here. */
export class MemoryUsedStates implements UsedStates {
	private readonly used = new Map<string, number>();

	constructor(private readonly now: () => number = Date.now) {}

	async markUsed(id: string, ttlSeconds: number): Promise<boolean> {
		const now = this.now();
		for (const [known, until] of this.used) if (until <= now) this.used.delete(known);
		if (this.used.has(id)) return false;
		this.used.set(id, now + ttlSeconds * 1000);
		return true;
	}

	async close(): Promise<void> {}
}

/**
 * Sets the entry, if absent, to this call's token; a token found there that is this call's own (the same call
 * sent again, e.g. by a cluster client retrying during a failover) still counts as the first use, so a retry
 * never refuses the resume it is part of. KEYS: the entry; ARGV: token, ttl. 1: first use; 0: used before.
 */
const MARK_SCRIPT = luaScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', tonumber(ARGV[2])) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end
return 0
`);

/**
 * Used states in Redis: one key per state id, `<prefix><id>`, set only if absent, expiring after `ttlSeconds`.
 * One key per entry needs no hash tag (a single key is always in one slot), so the layout is the one used before
 * Redis Cluster support, and states used before an upgrade stay refused.
 */
export class RedisUsedStates implements UsedStates {
	private readonly redis: ManagedRedis;
	private readonly keyPrefix: string;

	constructor(options: RedisSource & { keyPrefix?: string }) {
		checkRedisStoreOptions('RedisUsedStates', options, USED_STATES_OPTIONS);
		this.redis = new ManagedRedis(options, 'Redis run-state registry');
		this.keyPrefix = options.keyPrefix ?? DEFAULT_USED_STATE_PREFIX;
	}

	/** `write.token` (default: a new one) identifies this call, so that sending it again is safe (see MARK_SCRIPT). */
	async markUsed(id: string, ttlSeconds: number, write: { token?: string } = {}): Promise<boolean> {
		const token = write.token ?? randomUUID();
		const reply = await this.redis.run('mark the run state used', (client) =>
			evaluateWrite(
				client,
				MARK_SCRIPT,
				[`${this.keyPrefix}${id}`],
				[token, Math.max(1, Math.ceil(ttlSeconds))],
			),
		);
		return Number(reply) === 1;
	}

	close(): Promise<void> {
		return this.redis.close();
	}
}
