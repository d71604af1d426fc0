import { calcPrice } from '@pydantic/genai-prices';
import { MemoryBudgetLedger } from '../../../src/budget/ledger';
import {
	CATALOGUE,
	MAX_PRICE_PER_MILLION,
	costOf,
	priceOf,
} from '../../../src/budget/model-catalogue';
import { MAX_TOKENS_PER_CALL, type TokenUsage } from '../../../src/core/usage';
import { Spending } from '../../../src/agent/model/shared-budget';
import type { TraceStep } from '../../../src/trace/types';
import { rejectionOf } from '../../support/rejection';
import type { ChatModel, ChatRequest, ChatResponse } from '../../../src/providers/chat-model';
import { runAgent } from '../../../src/agent/run-agent';
import { action, final, modelFor, probeTool, useScriptedServer } from '../../support/agent';

/** Cost from the bundled model catalogue (issue #29): per step, per run, the limits, and never a 0 that is not one. */
function model(
	provider: string,
	modelName: string,
	replies: Array<{ text: string; usage: TokenUsage }>,
): ChatModel & { requests: ChatRequest[] } {
	const requests: ChatRequest[] = [];
	return {
		provider,
		modelName,
		requests,
		async generate(request: ChatRequest): Promise<ChatResponse> {
			requests.push(request);
			const reply = replies[requests.length - 1];
			if (!reply) throw new Error(`no reply scripted for call ${requests.length}`);
			return { text: reply.text, usage: reply.usage, usageReported: true, finishReason: 'stop' };
		},
	};
}

const usage = (
	prompt: number,
	completion: number,
	extra: Partial<TokenUsage> = {},
): TokenUsage => ({
	prompt_tokens: prompt,
	completion_tokens: completion,
	total_tokens: prompt + completion,
	...extra,
});

describe('the model catalogue', () => {
	it.each([
		['openai', 'gpt-4o-mini', usage(12_000, 800, { cached_tokens: 4_000 })],
		['openai', 'gpt-4o-mini-2024-07-18', usage(1_000, 50)],
		[
			'gemini',
			'gemini-2.5-flash',
			usage(5_000, 2_000, { cached_tokens: 1_000, reasoning_tokens: 1_500 }),
		],
		[
			'anthropic',
			'claude-sonnet-4-5',
			usage(3_000, 400, { cached_tokens: 1_000, cache_write_tokens: 1_500 }),
		],
		// Above 200,000 prompt tokens the catalogue's tiered price applies to every token.
		[
			'anthropic',
			'claude-sonnet-4-5',
			usage(250_000, 1_000, { cached_tokens: 100_000, cache_write_tokens: 20_000 }),
		],
	])(
		'prices %s %s by part, the parts adding up to what genai-prices charges for the whole call',
		(provider, modelName, callUsage) => {
			const price = priceOf(modelName, provider, undefined)!;
			expect(price.from).toBe('catalogue');
			const cost = costOf(callUsage, price)!;
			const reference = calcPrice(
				{
					input_tokens: callUsage.prompt_tokens,
					output_tokens: callUsage.completion_tokens,
					...(callUsage.cached_tokens ? { cache_read_tokens: callUsage.cached_tokens } : {}),
					...(callUsage.cache_write_tokens
						? { cache_write_tokens: callUsage.cache_write_tokens }
						: {}),
				},
				modelName,
				{ providerId: provider === 'gemini' ? 'google' : provider },
			)!;
			expect(cost.total).toBeCloseTo(reference.total_price, 12);
			expect(cost.input + cost.cached_input + cost.cache_write).toBeCloseTo(
				reference.input_price,
				12,
			);
			expect(cost.output + cost.reasoning).toBeCloseTo(reference.output_price, 12);
			if (callUsage.cached_tokens) expect(cost.cached_input).toBeGreaterThan(0);
			if (callUsage.cache_write_tokens) expect(cost.cache_write).toBeGreaterThan(0);
		},
	);

	it("prices another vendor's model served through an OpenAI-compatible endpoint by its model id", () => {
		expect(priceOf('claude-sonnet-4-5', 'openai', undefined)).toMatchObject({
			from: 'catalogue',
			listed_as: 'claude-sonnet-4-5',
		});
	});

	it('knows nothing of a local model, and prices finds it: a table entry wins over the catalogue', () => {
		expect(priceOf('llama3.2:3b', 'openai', undefined)).toBeUndefined();
		const own = priceOf('gpt-4o-mini', 'openai', {
			'gpt-4o-mini': { input_per_million: 1, output_per_million: 2, cached_input_per_million: 0.5 },
		})!;
		expect(own.from).toBe('prices');
		expect(costOf(usage(1_000_000, 1_000_000, { cached_tokens: 500_000 }), own)).toEqual({
			input: 0.5,
			cached_input: 0.25,
			cache_write: 0,
			output: 2,
			reasoning: 0,
			total: 2.75,
		});
	});
});

describe('cost in a run', () => {
	it("puts each step's cost by part on the trace, and the run's on the result with the catalogue it came from", async () => {
		const chat = model('openai', 'gpt-4o-mini', [
			{ text: action('probe', { value: 1 }), usage: usage(1_000, 100, { cached_tokens: 400 }) },
			{ text: final('Done.'), usage: usage(1_200, 50) },
		]);
		const probe = probeTool();
		const result = await runAgent({
			model: chat,
			config: { model: 'gpt-4o-mini', allowed_tools: ['probe'] },
			prompt: 'q',
			extraTools: [probe.tool],
		});
		// gpt-4o-mini: 0.15 input, 0.075 cached input, 0.6 output USD per million tokens.
		expect(result.trace[0].cost).toEqual({
			input: 0.00009,
			cached_input: 0.00003,
			cache_write: 0,
			output: 0.00006,
			reasoning: 0,
			total: 0.00018,
		});
		expect(result.trace[1].cost).toEqual({
			input: 0.00018,
			cached_input: 0,
			cache_write: 0,
			output: 0.00003,
			reasoning: 0,
			total: 0.00021,
		});
		expect(result.cost).toBe(0.00039);
		expect(result.cost_details).toEqual({
			input: 0.00027,
			cached_input: 0.00003,
			cache_write: 0,
			output: 0.00009,
			reasoning: 0,
			total: 0.00039,
			currency: 'USD',
			catalogue: `${CATALOGUE.source} ${CATALOGUE.version}, ${CATALOGUE.date}`,
		});
	});

	it('gives a model the catalogue does not know cost null and a notice, never 0', async () => {
		const chat = model('openai', 'llama3.2:3b', [{ text: final('Hi.'), usage: usage(100, 10) }]);
		const result = await runAgent({ model: chat, config: { model: 'llama3.2:3b' }, prompt: 'q' });
		expect(result.cost).toBeNull();
		expect(result.cost_details).toBeNull();
		expect(result.trace[0].cost).toBeNull();
		expect(result.cost_notice).toContain(
			'openai model "llama3.2:3b" has no price in the catalogue (@pydantic/genai-prices 0.1.8, 2026-09-23)',
		);
		expect(result.trace[0].notices).toBeUndefined();
	});

	it('ends the run cost_limit before the call that would start past max_cost, and counts no call it did not make', async () => {
		const chat = model('openai', 'gpt-4o-mini', [
			{ text: action('probe', { value: 1 }), usage: usage(100_000, 1_000) },
			{ text: action('probe', { value: 2 }), usage: usage(100_000, 1_000) },
			{ text: final('never asked'), usage: usage(1, 1) },
		]);
		const probe = probeTool();
		const result = await runAgent({
			model: chat,
			config: { model: 'gpt-4o-mini', allowed_tools: ['probe'], max_cost: 0.02 },
			prompt: 'q',
			extraTools: [probe.tool],
		});
		expect(result.finish_reason).toBe('cost_limit');
		expect(result.stop_detail).toBe("the run's cost 0.0312 USD reached max_cost 0.02 USD");
		expect(chat.requests).toHaveLength(2);
	});

	it.each([
		['the model', model('openai', 'llama3.2:3b', []), undefined],
		['the fallback', model('openai', 'gpt-4o-mini', []), model('openai', 'my-finetune', [])],
	])(
		'refuses a cost limit when %s has no price, naming it, before any call',
		async (_label, primary, fallback) => {
			const run = runAgent({
				model: primary,
				...(fallback ? { fallbackModel: fallback } : {}),
				config: { model: 'x', max_cost: 1 },
				prompt: 'q',
			});
			await expect(run).rejects.toMatchObject({
				name: 'ConfigError',
				key: 'max_cost',
				message: expect.stringMatching(
					/max_cost needs every model's price, and openai model "(llama3\.2:3b|my-finetune)" has none in the catalogue/,
				),
			});
			expect(primary.requests).toHaveLength(0);
		},
	);

	it('charges the catalogue cost to a shared cost budget, and ends the next run once the scope has spent it', async () => {
		const ledger = new MemoryBudgetLedger();
		const shared_budget = { scope: 'team-a', cost: 0.001, period_seconds: 3600 };
		const first = await runAgent({
			model: model('openai', 'gpt-4o-mini', [{ text: final('One.'), usage: usage(6_000, 500) }]),
			config: { model: 'gpt-4o-mini', shared_budget },
			prompt: 'q',
			budgetLedger: ledger,
		});
		expect(first.cost).toBe(0.0012);
		expect((await ledger.totals('team-a', 3600)).cost).toBeCloseTo(0.0012, 10);
		const second = model('openai', 'gpt-4o-mini', [{ text: final('Two.'), usage: usage(1, 1) }]);
		const result = await runAgent({
			model: second,
			config: { model: 'gpt-4o-mini', shared_budget },
			prompt: 'q',
			budgetLedger: ledger,
		});
		expect(result.finish_reason).toBe('budget_exhausted');
		expect(second.requests).toHaveLength(0);
	});
});

describe('cost from the usage real providers report, through their SDKs', () => {
	const server = useScriptedServer();

	it('OpenAI: cached and cache-write tokens inside prompt_tokens (pyd:test_cache/test_openrouter_cache_all_settings_real_api#2)', async () => {
		server().setScript({
			text: final('ok'),
			usage: {
				prompt_tokens: 2572,
				completion_tokens: 100,
				cached_tokens: 2240,
				cache_write_tokens: 329,
			},
		});
		const result = await runAgent({
			model: modelFor(server(), 'openai'),
			config: { model: 'gpt-5-mini' },
			prompt: 'q',
		});
		// gpt-5-mini in the catalogue: 0.25 input, 0.025 cache read, 2 output USD per million; no cache-write price, so the input price.
		expect(result.cost_details).toMatchObject({
			input: 0.000001,
			cached_input: 0.000056,
			cache_write: 0.000082,
			output: 0.0002,
			reasoning: 0,
			total: 0.000339,
		});
		expect(result.cost).toBe(0.000339);
	});

	it.each([false, true])(
		'Gemini (streamed: %s): cachedContentTokenCount and thoughts (genai:…valid_json_schema_in_responseSchema#0)',
		async (streamed) => {
			server().setScript({
				text: final('ok'),
				usage: { prompt_tokens: 5, completion_tokens: 238, cached_tokens: 3 },
				reasoningTokens: 41,
			});
			const events: unknown[] = [];
			const result = await runAgent({
				model: modelFor(server(), 'gemini'),
				config: { model: 'gemini-2.5-flash' },
				prompt: 'q',
				...(streamed ? { onEvent: (event) => events.push(event) } : {}),
			});
			expect(server().requests[0]).toMatchObject({ provider: 'gemini', streamed });
			// gemini-2.5-flash: 0.3 input, 0.03 cache read, 2.5 output USD per million; thoughts are output the reply did not show.
			expect(result.trace[0].cost).toEqual({
				input: 0.000001,
				cached_input: 0,
				cache_write: 0,
				output: 0.000595,
				reasoning: 0.000103,
				total: 0.000698,
			});
		},
	);
});

/** Issue #38: a limit cannot be switched off by a value; an unknown cost under a cost limit stops the run. */
describe('cost limits against numbers that are not prices', () => {
	const at = (step: number, modelName: string, callUsage: TokenUsage): TraceStep => ({
		step,
		repair: false,
		elapsed_ms: 0,
		model_ms: 0,
		provider: 'openai',
		model: modelName,
		usage: callUsage,
	});

	it('refuses a price of 1e999 from a library config before any model call, naming its path', async () => {
		const chat = model('openai', 'gpt-x', [{ text: final('never asked'), usage: usage(1, 1) }]);
		const prices = JSON.parse('{"gpt-x":{"input_per_million":1e999,"output_per_million":1}}');
		const error = await rejectionOf(
			runAgent({ model: chat, config: { model: 'gpt-x', max_cost: 1, prices }, prompt: 'q' }),
		);
		expect(error).toMatchObject({
			name: 'ConfigError',
			key: 'prices',
			message: expect.stringContaining(
				'prices["gpt-x"].input_per_million: Infinity is not a finite number',
			),
		});
		expect(chat.requests).toHaveLength(0);
	});

	it('under max_cost, a call whose cost is not a finite number leaves cost null and stops before the next call, naming the model and the fix', async () => {
		// Past resolveConfig's ceiling on purpose: 1e308 × 10⁸ tokens / 10⁶ is Infinity, and 0 cached tokens × Infinity was NaN.
		const spending = new Spending(
			{ max_cost: 1, prices: { huge: { input_per_million: 1e308, output_per_million: 1 } } },
			undefined,
			[{ name: 'huge', provider: 'openai' }],
		);
		const entry = at(1, 'huge', usage(1e8, 1));
		await spending.record(entry, entry.usage!, { name: 'huge', provider: 'openai' });
		expect(entry.cost).toBeNull();
		expect(entry.notices).toEqual([
			expect.stringContaining(
				'the cost of this call could not be computed: openai model "huge" at its price in prices["huge"]',
			),
		]);
		const stop = await spending.stopBeforeCall([entry], true);
		expect(stop).toMatchObject({
			reason: 'cost_limit',
			detail: expect.stringMatching(
				/^max_cost cannot be kept: .*give it a price in USD per million tokens in prices, e\.g\. \{"huge"/,
			),
		});
	});

	it('under max_cost, a step without a cost (a resumed run priced under another config) is never read as 0: the run stops', async () => {
		const spending = new Spending({ max_cost: 1 }, undefined, [
			{ name: 'gpt-4o-mini', provider: 'openai' },
		]);
		const stop = await spending.stopBeforeCall(
			[{ ...at(1, 'my-finetune', usage(10, 10)), cost: null }],
			true,
		);
		expect(stop).toMatchObject({
			reason: 'cost_limit',
			detail: expect.stringContaining(
				'max_cost cannot be kept: openai model "my-finetune" has no price in the catalogue',
			),
		});
	});

	it('keeps the dearest price at the most tokens a call may report finite, so max_cost still ends the run', async () => {
		const chat = model('openai', 'dear', [
			{ text: action('probe', { value: 1 }), usage: usage(1e12, 1e12) },
			{ text: final('never asked'), usage: usage(1, 1) },
		]);
		const prices = {
			dear: { input_per_million: MAX_PRICE_PER_MILLION, output_per_million: MAX_PRICE_PER_MILLION },
		};
		const probe = probeTool();
		const result = await runAgent({
			model: chat,
			config: { model: 'dear', allowed_tools: ['probe'], prices, max_cost: 1 },
			prompt: 'q',
			extraTools: [probe.tool],
		});
		expect(result).toMatchObject({ finish_reason: 'cost_limit', cost: 2 * MAX_TOKENS_PER_CALL });
		expect(chat.requests).toHaveLength(1);
	});

	it('takes 0 and -0 as a price (a free or local model), costing 0 and keeping max_cost', async () => {
		const chat = model('openai', 'local', [{ text: final('Hi.'), usage: usage(100, 10) }]);
		const result = await runAgent({
			model: chat,
			config: {
				model: 'local',
				prices: { local: { input_per_million: -0, output_per_million: 0 } },
				max_cost: 0.01,
			},
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'final', cost: 0 });
		expect(JSON.stringify(result.cost)).toBe('0');
	});

	it('refuses a price written as the string "1e999", naming its path', async () => {
		const error = await rejectionOf(
			runAgent({
				model: model('openai', 'm', []),
				config: {
					model: 'm',
					prices: { m: { input_per_million: '1e999', output_per_million: 1 } },
				} as never,
				prompt: 'q',
			}),
		);
		expect(error).toMatchObject({
			key: 'prices',
			message: expect.stringContaining('prices.m.input_per_million: must be number'),
		});
	});
});
