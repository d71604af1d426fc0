import { randomUUID } from 'node:crypto';
import { hashTag } from '../redis/hash-tag';
import type { OptionNames } from '../core/known-options';
import {
	checkRedisStoreOptions,
	ManagedRedis,
	REDIS_SOURCE_OPTIONS,
	type RedisSource,
} from '../redis/managed-client';
import { isClusterClient, type RedisClient } from '../redis/open-client';
import { evaluateScript, evaluateWrite, luaScript, WRITE_ID_TTL_SECONDS } from '../redis/script';
import {
	checkLedgerInput,
	periodStart,
	type BudgetLedger,
	type Charge,
	type LedgerTotals,
} from './ledger';

export const DEFAULT_BUDGET_KEY_PREFIX = 'agent_core:budget:';
/** Kept this long past its period's end, so a run that read the ledger just before the end still finds it. */
const EXPIRY_SLACK_SECONDS = 60;

/**
 * The one key layout of a scope's ledger: `<prefix>{<scope>:<period length>:<period start, epoch seconds>}`, a
 * hash of tokens and cost. The braces are a Redis Cluster hash tag: the ledger and its charges' ids share a slot.
 */
export function budgetKey(
	prefix: string,
	scope: string,
	periodSeconds: number,
	nowMs: number,
): string {
	return `${prefix}${hashTag(`${scope}:${periodSeconds}:${periodStart(periodSeconds, nowMs)}`)}`;
}

/** Where a charge's id is remembered (WRITE_ID_TTL_SECONDS), so a charge sent twice counts once. */
function chargeIdKey(ledgerKey: string, chargeId: string): string {
	return `${ledgerKey}:charge:${chargeId}`;
}

/**
 * The layout before Redis Cluster support, `<prefix><scope>:<period length>:<period start>`: on a plain Redis, its
 * totals are moved into the ledger above on first touch (see MIGRATE_LUA), so an upgrade loses no spending.
 */
export function legacyBudgetKey(
	prefix: string,
	scope: string,
	periodSeconds: number,
	nowMs: number,
): string {
	return `${prefix}${scope}:${periodSeconds}:${periodStart(periodSeconds, nowMs)}`;
}

/**
 * migrate(ledger, old ledger): adds the old ledger's counters into the ledger and deletes it, in the script that
 * reads or charges, so no charge is lost or counted twice (an old process still charging the old key after an
 * upgrade is folded in on the next touch). Without an old key (a cluster), nothing to do.
 */
const MIGRATE_LUA = `
local function migrate(ledger, oldLedger)
  if not oldLedger or redis.call('EXISTS', oldLedger) == 0 then return end
  local old = redis.call('HMGET', oldLedger, 'tokens', 'cost')
  if old[1] then redis.call('HINCRBY', ledger, 'tokens', old[1]) end
  if old[2] then redis.call('HINCRBYFLOAT', ledger, 'cost', old[2]) end
  local ttl = redis.call('TTL', oldLedger)
  redis.call('DEL', oldLedger)
  if ttl > 0 and redis.call('TTL', ledger) < 0 then redis.call('EXPIRE', ledger, ttl) end
end
`;

/** The totals. KEYS: ledger[, old ledger]. */
const TOTALS_SCRIPT = luaScript(`${MIGRATE_LUA}
migrate(KEYS[1], KEYS[2])
return redis.call('HMGET', KEYS[1], 'tokens', 'cost')
`);

/**
 * Both counters and the expiry in one script: concurrent charges from every process add up exactly, and a charge
 * id seen before (the same charge sent again, e.g. by a cluster client retrying during a failover) adds nothing.
 * KEYS: ledger, charge id[, old ledger]; ARGV: tokens, cost, expiry, id expiry.
 */
const CHARGE_SCRIPT = luaScript(`${MIGRATE_LUA}
migrate(KEYS[1], KEYS[3])
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[1])
  redis.call('HINCRBYFLOAT', KEYS[1], 'cost', ARGV[2])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
  redis.call('SET', KEYS[2], '1', 'EX', tonumber(ARGV[4]))
end
return redis.call('HMGET', KEYS[1], 'tokens', 'cost')
`);

type RedisBudgetLedgerOptions = RedisSource & { keyPrefix?: string; now?: () => number };
const LEDGER_OPTIONS = {
	...REDIS_SOURCE_OPTIONS,
	keyPrefix: true,
	now: true,
} satisfies OptionNames<RedisBudgetLedgerOptions>;

/**
 * Shared budgets in Redis: every process and n8n worker that uses the same Redis (or Redis Cluster) and prefix
 * charges the same ledger. A dead Redis fails the call with the usual clear Redis error; nothing runs unmetered.
 */
export class RedisBudgetLedger implements BudgetLedger {
	private readonly redis: ManagedRedis;
	private readonly keyPrefix: string;
	private readonly now: () => number;

	constructor(options: RedisBudgetLedgerOptions) {
		checkRedisStoreOptions('RedisBudgetLedger', options, LEDGER_OPTIONS);
		this.redis = new ManagedRedis(options, 'Redis budget ledger');
		this.keyPrefix = options.keyPrefix ?? DEFAULT_BUDGET_KEY_PREFIX;
		this.now = options.now ?? Date.now;
	}

	async totals(scope: string, periodSeconds: number): Promise<LedgerTotals> {
		checkLedgerInput(scope, periodSeconds);
		const now = this.now();
		const reply = await this.redis.run('read the budget', (client) =>
			evaluateScript(
				client,
				TOTALS_SCRIPT,
				[
					budgetKey(this.keyPrefix, scope, periodSeconds, now),
					...this.legacy(client, scope, periodSeconds, now),
				],
				[],
			),
		);
		return totalsOf(reply);
	}

	/**
	 * Adds the charge. `write.chargeId` (default: a new id) makes it idempotent: sent again with the same id within
	 * WRITE_ID_TTL_SECONDS, it counts once. On a Redis Cluster the charge is done once a replica holds it.
	 */
	async charge(
		scope: string,
		periodSeconds: number,
		charge: Charge,
		write: { chargeId?: string } = {},
	): Promise<LedgerTotals> {
		checkLedgerInput(scope, periodSeconds, charge);
		const now = this.now();
		const key = budgetKey(this.keyPrefix, scope, periodSeconds, now);
		const endsIn = periodStart(periodSeconds, now) + periodSeconds - Math.floor(now / 1000);
		const chargeId = write.chargeId ?? randomUUID();
		const reply = await this.redis.run('charge the budget', (client) =>
			evaluateWrite(
				client,
				CHARGE_SCRIPT,
				[key, chargeIdKey(key, chargeId), ...this.legacy(client, scope, periodSeconds, now)],
				[charge.tokens, charge.cost ?? 0, endsIn + EXPIRY_SLACK_SECONDS, WRITE_ID_TTL_SECONDS],
			),
		);
		return totalsOf(reply);
	}

	close(): Promise<void> {
		return this.redis.close();
	}

	/** The old layout's key on a plain Redis (see legacyBudgetKey); none on a cluster. */
	private legacy(client: RedisClient, scope: string, periodSeconds: number, now: number): string[] {
		return isClusterClient(client)
			? []
			: [legacyBudgetKey(this.keyPrefix, scope, periodSeconds, now)];
	}
}

function totalsOf(reply: unknown): LedgerTotals {
	const [tokens, cost] = reply as [string | null, string | null];
	return { tokens: Number(tokens ?? 0), cost: Number(cost ?? 0) };
}
