import { ConfigError } from './config';
import type { BudgetLedger } from '../budget/ledger';
import type { TokenUsage } from '../providers/chat-model';

/** `shared_budget`: a token (or cost) budget that every run naming the same scope draws on, per period. */
export interface SharedBudgetConfig {
  /** Who shares it: e.g. a session id, a workflow id, a customer. */
  scope: string;
  /** Tokens the scope may use per period (usage as providers report it). */
  tokens?: number;
  /** Cost the scope may use per period, in the currency of `prices`. */
  cost?: number;
  period_seconds: number;
}

/** `prices`: per model id, what a million prompt and completion tokens cost. */
export type PriceTable = Record<string, { input_per_million: number; output_per_million: number }>;

/** What one call cost under the price table; undefined when the table does not price the model. */
export function costOf(usage: TokenUsage, model: string, prices: PriceTable | undefined): number | undefined {
  const price = prices?.[model];
  if (!price) return undefined;
  return (usage.prompt_tokens * price.input_per_million + usage.completion_tokens * price.output_per_million) / 1_000_000;
}

/**
 * What a run spends: the cost of its calls under `prices`, and its side of `shared_budget` — before each
 * model call, whether the scope is spent; after it, the charge. Ledger failures (Redis down) are not
 * caught: a run never goes on unmetered.
 */
export class Spending {
  constructor(
    private readonly config: { shared_budget?: SharedBudgetConfig; prices?: PriceTable },
    private readonly ledger: BudgetLedger | undefined,
    /** What the run spent before it was paused, when it is resumed. */
    private total = 0,
  ) {
    if (config.shared_budget && !ledger) {
      throw new ConfigError('shared_budget', 'shared_budget needs a ledger to count in: pass budgetLedger (a RedisBudgetLedger shares it across processes); on the CLI, --redis-url URL');
    }
  }

  /** With `prices`: what the run's calls cost so far. */
  get cost(): number | undefined {
    return this.config.prices ? this.total : undefined;
  }

  /** Why the shared budget's scope can take no more calls this period, or undefined while it can (or there is none). */
  async exhausted(): Promise<string | undefined> {
    if (!this.config.shared_budget) return undefined;
    const { scope, tokens, cost, period_seconds: period } = this.config.shared_budget;
    const totals = await this.ledger!.totals(scope, period);
    if (tokens !== undefined && totals.tokens >= tokens) return `shared budget "${scope}" used ${totals.tokens} of its ${tokens} tokens this period (${period} s)`;
    if (cost !== undefined && totals.cost >= cost) return `shared budget "${scope}" spent ${roundCost(totals.cost)} of its ${cost} this period (${period} s)`;
    return undefined;
  }

  /** One model call's usage, by the model that answered it. */
  async record(usage: TokenUsage, model: string): Promise<void> {
    const cost = costOf(usage, model, this.config.prices);
    if (cost !== undefined) this.total += cost;
    const budget = this.config.shared_budget;
    if (budget) await this.ledger!.charge(budget.scope, budget.period_seconds, { tokens: usage.total_tokens, ...(cost !== undefined ? { cost } : {}) });
  }
}

/** Costs are reported to a millionth of the currency unit. */
export function roundCost(cost: number): number {
  return Math.round(cost * 1_000_000) / 1_000_000;
}
