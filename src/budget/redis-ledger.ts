import { ManagedRedis, type RedisSource } from '../redis/managed-client';
import { evaluateScript, luaScript } from '../redis/script';
import { checkLedgerInput, periodStart, type BudgetLedger, type Charge, type LedgerTotals } from './ledger';

export const DEFAULT_BUDGET_KEY_PREFIX = 'agent_core:budget:';
/** Kept this long past its period's end, so a run that read the ledger just before the end still finds it. */
const EXPIRY_SLACK_SECONDS = 60;

/** The one key layout of a scope's ledger: `<prefix><scope>:<period length>:<period start, epoch seconds>`, a hash of tokens and cost. */
export function budgetKey(prefix: string, scope: string, periodSeconds: number, nowMs: number): string {
  return `${prefix}${scope}:${periodSeconds}:${periodStart(periodSeconds, nowMs)}`;
}

/** Both counters and the expiry in one script: concurrent charges from every process add up exactly. */
const CHARGE_SCRIPT = luaScript(`
local tokens = redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[1])
local cost = redis.call('HINCRBYFLOAT', KEYS[1], 'cost', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return { tokens, cost }
`);

/**
 * Shared budgets in Redis: every process and n8n worker that uses the same Redis and prefix charges the
 * same ledger. A dead Redis fails the call with the usual clear Redis error; nothing runs unmetered.
 */
export class RedisBudgetLedger implements BudgetLedger {
  private readonly redis: ManagedRedis;
  private readonly keyPrefix: string;
  private readonly now: () => number;

  constructor(options: RedisSource & { keyPrefix?: string; now?: () => number }) {
    this.redis = new ManagedRedis(options, 'Redis budget ledger');
    this.keyPrefix = options.keyPrefix ?? DEFAULT_BUDGET_KEY_PREFIX;
    this.now = options.now ?? Date.now;
  }

  async totals(scope: string, periodSeconds: number): Promise<LedgerTotals> {
    checkLedgerInput(scope, periodSeconds);
    const key = budgetKey(this.keyPrefix, scope, periodSeconds, this.now());
    const [tokens, cost] = await this.redis.run('read the budget', (client) => client.hmget(key, 'tokens', 'cost'));
    return { tokens: Number(tokens ?? 0), cost: Number(cost ?? 0) };
  }

  async charge(scope: string, periodSeconds: number, charge: Charge): Promise<LedgerTotals> {
    checkLedgerInput(scope, periodSeconds, charge);
    const now = this.now();
    const key = budgetKey(this.keyPrefix, scope, periodSeconds, now);
    const endsIn = periodStart(periodSeconds, now) + periodSeconds - Math.floor(now / 1000);
    const [tokens, cost] = (await this.redis.run('charge the budget', (client) =>
      evaluateScript(client, CHARGE_SCRIPT, [key], [charge.tokens, charge.cost ?? 0, endsIn + EXPIRY_SLACK_SECONDS]),
    )) as [number, string];
    return { tokens: Number(tokens), cost: Number(cost) };
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}
