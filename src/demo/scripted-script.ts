// The scripted server's script: what it may answer to a call, and the reply it picks for one with its defaults.
import type { ChatMessage } from '../core/messages';
import type { StreamShape } from './scripted-stream';
import type { ScriptedRequest } from './scripted-types';
import type { WireReply, WireUsage } from './scripted-wire';

/**
 * What the server answers to one call. A string is the assistant text. In the object form, a `status`
 * of 400 or more (or an `errorMessage` without a status, which means 500) answers an error in the
 * provider's own error format; `delayMs` waits before answering; `usage` replaces the estimated token
 * counts (any JSON, to play a broken endpoint; its `cached_tokens` and `cache_write_tokens`, parts of
 * `prompt_tokens`, go out in each format's own cache fields, see `WireUsage`); `headers` are added to the response (e.g. `retry-after`);
 * `rawBody` (with `contentType`) is sent as it is, with `status`, instead of a completion or error body; the rest shape the completion
 * as the provider would (see `WireReply`). A call that asks for a stream gets the same reply as events,
 * shaped by `StreamShape` (`chunks`, `chunkDelayMs`, `streamCutAfter`, `streamErrorAfter`, which makes
 * `errorMessage` the in-stream error's message instead of an HTTP 500); `chunks` alone also gives the text.
 */
export type ScriptedReply =
	| string
	| (Partial<WireReply> &
			StreamShape & {
				status?: number;
				errorMessage?: string;
				delayMs?: number;
				usage?: WireUsage;
				headers?: Record<string, string>;
				rawBody?: string;
				contentType?: string;
			});

/** One reply for every call, an array indexed by call number, or a function of the request. */
export type Script =
	| ScriptedReply
	| ScriptedReply[]
	| ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>);

/** Token counts the server estimates for a reply that scripts none. */
type Usage = { prompt_tokens: number; completion_tokens: number };

/** A reply with its defaults filled in: status, error message, delay and lower-cased headers. */
export interface ResolvedReply extends WireReply, StreamShape {
	status: number;
	errorMessage: string;
	delayMs: number;
	usage?: WireUsage;
	headers: Record<string, string>;
	rawBody?: string;
	contentType?: string;
}

/** The script's reply to the call: by call number for an array, past its end an HTTP 500. */
export function pickReply(
	script: Script,
	request: ScriptedRequest,
): ScriptedReply | Promise<ScriptedReply> {
	if (typeof script === 'function') return script(request);
	if (!Array.isArray(script)) return script;
	if (request.callIndex < script.length) return script[request.callIndex];
	return {
		status: 500,
		errorMessage: `scripted server: no reply scripted for call ${request.callIndex}`,
	};
}

/** The reply with its defaults; chunks that do not join to the text make it an HTTP 500. */
export function resolveReply(reply: ScriptedReply): ResolvedReply {
	if (typeof reply === 'string')
		return { text: reply, status: 200, errorMessage: '', delayMs: 0, headers: {} };
	const text = reply.text ?? reply.chunks?.join('') ?? '';
	if (reply.chunks && reply.chunks.join('') !== text) {
		return resolveReply({
			status: 500,
			errorMessage: 'scripted server: the scripted chunks do not join to the scripted text',
		});
	}
	// With streamErrorAfter the error comes inside a 200 stream, so errorMessage alone does not mean HTTP 500.
	const status =
		reply.status ??
		(reply.errorMessage !== undefined && reply.streamErrorAfter === undefined ? 500 : 200);
	const headers: Record<string, string> = {};
	// Lower-cased so that a scripted header replaces ours instead of being sent twice.
	for (const [name, value] of Object.entries(reply.headers ?? {}))
		headers[name.toLowerCase()] = value;
	return {
		...reply,
		text,
		status,
		errorMessage:
			reply.errorMessage ??
			(status === 200
				? 'scripted server: the stream broke off'
				: `scripted server: HTTP ${status}`),
		delayMs: reply.delayMs ?? 0,
		headers,
	};
}

/** About four characters a token, for the prompt's messages and the reply's text. */
export function estimateUsage(messages: ChatMessage[], text: string): Usage {
	const promptCharacters = messages.reduce((total, message) => total + message.content.length, 0);
	return {
		prompt_tokens: Math.ceil(promptCharacters / 4),
		completion_tokens: Math.ceil(text.length / 4),
	};
}
