import { ConfigError } from '../../../src/settings/config';
import { runAgent } from '../../../src/agent/run-agent';
import { MemoryBudgetLedger } from '../../../src/budget/ledger';
import { RedisBudgetLedger } from '../../../src/budget/redis-ledger';
import { RedisError } from '../../../src/redis/errors';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import { rejectionOf } from '../../support/rejection';
import { freeLoopbackPort, useTestRedis } from '../../support/redis';
import { Spending } from '../../../src/agent/model/shared-budget';
import type { TraceStep } from '../../../src/trace/types';

/** Issue #17 §2: a token or cost budget that runs share, checked before every model call. */
describe('shared_budget in a run', () => {
	const server = useScriptedServer();
	const usage = { prompt_tokens: 80, completion_tokens: 20 };

	it('charges each call to the scope and ends budget_exhausted before the call that would go past it', async () => {
		const ledger = new MemoryBudgetLedger();
		server().setScript([
			{ text: action('json_transform', { data: [1], expression: 'length(@)' }), usage },
			{ text: action('json_transform', { data: [1, 2], expression: 'length(@)' }), usage },
			{ text: final('never'), usage },
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['json_transform'],
				shared_budget: { scope: 'team-a', tokens: 200, period_seconds: 3600 },
			},
			budgetLedger: ledger,
			prompt: 'q',
		});
		expect(result).toMatchObject({
			finish_reason: 'budget_exhausted',
			stop_detail: 'shared budget "team-a" used 200 of its 200 tokens this period (3600 s)',
		});
		expect(server().requests).toHaveLength(2);
		expect(await ledger.totals('team-a', 3600)).toEqual({ tokens: 200, cost: 0 });
	});

	it('a run that starts in an exhausted scope makes no model call at all', async () => {
		const ledger = new MemoryBudgetLedger();
		await ledger.charge('team-b', 60, { tokens: 1000 });
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', shared_budget: { scope: 'team-b', tokens: 1000, period_seconds: 60 } },
			budgetLedger: ledger,
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'budget_exhausted', trace: [] });
		expect(server().requests).toHaveLength(0);
	});

	it('prices calls into cost, and a cost budget stops the scope at its currency limit', async () => {
		const ledger = new MemoryBudgetLedger();
		const prices = { 'gpt-x': { input_per_million: 1000, output_per_million: 4000 } };
		server().setScript([
			{ text: action('json_transform', { data: [1], expression: 'length(@)' }), usage },
			{ text: final('no'), usage },
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'gpt-x',
				allowed_tools: ['json_transform'],
				prices,
				shared_budget: { scope: 'c', cost: 0.15, period_seconds: 60 },
			},
			budgetLedger: ledger,
			prompt: 'q',
		});
		// One call: 80 × 1000 / 1e6 + 20 × 4000 / 1e6 = 0.16, past the 0.15 budget.
		expect(result).toMatchObject({ finish_reason: 'budget_exhausted', cost: 0.16 });
		expect(result.stop_detail).toBe(
			'shared budget "c" spent 0.16 of its 0.15 USD this period (60 s)',
		);
	});

	it('reports cost without a budget when prices are given', async () => {
		server().setScript([{ text: final('ok'), usage }]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'gpt-x',
				prices: { 'gpt-x': { input_per_million: 0.15, output_per_million: 0.6 } },
			},
			prompt: 'q',
		});
		expect(result.cost).toBe(0.000024);
	});

	it('fails before the first model call with the clear Redis error when the ledger’s Redis is down: never unmetered', async () => {
		const port = await freeLoopbackPort();
		const ledger = new RedisBudgetLedger({
			connection: { url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 },
		});
		const error = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: { model: 'm', shared_budget: { scope: 's', tokens: 10, period_seconds: 60 } },
				budgetLedger: ledger,
				prompt: 'q',
			}),
		);
		await ledger.close();
		expect(error).toBeInstanceOf(RedisError);
		expect(error.message).toMatch(new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} `));
		expect(server().requests).toHaveLength(0);
	});

	it.each([
		[{ scope: 's', period_seconds: 60 }, 'shared_budget'],
		[{ scope: '', tokens: 5, period_seconds: 60 }, 'shared_budget'],
		[{ scope: 's', tokens: 5, period_seconds: 0 }, 'shared_budget'],
	])('refuses shared_budget %j naming the key', async (shared_budget, key) => {
		const error = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: { model: 'm', shared_budget } as never,
				budgetLedger: new MemoryBudgetLedger(),
				prompt: 'q',
			}),
		);
		expect(error).toBeInstanceOf(ConfigError);
		expect(error.key).toBe(key);
	});

	it('says what is missing: a ledger for shared_budget, a price for a cost budget', async () => {
		const noLedger = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: { model: 'm', shared_budget: { scope: 's', tokens: 5, period_seconds: 60 } },
				prompt: 'q',
			}),
		);
		expect(noLedger).toMatchObject({
			key: 'shared_budget',
			message: expect.stringContaining('--redis-url'),
		});
		const noPrice = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: { model: 'm', shared_budget: { scope: 's', cost: 1, period_seconds: 60 } },
				budgetLedger: new MemoryBudgetLedger(),
				prompt: 'q',
			}),
		);
		expect(noPrice).toMatchObject({
			key: 'shared_budget',
			message: expect.stringContaining(
				'shared_budget.cost needs every model\'s price, and openai model "m" has none in the catalogue',
			),
		});
	});
});

/** Issue #38: under shared_budget.cost a cost that cannot be computed stops the run; it never charges "cost NaN USD". */
describe('shared_budget.cost with a cost that cannot be computed (real Redis)', () => {
	const redis = useTestRedis();
	const server = useScriptedServer();
	const model = { name: 'huge', provider: 'openai' };

	it('charges the tokens only and stops before the next call with cost_limit, naming the model and the fix', async () => {
		const ledger = new RedisBudgetLedger({
			connection: { url: redis.url },
			keyPrefix: redis.keyPrefix('nan-cost'),
		});
		// Past resolveConfig's ceiling on purpose (a library caller that built Spending's config itself): 1e308 × 10⁸ tokens is Infinity.
		const config = {
			prices: { huge: { input_per_million: 1e308, output_per_million: 1 } },
			shared_budget: { scope: 'nan', cost: 5, period_seconds: 60 },
		};
		const spending = new Spending(config, ledger, [model]);
		const entry: TraceStep = {
			step: 1,
			repair: false,
			elapsed_ms: 0,
			model_ms: 0,
			provider: 'openai',
			model: 'huge',
			usage: { prompt_tokens: 1e8, completion_tokens: 1, total_tokens: 1e8 + 1 },
		};
		const charged = await spending.record(entry, entry.usage!, model);
		const stop = await spending.stopBeforeCall([entry], true);
		const totals = await ledger.totals('nan', 60);
		await ledger.close();
		expect(charged).toBeUndefined();
		expect(entry.cost).toBeNull();
		expect(totals).toEqual({ tokens: 1e8 + 1, cost: 0 });
		expect(stop).toMatchObject({
			reason: 'cost_limit',
			detail: expect.stringMatching(
				/^shared_budget\.cost cannot be kept: the cost of this call could not be computed: openai model "huge" .*give it a price in USD per million tokens in prices/,
			),
		});
		expect(stop!.detail).not.toMatch(/NaN|Infinity USD/);
	});

	it('refuses an unpriced model before the first model call, naming it', async () => {
		const ledger = new RedisBudgetLedger({
			connection: { url: redis.url },
			keyPrefix: redis.keyPrefix('unpriced'),
		});
		const error = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: { model: 'my-local', shared_budget: { scope: 'u', cost: 1, period_seconds: 60 } },
				budgetLedger: ledger,
				prompt: 'q',
			}),
		);
		await ledger.close();
		expect(error).toMatchObject({
			name: 'ConfigError',
			key: 'shared_budget',
			message: expect.stringContaining('openai model "my-local" has none in the catalogue'),
		});
		expect(server().requests).toHaveLength(0);
	});
});
