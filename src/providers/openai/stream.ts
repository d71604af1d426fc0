import type OpenAI from 'openai';
import { openAiSdk } from './sdk';
import { ProviderResponseError } from '../chat-model';
import type { StreamedText } from '../streamed-text';
import { reasoningPiece } from './wire';

type StreamedToolCall = { type: 'function'; function: { name?: string; arguments: string } };

/**
 * Reads a chat completion stream (provider-behaviours.md §1.6, [ON-cc]) into the shape of a plain chat
 * completion, passing each content piece on as it arrives, so that one reader turns both kinds of
 * answer into a ChatResponse. Content and refusal come in pieces, tool calls as an opening delta with
 * the name followed by argument pieces, `finish_reason` on the last choice chunk and, with
 * `stream_options.include_usage`, the usage on an extra chunk with `choices: []`. Reasoning comes in pieces
 * too, in `delta.reasoning_content` or `delta.reasoning` (see reasoningPiece), and is joined into the
 * message's `reasoning_content`, where the plain reply's reader finds it; it is not passed on as text.
 */
export async function collectChatCompletionStream(
	stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
	text: StreamedText,
	signal: AbortSignal,
): Promise<OpenAI.ChatCompletion> {
	let content = '';
	let refusal = '';
	let reasoning = '';
	let finishReason: string | null = null;
	let usage: OpenAI.CompletionUsage | undefined;
	let sawChoices = false;
	const toolCalls: StreamedToolCall[] = [];
	for await (const chunk of stream) {
		if (chunk.usage) usage = chunk.usage;
		if (!Array.isArray(chunk.choices)) continue;
		sawChoices = true;
		// Some OpenAI-compatible servers leave out the index; there is only one choice either way.
		const choice = chunk.choices.find((candidate) => (candidate.index ?? 0) === 0);
		if (!choice) continue;
		const delta = (choice.delta ?? {}) as OpenAI.ChatCompletionChunk.Choice.Delta;
		if (typeof delta.content === 'string') {
			content += delta.content;
			text.passOn(delta.content);
		}
		if (typeof delta.refusal === 'string') refusal += delta.refusal;
		reasoning += reasoningPiece(delta);
		for (const call of delta.tool_calls ?? []) {
			const entry = (toolCalls[call.index ?? 0] ??= {
				type: 'function',
				function: { arguments: '' },
			});
			if (call.function?.name)
				entry.function.name = (entry.function.name ?? '') + call.function.name;
			if (call.function?.arguments) entry.function.arguments += call.function.arguments;
		}
		if (choice.finish_reason) finishReason = choice.finish_reason;
	}
	// openai-node ends the iteration quietly when the request is aborted ([ON-stream]); the call must still fail.
	if (signal.aborted) throw new (openAiSdk().APIUserAbortError)();
	if (!sawChoices) {
		throw new ProviderResponseError(
			"the endpoint answered the streamed call without any chat completion chunk; check that the base URL is the API's /v1 URL and that it streams",
		);
	}
	const calls = toolCalls.filter(Boolean);
	const message = {
		role: 'assistant',
		content: content === '' && (refusal !== '' || calls.length > 0) ? null : content,
		refusal: refusal === '' ? null : refusal,
		...(reasoning === '' ? {} : { reasoning_content: reasoning }),
		...(calls.length ? { tool_calls: calls } : {}),
	};
	return {
		choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
		usage,
	} as unknown as OpenAI.ChatCompletion;
}
