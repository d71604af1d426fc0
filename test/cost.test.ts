import { calcPrice } from '@pydantic/genai-prices';
import { MemoryBudgetLedger } from '../src/budget/ledger';
import { CATALOGUE, costOf, priceOf } from '../src/budget/pricing';
import type { TokenUsage } from '../src/core/usage';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/providers/chat-model';
import { runAgent } from '../src/agent/run-agent';
import { action, final, modelFor, probeTool, useScriptedServer } from './support/agent';

/** Cost from the bundled model catalogue (issue #29): per step, per run, the limits, and never a 0 that is not one. */
function model(provider: string, modelName: string, replies: Array<{ text: string; usage: TokenUsage }>): ChatModel & { requests: ChatRequest[] } {
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

const usage = (prompt: number, completion: number, extra: Partial<TokenUsage> = {}): TokenUsage => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...extra });

describe('the model catalogue', () => {
  it.each([
    ['openai', 'gpt-4o-mini', usage(12_000, 800, { cached_tokens: 4_000 })],
    ['openai', 'gpt-4o-mini-2024-07-18', usage(1_000, 50)],
    ['gemini', 'gemini-2.5-flash', usage(5_000, 2_000, { cached_tokens: 1_000, reasoning_tokens: 1_500 })],
    ['anthropic', 'claude-sonnet-4-5', usage(3_000, 400, { cached_tokens: 1_000, cache_write_tokens: 1_500 })],
    // Above 200,000 prompt tokens the catalogue's tiered price applies to every token.
    ['anthropic', 'claude-sonnet-4-5', usage(250_000, 1_000, { cached_tokens: 100_000, cache_write_tokens: 20_000 })],
  ])('prices %s %s by part, the parts adding up to what genai-prices charges for the whole call', (provider, modelName, callUsage) => {
    const price = priceOf(modelName, provider, undefined)!;
    expect(price.from).toBe('catalogue');
    const cost = costOf(callUsage, price)!;
    const reference = calcPrice(
      {
        input_tokens: callUsage.prompt_tokens,
        output_tokens: callUsage.completion_tokens,
        ...(callUsage.cached_tokens ? { cache_read_tokens: callUsage.cached_tokens } : {}),
        ...(callUsage.cache_write_tokens ? { cache_write_tokens: callUsage.cache_write_tokens } : {}),
      },
      modelName,
      { providerId: provider === 'gemini' ? 'google' : provider },
    )!;
    expect(cost.total).toBeCloseTo(reference.total_price, 12);
    expect(cost.input + cost.cached_input + cost.cache_write).toBeCloseTo(reference.input_price, 12);
    expect(cost.output + cost.reasoning).toBeCloseTo(reference.output_price, 12);
    if (callUsage.cached_tokens) expect(cost.cached_input).toBeGreaterThan(0);
    if (callUsage.cache_write_tokens) expect(cost.cache_write).toBeGreaterThan(0);
  });

  it('prices another vendor\'s model served through an OpenAI-compatible endpoint by its model id', () => {
    expect(priceOf('claude-sonnet-4-5', 'openai', undefined)).toMatchObject({ from: 'catalogue', listed_as: 'claude-sonnet-4-5' });
  });

  it('knows nothing of a local model, and prices finds it: a table entry wins over the catalogue', () => {
    expect(priceOf('llama3.2:3b', 'openai', undefined)).toBeUndefined();
    const own = priceOf('gpt-4o-mini', 'openai', { 'gpt-4o-mini': { input_per_million: 1, output_per_million: 2, cached_input_per_million: 0.5 } })!;
    expect(own.from).toBe('prices');
    expect(costOf(usage(1_000_000, 1_000_000, { cached_tokens: 500_000 }), own)).toEqual({ input: 0.5, cached_input: 0.25, cache_write: 0, output: 2, reasoning: 0, total: 2.75 });
  });
});

describe('cost in a run', () => {
  it('puts each step\'s cost by part on the trace, and the run\'s on the result with the catalogue it came from', async () => {
    const chat = model('openai', 'gpt-4o-mini', [
      { text: action('probe', { value: 1 }), usage: usage(1_000, 100, { cached_tokens: 400 }) },
      { text: final('Done.'), usage: usage(1_200, 50) },
    ]);
    const probe = probeTool();
    const result = await runAgent({ model: chat, config: { model: 'gpt-4o-mini', allowed_tools: ['probe'] }, prompt: 'q', extraTools: [probe.tool] });
    // gpt-4o-mini: 0.15 input, 0.075 cached input, 0.6 output USD per million tokens.
    expect(result.trace[0].cost).toEqual({ input: 0.00009, cached_input: 0.00003, cache_write: 0, output: 0.00006, reasoning: 0, total: 0.00018 });
    expect(result.trace[1].cost).toEqual({ input: 0.00018, cached_input: 0, cache_write: 0, output: 0.00003, reasoning: 0, total: 0.00021 });
    expect(result.cost).toBe(0.00039);
    expect(result.cost_details).toEqual({
      input: 0.00027, cached_input: 0.00003, cache_write: 0, output: 0.00009, reasoning: 0, total: 0.00039, currency: 'USD',
      catalogue: `${CATALOGUE.source} ${CATALOGUE.version}, ${CATALOGUE.date}`,
    });
  });

  it('gives a model the catalogue does not know cost null and a notice, never 0', async () => {
    const chat = model('openai', 'llama3.2:3b', [{ text: final('Hi.'), usage: usage(100, 10) }]);
    const result = await runAgent({ model: chat, config: { model: 'llama3.2:3b' }, prompt: 'q' });
    expect(result.cost).toBeNull();
    expect(result.cost_details).toBeNull();
    expect(result.trace[0].cost).toBeNull();
    expect(result.cost_notice).toContain('openai model "llama3.2:3b" has no price in the catalogue (@pydantic/genai-prices 0.1.8, 2026-09-23)');
    expect(result.trace[0].notices).toBeUndefined();
  });

  it('ends the run cost_limit before the call that would start past max_cost, and counts no call it did not make', async () => {
    const chat = model('openai', 'gpt-4o-mini', [
      { text: action('probe', { value: 1 }), usage: usage(100_000, 1_000) },
      { text: action('probe', { value: 2 }), usage: usage(100_000, 1_000) },
      { text: final('never asked'), usage: usage(1, 1) },
    ]);
    const probe = probeTool();
    const result = await runAgent({ model: chat, config: { model: 'gpt-4o-mini', allowed_tools: ['probe'], max_cost: 0.02 }, prompt: 'q', extraTools: [probe.tool] });
    expect(result.finish_reason).toBe('cost_limit');
    expect(result.stop_detail).toBe("the run's cost 0.0312 USD reached max_cost 0.02 USD");
    expect(chat.requests).toHaveLength(2);
  });

  it.each([
    ['the model', model('openai', 'llama3.2:3b', []), undefined],
    ['the fallback', model('openai', 'gpt-4o-mini', []), model('openai', 'my-finetune', [])],
  ])('refuses a cost limit when %s has no price, naming it, before any call', async (_label, primary, fallback) => {
    const run = runAgent({ model: primary, ...(fallback ? { fallbackModel: fallback } : {}), config: { model: 'x', max_cost: 1 }, prompt: 'q' });
    await expect(run).rejects.toMatchObject({ name: 'ConfigError', key: 'max_cost', message: expect.stringMatching(/max_cost needs every model's price, and openai model "(llama3\.2:3b|my-finetune)" has none in the catalogue/) });
    expect(primary.requests).toHaveLength(0);
  });

  it('charges the catalogue cost to a shared cost budget, and ends the next run once the scope has spent it', async () => {
    const ledger = new MemoryBudgetLedger();
    const shared_budget = { scope: 'team-a', cost: 0.001, period_seconds: 3600 };
    const first = await runAgent({ model: model('openai', 'gpt-4o-mini', [{ text: final('One.'), usage: usage(6_000, 500) }]), config: { model: 'gpt-4o-mini', shared_budget }, prompt: 'q', budgetLedger: ledger });
    expect(first.cost).toBe(0.0012);
    expect((await ledger.totals('team-a', 3600)).cost).toBeCloseTo(0.0012, 10);
    const second = model('openai', 'gpt-4o-mini', [{ text: final('Two.'), usage: usage(1, 1) }]);
    const result = await runAgent({ model: second, config: { model: 'gpt-4o-mini', shared_budget }, prompt: 'q', budgetLedger: ledger });
    expect(result.finish_reason).toBe('budget_exhausted');
    expect(second.requests).toHaveLength(0);
  });
});

describe('cost from the usage real providers report, through their SDKs', () => {
  const server = useScriptedServer();

  it('OpenAI: cached and cache-write tokens inside prompt_tokens (pyd:test_cache/test_openrouter_cache_all_settings_real_api#2)', async () => {
    server().setScript({ text: final('ok'), usage: { prompt_tokens: 2572, completion_tokens: 100, cached_tokens: 2240, cache_write_tokens: 329 } });
    const result = await runAgent({ model: modelFor(server(), 'openai'), config: { model: 'gpt-5-mini' }, prompt: 'q' });
    // gpt-5-mini in the catalogue: 0.25 input, 0.025 cache read, 2 output USD per million; no cache-write price, so the input price.
    expect(result.cost_details).toMatchObject({ input: 0.000001, cached_input: 0.000056, cache_write: 0.000082, output: 0.0002, reasoning: 0, total: 0.000339 });
    expect(result.cost).toBe(0.000339);
  });

  it.each([false, true])('Gemini (streamed: %s): cachedContentTokenCount and thoughts (genai:…valid_json_schema_in_responseSchema#0)', async (streamed) => {
    server().setScript({ text: final('ok'), usage: { prompt_tokens: 5, completion_tokens: 238, cached_tokens: 3 }, reasoningTokens: 41 });
    const events: unknown[] = [];
    const result = await runAgent({ model: modelFor(server(), 'gemini'), config: { model: 'gemini-2.5-flash' }, prompt: 'q', ...(streamed ? { onEvent: (event) => events.push(event) } : {}) });
    expect(server().requests[0]).toMatchObject({ provider: 'gemini', streamed });
    // gemini-2.5-flash: 0.3 input, 0.03 cache read, 2.5 output USD per million; thoughts are output the reply did not show.
    expect(result.trace[0].cost).toEqual({ input: 0.000001, cached_input: 0, cache_write: 0, output: 0.000595, reasoning: 0.000103, total: 0.000698 });
  });
});
