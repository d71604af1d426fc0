// The settings that bound a run (time, steps, tool calls, loops, tokens, cost, observation length,
// shared budgets): rows of the settings table (settings.ts spreads them in, in its order), declared once here.
import { MAX_COST_USD } from '../budget/model-catalogue';
import type { PriceTable } from '../budget/model-catalogue';
import type { SharedBudgetConfig } from '../budget/ledger';
import * as check from './setting-checks';
import type { PanelFacts, Setting } from './setting-types';

const limit = (name: string, displayName: string, description: string): PanelFacts => ({
	collection: 'limits',
	name,
	displayName,
	type: 'number',
	description,
});

/** The limits of the run as a whole: time, model turns, tool calls, parallel calls, repeated calls. */
export const RUN_LIMIT_SETTINGS = {
	/** Whole-run timeout, seconds. */
	timeout: {
		default: 120,
		check: check.decimal(0.001, 86_400),
		meaning: 'whole run, seconds → `timeout`',
		panel: limit('timeout', 'Run Timeout (Seconds)', 'Limit for the whole run'),
	},
	/** Maximum model turns (each reply, repair turns included, is a step). */
	max_steps: {
		default: 5,
		check: check.integer(1, 1000),
		meaning: 'model turns, repair turns included → `max_steps`',
		panel: limit('maxSteps', 'Max Steps', 'Most model turns in one run, repair turns included'),
	},
	/** Maximum tool executions. */
	max_tool_calls: {
		default: 10,
		check: check.integer(0, 10_000),
		meaning: 'tool executions → `max_tool_calls`',
		panel: limit(
			'maxToolCalls',
			'Max Tool Calls',
			'Most tool executions in one run; one more request ends the run with finish_reason max_tool_calls',
		),
	},
	/** How many tool calls one reply may ask for (`{"type":"actions","calls":[…]}`, issue #42); 1 = one action per reply. */
	max_parallel_calls: {
		default: 4,
		check: check.integer(1, 16),
		meaning:
			'1–16: tool calls one reply may ask for (`{"type":"actions","calls":[…]}`); calls without side effects run ' +
			'together, the others alone, in order; 1 = one action per reply, as node version 1 always runs (see *The protocol*)',
		panel: {
			collection: 'options',
			name: 'maxParallelToolCalls',
			displayName: 'Max Parallel Tool Calls',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 16 },
			since: 2,
			olderVersions: 1,
			description:
				'Tool calls the model may ask for in one reply (1 = one call per reply). Calls that only read run ' +
				'together: JSON Transform, HTTP Request GET, Redis Context get and list, and the workflow tools, tool ' +
				'sub-nodes and MCP tools named in Read-Only Tools. Any other call waits for those before it and runs ' +
				"alone, in order. A reply's calls are one step of the output's trace (its calls, in order) and one " +
				'Intermediate Steps entry each',
		},
	},
	/** The identical call (same tool, same args) this many times ends the run (`loop`); 0 = never ends it. */
	loop_limit: {
		default: 3,
		check: check.integer(0, 1000),
		meaning:
			'the same call (same tool; the same request as sent, however spelled) this many times ends the run → `loop`; 0 = never (see *Safety*)',
		panel: limit(
			'loopLimit',
			'Loop Limit',
			'The same tool called with the same arguments this many times ends the run with finish_reason loop ' +
				'(0 = never). Repeats before that are answered from the earlier result; a call with side effects ' +
				'never runs twice.',
		),
	},
} satisfies Record<string, Setting>;

/** The limits of each call and of what the run spends: call timeout, token budget, cost, observation length. */
export const CALL_LIMIT_SETTINGS = {
	/** Timeout of each model call and each tool call, seconds. */
	single_call_timeout: {
		default: 30,
		check: check.decimal(0.001, 3600),
		meaning: 'each model call and each tool call, seconds',
		panel: limit(
			'singleCallTimeout',
			'Single Call Timeout (Seconds)',
			'Limit for each model call and each tool call',
		),
	},
	/** Stop before the next model call once reported usage reaches this many tokens; 0 = no budget. */
	total_token_budget: {
		default: 0,
		check: check.integer(0),
		meaning:
			'stop before the next model call once usage (reported, or estimated where none was reported) reaches it; 0 = none → `token_budget`',
		panel: {
			...limit(
				'totalTokenBudget',
				'Token Budget',
				'Stop before the next model call once this many tokens were used (0 = no budget)',
			),
			budget: true,
		},
	},
	/** Stop before the next model call once the run's calls cost this many USD (catalogue or `prices`); 0 = no limit. */
	max_cost: {
		default: 0,
		check: check.decimal(0, MAX_COST_USD),
		meaning:
			"stop before the next model call once the run's calls cost this many USD (the bundled catalogue's " +
			'prices, or `prices`); 0 = none → `cost_limit`. A model or fallback without a price is refused ' +
			'before the first call',
		panel: {
			collection: 'limits',
			name: 'maxCost',
			displayName: 'Max Cost per Run (USD)',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 4 },
			description:
				"Stop before the next model call once this run's model calls cost this much, in USD, priced from the bundled model catalogue (0 = no limit)",
			since: 2,
			budget: true,
		},
	},
	/** Observations fed back to the model are cut to this many characters; 0 = no cut. */
	observation_max_len: {
		default: 2000,
		check: check.integer(0, 1_000_000),
		meaning:
			'characters of tool output fed back to the model, cut with a visible `… [cut N of M characters]` ' +
			'marker; 0 = no cut. (The design suggested 256; that cuts most HTTP responses to uselessness.)',
		panel: limit(
			'observationMaxLen',
			'Observation Max Length',
			'Tool output fed back to the model is cut to this many characters (0 = no cut)',
		),
	},
} satisfies Record<string, Setting>;

/** Budgets beyond one run: a budget shared by a scope, and the prices cost is counted in. */
export const SHARED_BUDGET_SETTINGS = {
	/** A budget shared by every run that names the same scope, per period, counted in a ledger (Redis for many processes). */
	shared_budget: {
		check: check.bySchema<SharedBudgetConfig>(
			check.SHARED_BUDGET_SCHEMA,
			'{"scope":"workflow-7","tokens":200000,"period_seconds":86400}',
		),
		meaning:
			'`{scope, tokens or cost, period_seconds}`: a budget every run of the scope draws on, in Redis → `budget_exhausted` (see *Safety*)',
		panelLabel: 'Limits → Shared Token Budget, Shared Budget Scope, Shared Budget Period (Seconds)',
	},
	/** Per model: USD per million tokens, overriding the catalogue (a model it does not know gets a price this way). */
	prices: {
		check: check.bySchema<PriceTable>(
			check.PRICES_SCHEMA,
			'{"gpt-4o-mini":{"input_per_million":0.15,"output_per_million":0.6}}',
		),
		meaning:
			'per model id, USD per million tokens: `{input_per_million, output_per_million, ' +
			'cached_input_per_million?, cache_write_per_million?}`; overrides the bundled catalogue for that ' +
			'model (see *Cost*)',
	},
} satisfies Record<string, Setting>;
