import { ConfigError } from './config';
import type { BudgetLedger, LedgerTotals } from '../budget/ledger';
import type { FinishReason } from '../trace/types';
import type { TokenUsage } from '../core/usage';

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

/** How a run ends for its shared budget: the scope is spent, or its ledger (Redis) failed mid-run. */
export interface BudgetStop {
  next: 'finish';
  reason: Extract<FinishReason, 'budget_exhausted' | 'budget_unavailable'>;
  detail: string;
}

/**
 * What a run spends: the cost of its calls under `prices`, and its side of `shared_budget` — before each
 * model call, whether the scope is spent; after it, the charge. A run never goes on unmetered: a ledger
 * that fails before the run did anything throws (nothing to keep, and a wrong Redis address is reported as
 * such); once the run has called the model or run a tool, a failure ends it `budget_unavailable`, so its
 * output, trace and audit row are kept (what it already did happened).
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

  /**
   * Why the run must stop before its next model call, or undefined while the scope can take it (or there is
   * no shared budget). `started`: the run already called the model or ran a tool (a resumed run has).
   */
  async stopBeforeCall(started: boolean): Promise<BudgetStop | undefined> {
    if (!this.config.shared_budget) return undefined;
    const { scope, tokens, cost, period_seconds: period } = this.config.shared_budget;
    let totals: LedgerTotals;
    try {
      totals = await this.ledger!.totals(scope, period);
    } catch (error) {
      if (!started) throw error;
      return unavailable(`shared budget "${scope}" could not be checked (${messageOf(error)}); the run stopped before its next model call`);
    }
    if (tokens !== undefined && totals.tokens >= tokens) return exhausted(`shared budget "${scope}" used ${totals.tokens} of its ${tokens} tokens this period (${period} s)`);
    if (cost !== undefined && totals.cost >= cost) return exhausted(`shared budget "${scope}" spent ${roundCost(totals.cost)} of its ${cost} this period (${period} s)`);
    return undefined;
  }

  /**
   * One model call's usage, by the model that answered it. When the ledger fails to take the charge, the
   * run stops at once without acting on that reply: the stop says which tokens went uncharged.
   */
  async record(usage: TokenUsage, model: string): Promise<BudgetStop | undefined> {
    const cost = costOf(usage, model, this.config.prices);
    if (cost !== undefined) this.total += cost;
    const budget = this.config.shared_budget;
    if (!budget) return undefined;
    try {
      await this.ledger!.charge(budget.scope, budget.period_seconds, { tokens: usage.total_tokens, ...(cost !== undefined ? { cost } : {}) });
      return undefined;
    } catch (error) {
      const charge = `${usage.total_tokens} tokens${cost !== undefined ? ` (cost ${roundCost(cost)})` : ''}`;
      return unavailable(`shared budget "${budget.scope}" could not be charged the ${charge} of this step's model call (${messageOf(error)}); the run stopped without acting on the reply`);
    }
  }
}

const exhausted = (detail: string): BudgetStop => ({ next: 'finish', reason: 'budget_exhausted', detail });
const unavailable = (detail: string): BudgetStop => ({ next: 'finish', reason: 'budget_unavailable', detail });

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Costs are reported to a millionth of the currency unit. */
export function roundCost(cost: number): number {
  return Math.round(cost * 1_000_000) / 1_000_000;
}
