import type { GenerateContentResponse, Part } from '@google/genai';
import { ProviderResponseError } from '../chat-model';
import type { StreamedText } from '../streamed-text';

/** The parts of a Gemini response that the adapter reads, whether it came whole or was joined from a stream. */
export type GeminiReply = Pick<
	GenerateContentResponse,
	'candidates' | 'promptFeedback' | 'usageMetadata'
>;

/** Errors raised by the provider's own error event inside a stream, as opposed to an HTTP error status. */
const errorEvents = new WeakSet<object>();

/** True for an error the provider sent as an event inside a 200 stream; those are not retried. */
export function isStreamErrorEvent(error: unknown): boolean {
	return typeof error === 'object' && error !== null && errorEvents.has(error);
}

/**
 * Reads a `streamGenerateContent?alt=sse` stream (provider-behaviours.md §2, [GG-rec-stream]) into one
 * response, passing the text of each event on as it arrives: every event is a whole response holding
 * only its own parts, `usageMetadata` is cumulative (the last one counts), `finishReason` comes on the
 * last event and `promptFeedback` on the first. Thought parts are kept for the reader, which leaves
 * them out of the text, and are not passed on.
 */
export async function collectGeminiStream(
	stream: AsyncIterable<GenerateContentResponse>,
	text: StreamedText,
): Promise<GeminiReply> {
	const parts: Part[] = [];
	let sawCandidate = false;
	let finishReason: string | undefined;
	let promptFeedback: GeminiReply['promptFeedback'];
	let usageMetadata: GeminiReply['usageMetadata'];
	try {
		for await (const chunk of stream) {
			promptFeedback ??= chunk.promptFeedback;
			if (chunk.usageMetadata) usageMetadata = chunk.usageMetadata;
			const candidate = chunk.candidates?.[0];
			if (!candidate) continue;
			sawCandidate = true;
			if (candidate.finishReason) finishReason = candidate.finishReason;
			for (const part of candidate.content?.parts ?? []) {
				parts.push(part);
				if (typeof part.text === 'string' && !part.thought) text.passOn(part.text);
			}
		}
	} catch (error) {
		throw asStreamFailure(error);
	}
	const candidates = sawCandidate
		? [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }]
		: undefined;
	return { candidates: candidates as GeminiReply['candidates'], promptFeedback, usageMetadata };
}

/**
 * The SDK raises an in-stream `{"error":…}` event as an ApiError with the event's code ([GG-rec-stream]);
 * it is marked so that it is not retried like an HTTP 5xx. A body that is no event stream at all fails in
 * the SDK's parser, and becomes a ProviderResponseError, as a non-JSON body does on a plain call.
 */
function asStreamFailure(error: unknown): unknown {
	const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
	if (name === 'ApiError' && typeof error === 'object' && error !== null) {
		errorEvents.add(error);
		return error;
	}
	if (
		typeof message === 'string' &&
		/^(Incomplete JSON segment|exception parsing stream chunk)/.test(message)
	) {
		return new ProviderResponseError(
			`the endpoint answered the streamed call without a Gemini event stream (${message.slice(0, 160)}); check the base URL`,
		);
	}
	return error;
}
