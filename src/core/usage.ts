/** Token usage and its arithmetic: sanitising a reported count, estimating an unreported one, adding a call to the run's total. */
import type { ChatMessage } from './messages';

/** Tokens one model call, or a whole run, used: prompt, completion and their total. */
export interface TokenUsage {
	prompt_tokens: number;
	completion_tokens: number;
	total_tokens: number;
	/** Reasoning ("thinking") tokens, when the provider reports them; already counted in `completion_tokens`. */
	reasoning_tokens?: number;
	/**
	 * Prompt tokens served from the provider's prompt cache (billed at the cache-read price), when it reports
	 * them; already counted in `prompt_tokens`, never added on top.
	 */
	cached_tokens?: number;
	/**
	 * Prompt tokens written to the provider's prompt cache on this call (billed at the cache-write price), when
	 * it reports them (Anthropic's `cache_creation_input_tokens`, and OpenAI-compatible routers'
	 * `prompt_tokens_details.cache_write_tokens`); already counted in `prompt_tokens`, never added on top.
	 */
	cache_write_tokens?: number;
	/**
	 * True when some of these counts are the engine's estimate because the provider reported no usage (see
	 * estimateWhenUnreported); budgets count them like reported ones.
	 */
	estimated?: boolean;
}

/** The part of a model's reply that usage reading looks at (a ChatResponse has it). */
interface UsageReport {
	usage: TokenUsage;
	usageReported?: boolean;
	text: string;
	reasoning?: string;
}

/**
 * No single model call reports more tokens than this (the largest context windows are about 10⁷); a
 * bigger number is a broken endpoint, clamped so it cannot end a run on its own.
 */
export const MAX_TOKENS_PER_CALL = 100_000_000;

function count(value: unknown): number {
	if (typeof value !== 'number' || !Number.isFinite(value)) return 0;
	return Math.min(MAX_TOKENS_PER_CALL, Math.max(0, Math.round(value)));
}

/**
 * Usage as the engine counts it, whatever a provider or a library user's model reported: whole numbers
 * from 0 to MAX_TOKENS_PER_CALL (a string, NaN or negative count is 0), and `total_tokens` the sum of
 * prompt and completion whenever either is known. A broken endpoint can thus neither defeat the token
 * budget (negative or NaN counts, a string that would concatenate) nor trip it with an absurd total.
 * The cached and cache-write counts are parts of the prompt, so together they never exceed it (see below).
 */
export function sanitiseUsage(raw: unknown): TokenUsage {
	const usage = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
	const prompt = count(usage.prompt_tokens);
	const completion = count(usage.completion_tokens);
	const total = prompt + completion > 0 ? prompt + completion : count(usage.total_tokens);
	const reasoning = count(usage.reasoning_tokens);
	// Cached and cache-write tokens are parts of `prompt_tokens`; a report whose parts exceed the whole is
	// broken, and is clamped (cached first, cache-write to what is left) so that pricing the parts can never
	// count more prompt tokens than the call had.
	const cached = Math.min(count(usage.cached_tokens), prompt);
	const cacheWrite = Math.min(count(usage.cache_write_tokens), prompt - cached);
	return {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: total,
		...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
		...(cached > 0 ? { cached_tokens: cached } : {}),
		...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}),
		...(usage.estimated === true ? { estimated: true } : {}),
	};
}

/** What a chat format adds around each message's content (role, separators); OpenAI's own counting guide adds 3 to 4. */
const TOKENS_PER_MESSAGE = 4;

/** Tokens of text, estimated as UTF-8 bytes / 4: about 4 characters a token in English, and not far under for other scripts. */
export function estimateTokens(text: string): number {
	return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/**
 * True when the provider reported no usage at all. An adapter that knows says so in `usageReported` (a usage
 * object without counts is a report of 0, realworld case
 * `pyd:test_google/test_google_model_armor_prompt_template_text_gets_blocked#1`); otherwise no object, or no
 * count but zeros, is none (a broken count is reported, and sanitised).
 */
function reportedNone(response: Pick<UsageReport, 'usage' | 'usageReported'>): boolean {
	if (response.usageReported !== undefined) return !response.usageReported;
	const raw: unknown = response.usage;
	if (typeof raw !== 'object' || raw === null) return true;
	const fields = raw as Record<string, unknown>;
	return [fields.prompt_tokens, fields.completion_tokens, fields.total_tokens].every(
		(value) => value === undefined || value === 0,
	);
}

/**
 * `usage` (the call's sanitised usage), filled with an estimate marked `estimated: true` when the provider
 * reported none (see reportedNone), so that no call runs unmetered: a stream without a usage chunk (an OpenAI-compatible server
 * that ignores `stream_options`), a LangChain model without usage metadata, a library user's model. The
 * estimate is estimateTokens of every message sent, plus TOKENS_PER_MESSAGE each, and of the reply text and
 * reasoning (an empty reply still costs its prompt).
 */
export function estimateWhenUnreported(
	usage: TokenUsage,
	response: UsageReport,
	messages: readonly ChatMessage[],
	/** The tokens of the images and documents sent, by the provider's rule (see src/files/file-tokens.ts). */
	partTokens = 0,
): TokenUsage {
	if (!reportedNone(response)) return usage;
	const prompt = messages.reduce(
		(total, message) => total + TOKENS_PER_MESSAGE + estimateTokens(message.content),
		partTokens,
	);
	const completion = estimateTokens(response.text) + estimateTokens(response.reasoning ?? '');
	// An estimated prompt has no known cached part: parts of the unreported one could exceed it.
	delete usage.cached_tokens;
	delete usage.cache_write_tokens;
	return Object.assign(usage, {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: prompt + completion,
		estimated: true,
	});
}

/**
 * Adds one call's (sanitised) usage to the run's running total, reasoning, cached and cache-write tokens
 * included when reported (their keys appear only once some call reported them); an estimate in it marks
 * the total estimated.
 */
export function addUsage(total: TokenUsage, usage: TokenUsage): void {
	total.prompt_tokens += usage.prompt_tokens;
	total.completion_tokens += usage.completion_tokens;
	total.total_tokens += usage.total_tokens;
	if (usage.reasoning_tokens)
		total.reasoning_tokens = (total.reasoning_tokens ?? 0) + usage.reasoning_tokens;
	if (usage.cached_tokens) total.cached_tokens = (total.cached_tokens ?? 0) + usage.cached_tokens;
	if (usage.cache_write_tokens)
		total.cache_write_tokens = (total.cache_write_tokens ?? 0) + usage.cache_write_tokens;
	if (usage.estimated) total.estimated = true;
}
