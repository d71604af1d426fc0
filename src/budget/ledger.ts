// Shared budgets: the ledger contract, its in-memory implementation and the checks every ledger applies.
import { AgentCoreError, correctValueFix } from '../core/agent-core-error';

/** What one model call charges to a shared budget: its tokens, and its cost when a price table gives one. */
export interface Charge {
	tokens: number;
	cost?: number;
}

/** A scope's totals in its current period. */
export interface LedgerTotals {
	tokens: number;
	cost: number;
}

/**
 * A budget shared across runs, counted per scope and period: one ledger per scope and period, which
 * expires with the period. RedisBudgetLedger shares it across processes and n8n workers.
 */
export interface BudgetLedger {
	/** The totals of the scope's current period (zeros when nothing was charged yet). */
	totals(scope: string, periodSeconds: number): Promise<LedgerTotals>;
	/** Adds the charge atomically to the scope's current period and returns the new totals. */
	charge(scope: string, periodSeconds: number, charge: Charge): Promise<LedgerTotals>;
	close(): Promise<void>;
}

/** A bad scope, period or charge; `field` names which, and the message what it must be. */
export class BudgetInputError extends AgentCoreError {
	override readonly name = 'BudgetInputError';
	constructor(field: string, message: string) {
		super(message, { field, fix: correctValueFix(field), fixInMessage: true });
	}
}

/** The longest period: a year. */
export const MAX_PERIOD_SECONDS = 31_536_000;
const MAX_SCOPE_LENGTH = 200;

/** Checks what every ledger takes; throws BudgetInputError naming the field. */
export function checkLedgerInput(scope: string, periodSeconds: number, charge?: Charge): void {
	if (typeof scope !== 'string' || scope.trim() === '' || scope.length > MAX_SCOPE_LENGTH) {
		throw new BudgetInputError(
			'shared_budget.scope',
			`shared_budget.scope must be a non-empty string of at most ${MAX_SCOPE_LENGTH} characters`,
		);
	}
	if (!Number.isInteger(periodSeconds) || periodSeconds < 1 || periodSeconds > MAX_PERIOD_SECONDS) {
		throw new BudgetInputError(
			'shared_budget.period_seconds',
			`shared_budget.period_seconds must be an integer from 1 to ${MAX_PERIOD_SECONDS}`,
		);
	}
	if (charge && (!Number.isInteger(charge.tokens) || charge.tokens < 0))
		throw new BudgetInputError('charge.tokens', "a charge's tokens must be a whole number ≥ 0");
	if (charge?.cost !== undefined && (!Number.isFinite(charge.cost) || charge.cost < 0))
		throw new BudgetInputError('charge.cost', "a charge's cost must be a finite number ≥ 0");
}

/** Where the scope's current period began, in whole seconds since the epoch: periods are aligned to the clock. */
export function periodStart(periodSeconds: number, nowMs: number): number {
	return Math.floor(nowMs / 1000 / periodSeconds) * periodSeconds;
}

/**
 * A ledger in this process only: for the library, the CLI without Redis and tests. Runs in other
 * processes (other n8n workers) do not see it; use RedisBudgetLedger to share a budget among them.
 */
export class MemoryBudgetLedger implements BudgetLedger {
	private readonly periods = new Map<string, LedgerTotals>();

	constructor(private readonly now: () => number = Date.now) {}

	async totals(scope: string, periodSeconds: number): Promise<LedgerTotals> {
		checkLedgerInput(scope, periodSeconds);
		return { ...(this.periods.get(this.keyOf(scope, periodSeconds)) ?? { tokens: 0, cost: 0 }) };
	}

	async charge(scope: string, periodSeconds: number, charge: Charge): Promise<LedgerTotals> {
		checkLedgerInput(scope, periodSeconds, charge);
		const key = this.keyOf(scope, periodSeconds);
		const totals = this.periods.get(key) ?? { tokens: 0, cost: 0 };
		totals.tokens += charge.tokens;
		totals.cost += charge.cost ?? 0;
		this.periods.set(key, totals);
		return { ...totals };
	}

	async close(): Promise<void> {}

	private keyOf(scope: string, periodSeconds: number): string {
		return `${scope}\n${periodSeconds}\n${periodStart(periodSeconds, this.now())}`;
	}
}

/** `shared_budget`: a token (or cost) budget that every run naming the same scope draws on, per period. */
export interface SharedBudgetConfig {
	/** Who shares it: e.g. a session id, a workflow id, a customer. */
	scope: string;
	/** Tokens the scope may use per period (usage as providers report it). */
	tokens?: number;
	/** Cost the scope may use per period, in USD (the catalogue's prices, or `prices`). */
	cost?: number;
	period_seconds: number;
}
