// What a model call costs in USD: the bundled model catalogue, or the config's `prices`, applied to its usage parts.
import { loadOnce } from '../core/load-once';
import type { TokenUsage } from '../core/usage';

/**
 * The catalogue: pydantic's genai-prices, bundled (no network at run time: its data ships inside the
 * package, and nothing here asks it to update). Chosen for its upkeep — a maintained repository with
 * daily price checks against the providers' pages, published to npm with no dependencies and no install
 * scripts (n8n installs community packages with --ignore-scripts) — and its coverage: OpenAI, Anthropic,
 * Google, and the OpenAI-compatible hosts, with cached-input, cache-write and tiered prices. models.dev
 * reaches npm only through third-party bundles. Loaded on first use (about 0.5 MB of data).
 */
const genaiPrices = loadOnce(
	() => require('@pydantic/genai-prices') as typeof import('@pydantic/genai-prices'),
);

/** The catalogue a cost came from, as outputs name it: package, version and the date that version was published. */
export const CATALOGUE = {
	source: '@pydantic/genai-prices',
	version: '0.1.8',
	date: '2026-09-23',
} as const;
/** The catalogue as outputs and notices name it. */
export const CATALOGUE_NAME = `${CATALOGUE.source} ${CATALOGUE.version}, ${CATALOGUE.date}`;

/**
 * The most a cost limit (`max_cost`, `shared_budget.cost`) may be, in USD: a bound, so that every limit is a
 * finite number a spent cost can reach.
 */
export const MAX_COST_USD = 1_000_000;

/**
 * The highest price `prices` takes, in USD per million tokens (today's dearest catalogue entry is a few hundred).
 * With at most MAX_TOKENS_PER_CALL tokens per call (core/usage.ts) a call then costs at most 10⁸ USD: never Infinity.
 */
export const MAX_PRICE_PER_MILLION = 1_000_000;

/** `prices`: per model id, USD per million tokens; cached and cache-write input default to the input price. */
export type PriceTable = Record<
	string,
	{
		input_per_million: number;
		output_per_million: number;
		cached_input_per_million?: number;
		cache_write_per_million?: number;
	}
>;

/** A call's cost in USD by the part of the usage it pays for; `total` is their sum. Reasoning is output the reply did not show. */
export interface CallCost {
	input: number;
	cached_input: number;
	cache_write: number;
	output: number;
	reasoning: number;
	total: number;
}

/** USD per million tokens of each part, for one call's prompt size (tiered catalogue prices depend on it). */
interface Rates {
	input: number;
	cached_input: number;
	cache_write: number;
	output: number;
}

/** Where a model's price comes from: the config's `prices`, or the catalogue's entry (its id may differ from the model's). */
export interface ModelPrice {
	from: 'prices' | 'catalogue';
	/** The id the price is listed under (the catalogue matches dated and aliased ids to one entry). */
	listed_as: string;
	/** The model's context window, where the catalogue knows it. */
	context_window?: number;
	rates(promptTokens: number): Rates;
}

/** The catalogue's provider ids for the engine's provider names; other names are looked up by model id alone. */
const CATALOGUE_PROVIDERS: Record<string, string> = {
	openai: 'openai',
	gemini: 'google',
	google: 'google',
	anthropic: 'anthropic',
};

/** A price from the table, else from the catalogue; undefined when neither knows the model (its cost is then null, never 0). */
export function priceOf(
	model: string,
	provider: string | undefined,
	prices: PriceTable | undefined,
): ModelPrice | undefined {
	const own = prices?.[model];
	if (own) {
		const rates: Rates = {
			input: own.input_per_million,
			cached_input: own.cached_input_per_million ?? own.input_per_million,
			cache_write: own.cache_write_per_million ?? own.input_per_million,
			output: own.output_per_million,
		};
		return { from: 'prices', listed_as: model, rates: () => rates };
	}
	return catalogueEntry(model, provider);
}

/** The model's context window in tokens as the catalogue lists it; undefined when it does not know the model or the figure. */
export function contextWindowOf(model: string, provider: string | undefined): number | undefined {
	return catalogueEntry(model, provider)?.context_window;
}

/** Catalogue lookups are pure and repeat every step: kept per model and provider (a bounded number of pairs per process). */
const entries = new Map<string, ModelPrice | undefined>();
const MAX_ENTRIES = 1000;

function catalogueEntry(model: string, provider: string | undefined): ModelPrice | undefined {
	const providerId = provider ? CATALOGUE_PROVIDERS[provider.toLowerCase()] : undefined;
	const key = `${providerId ?? ''}\n${model}`;
	if (entries.has(key)) return entries.get(key);
	let found: ModelPrice | undefined;
	try {
		// The provider first; then the model id alone, for an OpenAI-compatible endpoint serving another vendor's
		// model (Claude through Anthropic's OpenAI-compatible API is called as provider "openai").
		const { calcPrice } = genaiPrices();
		const empty = { input_tokens: 0, output_tokens: 0 };
		const priced =
			(providerId ? calcPrice(empty, model, { providerId }) : null) ?? calcPrice(empty, model);
		if (priced) {
			const table = priced.model_price;
			found = {
				from: 'catalogue',
				listed_as: priced.model.id,
				...(priced.model.context_window ? { context_window: priced.model.context_window } : {}),
				rates: (promptTokens) => {
					const input = rate(table.input_mtok, promptTokens) ?? 0;
					return {
						input,
						cached_input: rate(table.cache_read_mtok, promptTokens) ?? input,
						cache_write: rate(table.cache_write_mtok, promptTokens) ?? input,
						output: rate(table.output_mtok, promptTokens) ?? 0,
					};
				},
			};
		}
	} catch {
		// A model id the catalogue's matchers cannot take: unpriced, like an unknown one.
	}
	if (entries.size >= MAX_ENTRIES) entries.clear();
	entries.set(key, found);
	return found;
}

/** A catalogue price: a number, or tiers by the call's prompt tokens (the highest tier whose start the prompt passes, as genai-prices reads them). */
function rate(price: unknown, promptTokens: number): number | undefined {
	if (typeof price === 'number') return price;
	if (typeof price !== 'object' || price === null) return undefined;
	const { base, tiers } = price as { base: number; tiers: Array<{ start: number; price: number }> };
	let chosen = base;
	for (const tier of [...tiers].sort((first, second) => first.start - second.start))
		if (promptTokens > tier.start) chosen = tier.price;
	return chosen;
}

/**
 * What one call cost: prompt tokens split into uncached, cached and cache-write; completion into shown output and
 * reasoning. Undefined when a part is not a finite number (0 × Infinity is NaN, a huge price × tokens Infinity):
 * such a cost cannot be computed, and is null like an unknown price's, never NaN or Infinity.
 */
export function costOf(usage: TokenUsage, price: ModelPrice): CallCost | undefined {
	const rates = price.rates(usage.prompt_tokens);
	const cached = usage.cached_tokens ?? 0;
	const written = usage.cache_write_tokens ?? 0;
	const reasoning = Math.min(usage.reasoning_tokens ?? 0, usage.completion_tokens);
	const parts = {
		input: (Math.max(0, usage.prompt_tokens - cached - written) * rates.input) / 1e6,
		cached_input: (cached * rates.cached_input) / 1e6,
		cache_write: (written * rates.cache_write) / 1e6,
		output: ((usage.completion_tokens - reasoning) * rates.output) / 1e6,
		reasoning: (reasoning * rates.output) / 1e6,
	};
	const cost = {
		...parts,
		total: parts.input + parts.cached_input + parts.cache_write + parts.output + parts.reasoning,
	};
	return Object.values(cost).every(Number.isFinite) ? cost : undefined;
}

/** A zero cost, to add calls into. */
export const noCost = (): CallCost => ({
	input: 0,
	cached_input: 0,
	cache_write: 0,
	output: 0,
	reasoning: 0,
	total: 0,
});

/** Adds a call's cost into a total. */
export function addCost(total: CallCost, cost: CallCost): void {
	for (const part of Object.keys(total) as (keyof CallCost)[]) total[part] += cost[part];
}

/** Costs are reported to a millionth of a dollar. */
export function roundCost(cost: number): number {
	return Math.round(cost * 1_000_000) / 1_000_000;
}

/** Every part rounded to a millionth of a dollar, as outputs carry it. */
export function roundedCost(cost: CallCost): CallCost {
	return Object.fromEntries(
		Object.entries(cost).map(([part, value]) => [part, roundCost(value)]),
	) as unknown as CallCost;
}
