/** What a chat completions request carries besides the messages: the prompt cache key and the response format. */
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatRequest, ResponseFormat } from '../chat-model';
import type { DroppableField } from '../refused-fields';

/**
 * OpenAI's `prompt_cache_key` ([ON-cc] `prompt_cache_key`: "used by OpenAI to cache responses for similar
 * requests to optimize your cache hit rates"): requests with the same key and prefix are routed together, so
 * the runs of one configuration share a cache. The key is a hash of the stable part of the system message,
 * which Agent Core writes first and ends at the message's first blank line (the protocol rules and the
 * tools: src/agent/prompt.ts), so the workflow's own text and the conversation after it never change the key.
 * None without a leading system message. An endpoint that refuses the field is called again without it.
 */
export function promptCacheKey(messages: ChatRequest['messages']): string | undefined {
	const first = messages[0];
	if (first?.role !== 'system' || first.content === '') return undefined;
	const end = first.content.indexOf('\n\n');
	const stable = end === -1 ? first.content : first.content.slice(0, end);
	// Every step of a run, and every run of a configuration, sends the same stable part: hashed once.
	if (stable !== lastStable) {
		lastStable = stable;
		lastKey = `agent-core-${createHash('sha256').update(stable).digest('hex').slice(0, 32)}`;
	}
	return lastKey;
}
/** The last stable part hashed and its key (a one-entry memo: the hash is pure). */
let lastStable: string | undefined;
let lastKey = '';

export function withPromptCacheKey(request: ChatRequest): { prompt_cache_key?: string } {
	const key = promptCacheKey(request.messages);
	return key ? { prompt_cache_key: key } : {};
}

/**
 * The engine's response format as chat completions' `response_format`; none for free text. A schema goes
 * strict in its strict form when it has one ([ON-shared], provider-behaviours.md §1.4), else non-strict;
 * after the endpoint refused it, plain JSON mode.
 */
export function openAiResponseFormat(
	format: ResponseFormat,
	dropped: ReadonlySet<DroppableField>,
): OpenAI.ResponseFormatJSONObject | OpenAI.ResponseFormatJSONSchema | undefined {
	if (format.type === 'text') return undefined;
	if (format.type === 'json_object' || dropped.has('json_schema')) return { type: 'json_object' };
	const strict = format.strictSchema !== undefined;
	return {
		type: 'json_schema',
		json_schema: { name: format.name, schema: format.strictSchema ?? format.schema, strict },
	};
}
