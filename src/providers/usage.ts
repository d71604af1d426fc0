import type { TokenUsage } from './chat-model';

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
 */
export function sanitiseUsage(raw: unknown): TokenUsage {
  const usage = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const total = prompt + completion > 0 ? prompt + completion : count(usage.total_tokens);
  const reasoning = count(usage.reasoning_tokens);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total, ...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}) };
}

/** Adds one call's (sanitised) usage to the run's running total, reasoning tokens included when reported. */
export function addUsage(total: TokenUsage, usage: TokenUsage): void {
  total.prompt_tokens += usage.prompt_tokens;
  total.completion_tokens += usage.completion_tokens;
  total.total_tokens += usage.total_tokens;
  if (usage.reasoning_tokens) total.reasoning_tokens = (total.reasoning_tokens ?? 0) + usage.reasoning_tokens;
}
