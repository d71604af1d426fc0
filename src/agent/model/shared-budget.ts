import type { BudgetLedger, LedgerTotals } from '../../budget/ledger';
import {
	CATALOGUE_NAME,
	type CallCost,
	type ModelPrice,
	type PriceTable,
	addCost,
	costOf,
	noCost,
	priceOf,
	roundCost,
} from '../../budget/model-catalogue';
import type { FinishReason, TraceStep } from '../../trace/types';
import type { TokenUsage } from '../../core/usage';
import { ConfigError } from '../../core/config-error';
import type { SharedBudgetConfig } from '../../budget/ledger';

export type { PriceTable } from '../../budget/model-catalogue';
export type { SharedBudgetConfig } from '../../budget/ledger';
export { roundCost } from '../../budget/model-catalogue';

/** How a run ends for its budgets: a limit is spent, or the shared ledger (Redis) failed mid-run. */
export interface BudgetStop {
	next: 'finish';
	reason: Extract<FinishReason, 'budget_exhausted' | 'budget_unavailable' | 'cost_limit'>;
	detail: string;
}

/** A model that may answer the run, as the cost check before the first call names it. */
export interface PricedModel {
	name: string;
	provider: string;
}

/** What the config says about spending. */
type SpendingConfig = {
	shared_budget?: SharedBudgetConfig;
	prices?: PriceTable;
	max_cost?: number;
};

/**
 * What a run spends: each call's cost (the catalogue's price, or `prices`; null for a model neither knows),
 * `max_cost`, and its side of `shared_budget` — before each model call, whether a limit is spent; after it,
 * the charge. Under a cost limit every model that may answer must have a price, checked before the first
 * call. A run never goes on unmetered: a ledger that fails before the run did anything throws (nothing to
 * keep, and a wrong Redis address is reported as such); once the run has called the model or run a tool, a
 * failure ends it `budget_unavailable`, so its output, trace and audit row are kept.
 */
export class Spending {
	constructor(
		private readonly config: SpendingConfig,
		private readonly ledger: BudgetLedger | undefined,
		models: readonly PricedModel[],
	) {
		if (config.shared_budget && !ledger) {
			throw new ConfigError(
				'shared_budget',
				'shared_budget needs a ledger to count in: pass budgetLedger (a RedisBudgetLedger shares it across processes); on the CLI, --redis-url URL',
			);
		}
		const limit = costLimitOf(config);
		const unpriced = limit ? models.find((model) => !this.priceOf(model)) : undefined;
		if (limit && unpriced) {
			throw new ConfigError(
				limit === 'max_cost' ? 'max_cost' : 'shared_budget',
				`${limit} needs every model's price, and ${unpriced.provider} model "${unpriced.name}" has none in ` +
					`the catalogue (${CATALOGUE_NAME}): add it to prices, e.g. {"${unpriced.name}": ` +
					`{"input_per_million": 0.15, "output_per_million": 0.6}}`,
			);
		}
	}

	/**
	 * Why the run must stop before its next model call, or undefined while it may go on. `trace`: the steps
	 * so far (their costs add up to what the run spent); `started`: the run already called the model or ran a tool.
	 */
	async stopBeforeCall(
		trace: readonly TraceStep[],
		started: boolean,
	): Promise<BudgetStop | undefined> {
		const maxCost = this.config.max_cost;
		const limit = costLimitOf(this.config);
		// Under a cost limit an unknown cost is never read as 0: that would switch the limit off for the rest of the run.
		const spent = limit ? runCost(trace) : undefined;
		if (limit && spent === null)
			return {
				next: 'finish',
				reason: 'cost_limit',
				detail: `${limit} cannot be kept: ${unpricedNotice(trace)}`,
			};
		if (maxCost && spent && spent.total >= maxCost) {
			return {
				next: 'finish',
				reason: 'cost_limit',
				detail: `the run's cost ${roundCost(spent.total)} USD reached max_cost ${maxCost} USD`,
			};
		}
		if (!this.config.shared_budget) return undefined;
		const { scope, tokens, cost, period_seconds: period } = this.config.shared_budget;
		let totals: LedgerTotals;
		try {
			totals = await this.ledger!.totals(scope, period);
		} catch (error) {
			if (!started) throw error;
			return unavailable(
				`shared budget "${scope}" could not be checked (${messageOf(error)}); the run stopped before its next model call`,
			);
		}
		if (tokens !== undefined && totals.tokens >= tokens)
			return exhausted(
				`shared budget "${scope}" used ${totals.tokens} of its ${tokens} tokens this period (${period} s)`,
			);
		if (cost !== undefined && totals.cost >= cost)
			return exhausted(
				`shared budget "${scope}" spent ${roundCost(totals.cost)} of its ${cost} USD this period (${period} s)`,
			);
		return undefined;
	}

	/**
	 * One model call's usage, by the model that answered it: its cost goes on the step (null for a model
	 * without a price: the result's `cost_notice` names it), and is charged to the shared budget. When the ledger fails to take the
	 * charge, the run stops at once without acting on that reply: the stop says which tokens went uncharged.
	 */
	async record(
		entry: TraceStep,
		usage: TokenUsage,
		model: PricedModel,
	): Promise<BudgetStop | undefined> {
		const price = this.priceOf(model);
		const cost = price ? costOf(usage, price) : undefined;
		entry.cost = cost ?? null;
		if (price && !cost)
			entry.notices = [...(entry.notices ?? []), uncomputedCostNotice(model, price)];
		const budget = this.config.shared_budget;
		if (!budget) return undefined;
		try {
			await this.ledger!.charge(budget.scope, budget.period_seconds, {
				tokens: usage.total_tokens,
				...(cost ? { cost: cost.total } : {}),
			});
			return undefined;
		} catch (error) {
			const charge = `${usage.total_tokens} tokens${cost ? ` (cost ${roundCost(cost.total)} USD)` : ''}`;
			return unavailable(
				`shared budget "${budget.scope}" could not be charged the ${charge} of this step's model call ` +
					`(${messageOf(error)}); the run stopped without acting on the reply`,
			);
		}
	}

	/** The model's price (the catalogue's lookups are kept per model in model-catalogue.ts). */
	private priceOf(model: PricedModel): ModelPrice | undefined {
		return priceOf(model.name, model.provider, this.config.prices);
	}
}

/** What the run's model calls cost, from its steps: null when a call had no price (never a 0 that is not one). */
export function runCost(trace: readonly TraceStep[]): CallCost | null {
	const total = noCost();
	for (const step of trace) {
		// A sub-agent's run (issue #52) under the step or one of its calls: one budget, its cost is the run's too.
		for (const sub of [step.sub_run, ...(step.calls ?? []).map((call) => call.sub_run)]) {
			if (sub === undefined) continue;
			if (!sub.cost_details) return null;
			addCost(total, sub.cost_details);
		}
		if (step.usage === undefined) continue;
		if (!step.cost) return null;
		addCost(total, step.cost);
	}
	return total;
}

/**
 * Why a run's cost is null: the first model that answered without a price, or whose price gave no finite
 * cost (the step's notice says which), named.
 */
export function unpricedNotice(trace: readonly TraceStep[]): string | undefined {
	const step = trace.find((entry) => entry.usage !== undefined && !entry.cost);
	if (!step) {
		// A sub-agent's run without a price (issue #52) makes the run's cost null too: say which.
		const subs = trace.flatMap((entry) => [
			entry.sub_run,
			...(entry.calls ?? []).map((call) => call.sub_run),
		]);
		const unpriced = subs.find((sub) => sub !== undefined && !sub.cost_details);
		return (
			unpriced &&
			`the sub-agent ${unpriced.agent} ran a model without a price, so the run's cost is null: ${unpricedNotice(unpriced.steps) ?? 'add it to prices'}`
		);
	}
	const uncomputed = step.notices?.find((notice) => notice.startsWith(UNCOMPUTED_COST));
	if (uncomputed) return uncomputed;
	const named = `${step.provider ?? 'the'} model "${step.model ?? '?'}"`;
	return `${named} has no price in the catalogue (${CATALOGUE_NAME}), so the run's cost is null: add it to prices`;
}

/** The cost limit the config sets, as messages name it. */
function costLimitOf(config: SpendingConfig): 'max_cost' | 'shared_budget.cost' | undefined {
	return config.max_cost
		? 'max_cost'
		: config.shared_budget?.cost !== undefined
			? 'shared_budget.cost'
			: undefined;
}

const UNCOMPUTED_COST = 'the cost of this call could not be computed';

/** A priced call whose cost is not a finite number (a price × tokens beyond a double): named, with the fix. */
function uncomputedCostNotice(model: PricedModel, price: ModelPrice): string {
	const source =
		price.from === 'prices'
			? `its price in prices["${price.listed_as}"]`
			: `the catalogue's price (${CATALOGUE_NAME})`;
	const example = `{"${model.name}": {"input_per_million": 2.5, "output_per_million": 10}}`;
	return (
		`${UNCOMPUTED_COST}: ${model.provider} model "${model.name}" at ${source} gives no finite number, so the run's ` +
		`cost is null: give it a price in USD per million tokens in prices, e.g. ${example}`
	);
}

const exhausted = (detail: string): BudgetStop => ({
	next: 'finish',
	reason: 'budget_exhausted',
	detail,
});
const unavailable = (detail: string): BudgetStop => ({
	next: 'finish',
	reason: 'budget_unavailable',
	detail,
});

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
