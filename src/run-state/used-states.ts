import { ManagedRedis, type RedisSource } from '../redis/managed-client';

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

/** Used states in Redis: one key per state id, set only if absent (SET NX), expiring after `ttlSeconds`. */
export class RedisUsedStates implements UsedStates {
  private readonly redis: ManagedRedis;
  private readonly keyPrefix: string;

  constructor(options: RedisSource & { keyPrefix?: string }) {
    this.redis = new ManagedRedis(options, 'Redis run-state registry');
    this.keyPrefix = options.keyPrefix ?? DEFAULT_USED_STATE_PREFIX;
  }

  async markUsed(id: string, ttlSeconds: number): Promise<boolean> {
    const reply = await this.redis.run('mark the run state used', (client) => client.set(`${this.keyPrefix}${id}`, '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)), 'NX'));
    return reply === 'OK';
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}
