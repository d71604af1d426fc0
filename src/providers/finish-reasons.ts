/** Every provider's finish-reason map in one place: OpenAI, Gemini, Anthropic, Ollama and the OpenAI Responses API, each read into the engine's terms. */
import type { ModelFinishReason } from './chat-model';

/** Ollama's done_reason (`stop`, `length`; `load`/`unload` are not replies: provider-behaviours.md §4 [OL-api]) in the engine's terms. */
export function mapOllamaDoneReason(reason: unknown): ModelFinishReason {
	if (reason === 'stop') return 'stop';
	if (reason === 'length') return 'length';
	return 'other';
}

/** The Responses API's `status` and `incomplete_details.reason` in the engine's terms. */
export function mapResponsesStatus(status: unknown, incomplete: unknown): ModelFinishReason {
	if (status === 'completed') return 'stop';
	const reason = (incomplete as { reason?: unknown } | null | undefined)?.reason;
	if (status === 'incomplete' && reason === 'max_output_tokens') return 'length';
	if (status === 'incomplete' && reason === 'content_filter') return 'content_filter';
	return 'other';
}

/** OpenAI's finish_reason values (provider-behaviours.md §1.5) in the engine's terms. */
export function mapOpenAiFinishReason(reason: unknown): ModelFinishReason | undefined {
	if (reason === null || reason === undefined) return undefined;
	if (reason === 'stop' || reason === 'tool_calls' || reason === 'function_call') return 'stop';
	if (reason === 'length') return 'length';
	if (reason === 'content_filter') return 'content_filter';
	return 'other';
}

const GEMINI_FILTERED = new Set([
	'SAFETY',
	'RECITATION',
	'BLOCKLIST',
	'PROHIBITED_CONTENT',
	'SPII',
	'MODEL_ARMOR',
	'JAILBREAK',
	'IMAGE_SAFETY',
	'IMAGE_PROHIBITED_CONTENT',
	'IMAGE_RECITATION',
]);

/** Gemini's finishReason values (provider-behaviours.md §2, [GG-types]) in the engine's terms. */
export function mapGeminiFinishReason(reason: unknown): ModelFinishReason | undefined {
	if (reason === undefined || reason === null || reason === 'FINISH_REASON_UNSPECIFIED')
		return undefined;
	if (reason === 'STOP') return 'stop';
	if (reason === 'MAX_TOKENS') return 'length';
	if (typeof reason === 'string' && GEMINI_FILTERED.has(reason)) return 'content_filter';
	return 'other';
}

/** Anthropic's stop_reason values (provider-behaviours.md §3 [AN-msg]) in the engine's terms; `pause_turn` (a long server-tool turn paused) is no end. */
export function mapAnthropicStopReason(reason: unknown): ModelFinishReason | undefined {
	if (reason === null || reason === undefined) return undefined;
	if (reason === 'end_turn' || reason === 'stop_sequence' || reason === 'tool_use') return 'stop';
	if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
	if (reason === 'refusal') return 'content_filter';
	return 'other';
}
