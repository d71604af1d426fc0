/** A Gemini reply (whole or joined from a stream) read as the engine's ChatResponse. */
import { describeUnexpectedBody, ProviderResponseError, type ChatResponse } from '../chat-model';
import { mapGeminiFinishReason } from '../finish-reasons';
import { shortMessage } from '../provider-errors';
import type { GeminiReply } from './stream';

/** The ChatResponse of a whole reply or of one joined from a stream's events. */
export function readResponse(response: GeminiReply): ChatResponse {
	const candidate = response.candidates?.[0];
	const blocked = response.promptFeedback?.blockReason;
	if (!candidate && !blocked) {
		throw new ProviderResponseError(
			`the endpoint answered without candidates (body: ${describeUnexpectedBody(response)}); check the base URL and model`,
		);
	}
	const parts = candidate?.content?.parts ?? [];
	const nativeToolCalls = parts
		.filter((part) => part.functionCall)
		.map((part) => part.functionCall?.name ?? 'unnamed');
	const metadata = response.usageMetadata;
	const prompt = metadata?.promptTokenCount ?? 0;
	const thoughts = metadata?.thoughtsTokenCount ?? 0;
	const completion = (metadata?.candidatesTokenCount ?? 0) + thoughts;
	// [GG-types] `cachedContentTokenCount`: the cached part of the input, inside `promptTokenCount` (realworld case
	// `genai:Client_Tests_generateContent_ML_Dev_should_generate_content_with_given_valid_json_schema_in_responseSchema#0`:
	// 3 of 5). Cumulative in a stream like the rest, so the last chunk's holds. Gemini reports no cache writes.
	const cached = metadata?.cachedContentTokenCount ?? 0;
	return {
		// Thought parts are left out, as the SDK's own `text` does (provider-behaviours.md §2).
		text: parts
			.filter((part) => typeof part.text === 'string' && !part.thought)
			.map((part) => part.text)
			.join(''),
		usage: {
			prompt_tokens: prompt,
			completion_tokens: completion,
			total_tokens: metadata?.totalTokenCount ?? 0,
			...(thoughts ? { reasoning_tokens: thoughts } : {}),
			...(cached ? { cached_tokens: cached } : {}),
		},
		// `usageMetadata` without counts is a report of 0 (a blocked prompt's, realworld case
		// pyd:test_google/test_google_model_armor_prompt_template_text_gets_blocked#1); no `usageMetadata` is none.
		usageReported: typeof metadata === 'object' && metadata !== null,
		finishReason: blocked ? 'content_filter' : mapGeminiFinishReason(candidate?.finishReason),
		...geminiFinishMessage(response, candidate),
		...(nativeToolCalls.length ? { nativeToolCalls } : {}),
	};
}

/**
 * The provider's words on a block or an unusual end: the candidate's `finishMessage` or the prompt's
 * `blockReasonMessage` ([GG-types]; Vertex Model Armor sends "The response violated Responsible AI Safety
 * settings …", realworld case `pyd:test_google/test_google_model_armor_response_template_real_block#0`),
 * else the reason's name. None for a normal stop.
 */
function geminiFinishMessage(
	response: GeminiReply,
	candidate: { finishReason?: unknown; finishMessage?: unknown } | undefined,
): { finishMessage?: string } {
	const feedback = response.promptFeedback as
		| { blockReason?: unknown; blockReasonMessage?: unknown }
		| undefined;
	if (feedback?.blockReason) {
		const words =
			typeof feedback.blockReasonMessage === 'string' && feedback.blockReasonMessage.trim() !== ''
				? `: ${feedback.blockReasonMessage.trim()}`
				: '';
		return {
			finishMessage: shortMessage(
				`Gemini blocked the prompt (${String(feedback.blockReason)})${words}`,
			),
		};
	}
	const reason = candidate?.finishReason;
	if (reason === undefined || reason === 'STOP' || reason === 'MAX_TOKENS') return {};
	const words =
		typeof candidate?.finishMessage === 'string' && candidate.finishMessage.trim() !== ''
			? `: ${candidate.finishMessage.trim()}`
			: '';
	return { finishMessage: shortMessage(`Gemini finishReason ${String(reason)}${words}`) };
}
