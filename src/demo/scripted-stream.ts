/**
 * The streamed answers of the scripted server: OpenAI `chat.completion.chunk` events ending in
 * `data: [DONE]`, and Gemini `streamGenerateContent?alt=sse` events, each a whole response
 * (../shared/reference/provider-behaviours.md §1.6 and §2; keys in brackets name its sources).
 */
import type { ScriptedRequest, StreamEvent } from './scripted-types';
import { anthropicStreamError, anthropicStreamEvents } from './scripted-anthropic';
import type { StreamPlan } from './scripted-event-stream';
import { ollamaStreamError, ollamaStreamLines } from './scripted-ollama';
import { responsesStreamError, responsesStreamEvents } from './scripted-responses';
import {
	errorBody,
	geminiUsage,
	openAiUsage,
	type Provider,
	type WireReply,
	type WireUsage,
} from './scripted-wire';
export type { StreamEvent } from './scripted-types';
export { sendEventStream, waitUnlessClientLeaves } from './scripted-event-stream';

/** How a reply is streamed when the call asks for a stream; calls that do not stream ignore these. */
export interface StreamShape {
	/** The reply text in these pieces, one event each; default: pieces of 8 characters. */
	chunks?: string[];
	/** Wait between events, so that a test can watch the order or abort mid-stream. */
	chunkDelayMs?: number;
	/**
	 * Send the provider's in-stream error event after this many text pieces and end the stream (OpenAI
	 * `data: {"error":{…,"type":"server_error"}}`, Gemini `data: {"error":{"code":500,…,"status":"INTERNAL"}}`).
	 * With fewer pieces, the error follows the last one. The message is `errorMessage` when set.
	 */
	streamErrorAfter?: number;
	/** Break the connection after this many text pieces, without ending the stream (a dropped connection). */
	streamCutAfter?: number;
	/**
	 * Send no usage at all, as a server that ignores `stream_options` does: OpenAI-compatible servers accept
	 * unknown fields and only log them (vLLM [VL-proto]), and only servers that implement
	 * `stream_options.include_usage` add the usage chunk [ON-cc] (Ollama's `/v1` stream has it since
	 * v0.32.6 [OL-mw]). Gemini events then carry no `usageMetadata`. n8n itself falls back to an estimate
	 * when a streamed call reports no completion tokens [N-trace].
	 */
	withoutUsage?: boolean;
}

/** The events to send for a streamed call, and whether to break the connection after them. */
export function streamFor(
	request: ScriptedRequest,
	reply: WireReply & StreamShape & { errorMessage: string },
	usage: WireUsage,
): StreamPlan {
	const pieces = reply.chunks ?? splitIntoPieces(reply.text);
	const events = FORMATS[request.provider].events(request, reply, usage, pieces);
	if (reply.streamErrorAfter !== undefined) {
		const sent = upToPiece(events, reply.streamErrorAfter);
		return {
			events: [...sent, FORMATS[request.provider].error(reply.errorMessage, sent.length)],
			breakConnection: false,
		};
	}
	if (reply.streamCutAfter !== undefined)
		return { events: upToPiece(events, reply.streamCutAfter), breakConnection: true };
	return { events, breakConnection: false };
}

type EventsWriter = (
	request: ScriptedRequest,
	reply: WireReply & StreamShape,
	usage: WireUsage,
	pieces: string[],
) => StreamEvent[];

/**
 * Each wire format's events and in-stream error (given how many events came before it): OpenAI
 * `data: {"error":{…,"type":"server_error"}}`, Gemini `data: {"error":{"code":500,…,"status":"INTERNAL"}}`,
 * Anthropic and Responses `event: error`, Ollama an `{"error":…}` line.
 */
const FORMATS: Record<
	Provider,
	{ events: EventsWriter; error: (message: string, eventsBefore: number) => StreamEvent }
> = {
	openai: {
		events: openAiStreamEvents,
		error: (message) => ({
			data: JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } }),
			piece: false,
		}),
	},
	gemini: {
		events: geminiStreamEvents,
		error: (message) => ({ data: JSON.stringify(errorBody('gemini', 500, message)), piece: false }),
	},
	anthropic: { events: anthropicStreamEvents, error: anthropicStreamError },
	'openai-responses': { events: responsesStreamEvents, error: responsesStreamError },
	ollama: { events: ollamaStreamLines, error: ollamaStreamError },
};

const DEFAULT_PIECE_LENGTH = 8;

/** The text in pieces of `length` characters, never splitting a character made of two UTF-16 units. */
export function splitIntoPieces(text: string, length = DEFAULT_PIECE_LENGTH): string[] {
	const characters = Array.from(text);
	const pieces: string[] = [];
	for (let index = 0; index < characters.length; index += length)
		pieces.push(characters.slice(index, index + length).join(''));
	return pieces;
}

/**
 * [ON-cc]: every chunk has the same id and created, the first delta carries the role, content comes in
 * pieces, `finish_reason` is null until the last choice chunk; with `stream_options.include_usage`
 * every chunk has `"usage": null` and one extra chunk with `choices: []` carries the usage; the
 * `obfuscation` padding is there unless `stream_options.include_obfuscation` is false; `[DONE]` ends it.
 */
function openAiStreamEvents(
	request: ScriptedRequest,
	reply: WireReply & StreamShape,
	usage: WireUsage,
	textPieces: string[],
): StreamEvent[] {
	const options = request.body.stream_options ?? {};
	const includeUsage = options.include_usage === true && reply.withoutUsage !== true;
	const common = {
		id: `chatcmpl-scripted-${request.callIndex}`,
		object: 'chat.completion.chunk',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
	};
	const chunk = (delta: object, finishReason: string | null = null): string =>
		JSON.stringify({
			...common,
			choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
			...(includeUsage ? { usage: null } : {}),
			...(options.include_obfuscation === false ? {} : { obfuscation: 'scripted' }),
		});

	const toolCalls = reply.toolCalls ?? [];
	const refusing = reply.refusal !== undefined && toolCalls.length === 0;
	const firstDelta = refusing
		? { role: 'assistant', content: null, refusal: '' }
		: {
				role: 'assistant',
				content: toolCalls.length && reply.text === '' ? null : '',
				refusal: null,
			};
	const events: StreamEvent[] = [{ data: chunk(firstDelta), piece: false }];
	for (const piece of reply.reasoning ? splitIntoPieces(reply.reasoning.text) : [])
		events.push({ data: chunk({ [reply.reasoning!.field]: piece }), piece: false });
	const pieces = refusing ? splitIntoPieces(reply.refusal ?? '') : textPieces;
	for (const piece of pieces)
		events.push({ data: chunk(refusing ? { refusal: piece } : { content: piece }), piece: true });
	toolCalls.forEach((call, index) => {
		// [ON-cc]: a tool call opens with its id, type and name; its arguments follow as string pieces.
		const opening = {
			index,
			id: `call_scripted_${index}`,
			type: 'function',
			function: { name: call.name, arguments: '' },
		};
		events.push({ data: chunk({ tool_calls: [opening] }), piece: false });
		events.push({
			data: chunk({
				tool_calls: [{ index, function: { arguments: JSON.stringify(call.arguments ?? {}) } }],
			}),
			piece: false,
		});
	});
	events.push({
		data: chunk({}, reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop')),
		piece: false,
	});
	if (includeUsage) {
		events.push({
			data: JSON.stringify({
				...common,
				choices: [],
				usage: openAiUsage(usage, reply.reasoningTokens),
			}),
			piece: false,
		});
	}
	events.push({ data: '[DONE]', piece: false });
	return events;
}

/**
 * [GG-rec-stream]: each event is a whole GenerateContentResponse holding only its own text, with the
 * usage so far (cumulative) and `finishReason` on the last one only; no `[DONE]`. A blocked prompt is a
 * single event with `promptFeedback` and no candidates ([GG-types]: "sent only in the first stream chunk").
 */
function geminiStreamEvents(
	request: ScriptedRequest,
	reply: WireReply & StreamShape,
	usage: WireUsage,
	pieces: string[],
): StreamEvent[] {
	const common = { modelVersion: request.model, responseId: `scripted-${request.callIndex}` };
	if (reply.promptBlocked) {
		const data = JSON.stringify({
			promptFeedback: { blockReason: reply.promptBlocked },
			usageMetadata: geminiUsage(usage, reply.reasoningTokens),
			...common,
		});
		return [{ data, piece: false }];
	}
	const contents: Array<{ parts?: object[]; piece: boolean }> = pieces.map((piece) => ({
		parts: [{ text: piece }],
		piece: true,
	}));
	const calls = (reply.toolCalls ?? []).map((call) => ({
		functionCall: { name: call.name, args: call.arguments ?? {} },
	}));
	if (calls.length) contents.push({ parts: calls, piece: false });
	// A reply with nothing to show (filtered, or its budget spent on thinking) is one event without parts.
	if (contents.length === 0) contents.push({ piece: false });
	return contents.map((content, index) => {
		const last = index === contents.length - 1;
		const candidate = {
			content: content.parts ? { role: 'model', parts: content.parts } : { role: 'model' },
			...(last ? { finishReason: reply.finishReason ?? 'STOP' } : {}),
			index: 0,
		};
		const usageMetadata = reply.withoutUsage
			? undefined
			: geminiUsage(usageSoFar(usage, (index + 1) / contents.length), reply.reasoningTokens);
		return {
			data: JSON.stringify({ candidates: [candidate], usageMetadata, ...common }),
			piece: content.piece,
		};
	});
}

/** Cumulative usage after `share` of the reply; scripted usage that is not a pair of numbers is sent as it is. */
function usageSoFar(usage: WireUsage, share: number): WireUsage {
	if (typeof usage.completion_tokens !== 'number' || typeof usage.prompt_tokens !== 'number')
		return usage;
	return { ...usage, completion_tokens: Math.round(usage.completion_tokens * share) };
}

/** The events up to the `afterPieces`-th text piece, or up to the last piece when there are fewer. */
function upToPiece(events: StreamEvent[], afterPieces: number): StreamEvent[] {
	let cut = 0;
	let piecesSeen = 0;
	while (cut < events.length && piecesSeen < afterPieces) {
		if (events[cut].piece) piecesSeen++;
		cut++;
	}
	if (piecesSeen < afterPieces)
		cut = events.reduce((lastPiece, event, index) => (event.piece ? index + 1 : lastPiece), 0);
	return events.slice(0, cut);
}
