/** Anthropic Messages facts in one place: stop reasons, usage (plain and streamed) and the error body, read from what the API sends. */
import type { ModelFinishReason } from '../chat-model';
import type { TokenUsage } from '../../core/usage';
import { mapAnthropicStopReason } from '../finish-reasons';
import { shortMessage } from '../provider-errors';
import type { StreamPiece } from './stream-bound';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number =>
	typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;

/**
 * The refusal's words for the step's error: `stop_details` carries its `category` and an `explanation`
 * (realworld case `vercel:anthropic:anthropic-refusal.chunks.txt`); older replies send neither.
 */
export function anthropicFinishMessage(reason: unknown, details?: unknown): string | undefined {
	if (reason !== 'refusal') return undefined;
	const category =
		isObject(details) && typeof details.category === 'string'
			? ` (${details.category.trim()})`
			: '';
	const explanation =
		isObject(details) &&
		typeof details.explanation === 'string' &&
		details.explanation.trim() !== ''
			? `: ${details.explanation.trim()}`
			: '';
	// One line of at most a few hundred characters, whatever the provider (or a proxy) sends.
	return shortMessage(`Anthropic stop_reason refusal${category}${explanation}`);
}

/**
 * An Anthropic `usage` object in the engine's form. [AN-msg]: the whole input is `input_tokens` plus
 * `cache_creation_input_tokens` plus `cache_read_input_tokens`; `output_tokens` is the whole output. The
 * two cache counts are also kept apart, as parts of the prompt: cache reads as `cached_tokens`, cache
 * writes as `cache_write_tokens` (realworld case
 * `vercel:anthropic:anthropic-code-execution-20260120-prompt-cache.1.chunks.txt`: 6 + 3337 written + 6289 read).
 */
export function readAnthropicUsage(usage: Fields): TokenUsage {
	const cacheWrite = count(usage.cache_creation_input_tokens);
	const cached = count(usage.cache_read_input_tokens);
	const prompt = count(usage.input_tokens) + cacheWrite + cached;
	const completion = count(usage.output_tokens);
	return {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: prompt + completion,
		...(cached ? { cached_tokens: cached } : {}),
		...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
	};
}

/** The usage counts a `message_delta` event may restate (the server-tool calls change the input count). */
const RESTATED = [
	'input_tokens',
	'cache_creation_input_tokens',
	'cache_read_input_tokens',
	'output_tokens',
	'server_tool_use',
] as const;

/**
 * What an Anthropic event stream says about usage and why it stopped, read event by event as the Anthropic
 * SDK's own MessageStream reads it: `message_start` sets the usage (a repeated `message_start` replaces it,
 * it does not add: realworld cases `vercel:anthropic:duplicate-message-start.chunks.txt`,
 * `…spliced-message-start.chunks.txt`); `message_delta` carries the stop reason and restates the counts as
 * totals — `output_tokens` always (so the 1 of `message_start` is not added: `…anthropic-text.chunks.txt`),
 * the input counts when server tools or caching changed them (`…anthropic-message-delta-input-tokens.chunks.txt`,
 * `…anthropic-web-fetch-tool.1.chunks.txt`).
 */
export class AnthropicStreamReader {
	private usage: Fields | undefined;
	private stopReason: unknown;
	private stopDetails: unknown;

	/** Reads one event (the SDK's parsed JSON); any other value or event type is ignored. */
	read(event: unknown): void {
		if (!isObject(event)) return;
		if (event.type === 'message_start' && isObject(event.message)) {
			this.usage = isObject(event.message.usage) ? { ...event.message.usage } : {};
		} else if (event.type === 'message_delta') {
			const delta = isObject(event.delta) ? event.delta : {};
			if (delta.stop_reason !== undefined && delta.stop_reason !== null)
				this.stopReason = delta.stop_reason;
			if (delta.stop_details !== undefined) this.stopDetails = delta.stop_details;
			if (isObject(event.usage)) {
				this.usage ??= {};
				for (const key of RESTATED) {
					const value = event.usage[key];
					if (value !== undefined && value !== null) this.usage[key] = value;
				}
			}
		}
	}

	/** The stream's usage, or undefined when it sent none. */
	get tokenUsage(): TokenUsage | undefined {
		return this.usage ? readAnthropicUsage(this.usage) : undefined;
	}

	get finishReason(): ModelFinishReason | undefined {
		return mapAnthropicStopReason(this.stopReason);
	}

	get finishMessage(): string | undefined {
		return anthropicFinishMessage(this.stopReason, this.stopDetails);
	}
}

/** Block types that hold nothing until their deltas come: an empty text or thinking block starts without content. */
const EMPTY_STARTING_BLOCKS = new Set(['text', 'thinking']);

/**
 * One streamed event as the stream bound counts it ([AN-stream]): content is a `content_block_delta` with text,
 * thinking or tool input (`text_delta`, `thinking_delta`, `input_json_delta`), or a `content_block_start` of a
 * block that holds something itself (tool use, server tool results, text given at the start). `message_start`
 * starts a message; `content_block_stop`, `message_delta`, `message_stop` and `signature_delta` carry no content.
 * (`ping` and unknown events never get here: the Anthropic SDK's Stream skips them, core/streaming.ts 0.115.0.)
 */
export function anthropicEventPiece(event: unknown): StreamPiece {
	if (!isObject(event)) return { content: false };
	if (event.type === 'message_start') return { content: false, start: true };
	if (event.type === 'content_block_delta' && isObject(event.delta)) {
		const { text, thinking, partial_json: input } = event.delta;
		return {
			content: [text, thinking, input].some((value) => typeof value === 'string' && value !== ''),
		};
	}
	if (event.type === 'content_block_start' && isObject(event.content_block)) {
		const block = event.content_block;
		if (!EMPTY_STARTING_BLOCKS.has(String(block.type))) return { content: true };
		return {
			content: [block.text, block.thinking].some(
				(value) => typeof value === 'string' && value !== '',
			),
		};
	}
	return { content: false };
}
