/**
 * Ollama's native chat API (`POST /api/chat`) as the scripted server speaks it: n8n's Ollama Chat Model
 * goes through @langchain/ollama and ollama-js to this API, always streaming, never to Ollama's `/v1`
 * (../shared/reference/provider-behaviours.md §4 and the emulation table [N-oll], [LC-oll], [OL-api]).
 */
import type { ChatMessage } from '../core/messages';
import type {
	ParsedCall,
	ScriptedRequest,
	StreamEvent,
	WireReply,
	WireUsage,
} from './scripted-types';

/** The Ollama release the server claims to be on `GET /api/version`. */
const OLLAMA_VERSION = '0.12.4';

/** [OL-api]: `{model, messages[{role, content, images?, tool_calls?}], stream, format?, options?}`; a `tool` result counts as user input. */
export function parseOllamaCall(body: any): ParsedCall | { problem: string } {
	if (typeof body.model !== 'string' || body.model === '') return { problem: 'model is required' };
	const messages: ChatMessage[] = (Array.isArray(body.messages) ? body.messages : []).map(
		(message: any) => ({
			role: message?.role === 'system' || message?.role === 'assistant' ? message.role : 'user',
			content: typeof message?.content === 'string' ? message.content : '',
		}),
	);
	return { model: body.model, messages, body };
}

/** [OL-routes]: every native error is `{"error":"…"}` with the HTTP status. */
export function ollamaError(message: string): object {
	return { error: message };
}

/** [OL-api] `GET /api/tags`: the local models, which the n8n sub-node offers in its model list. */
export function ollamaTags(models: string[]): object {
	const details = {
		parent_model: '',
		format: 'gguf',
		family: 'scripted',
		families: ['scripted'],
		parameter_size: '0B',
		quantization_level: 'Q4_K_M',
	};
	return {
		models: models.map((name) => ({
			name,
			model: name,
			modified_at: '2026-01-01T00:00:00Z',
			size: 0,
			digest: 'scripted',
			details,
		})),
	};
}

/** [OL-api] `GET /api/version`. */
export function ollamaVersion(): object {
	return { version: OLLAMA_VERSION };
}

/** The assistant message of a reply: its text, and native tool calls with their arguments as objects. */
function assistantMessage(content: string, reply: WireReply): object {
	const toolCalls = reply.toolCalls?.map((call) => ({
		function: { name: call.name, arguments: call.arguments ?? {} },
	}));
	return { role: 'assistant', content, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) };
}

/** [OL-api] the closing fields: `done_reason` (`stop`, `length`, or as scripted) and the counts, durations in ns. */
function doneFields(reply: WireReply, usage: WireUsage): object {
	return {
		done: true,
		done_reason: reply.finishReason ?? 'stop',
		total_duration: 1_000_000,
		load_duration: 1000,
		prompt_eval_count: usage.prompt_tokens,
		prompt_eval_duration: 1000,
		eval_count: usage.completion_tokens,
		eval_duration: 1000,
	};
}

function head(request: ScriptedRequest): object {
	return { model: request.model, created_at: new Date().toISOString() };
}

/** The answer to a call with `stream: false`. */
export function ollamaChat(request: ScriptedRequest, reply: WireReply, usage: WireUsage): object {
	return {
		...head(request),
		message: assistantMessage(reply.text, reply),
		...doneFields(reply, usage),
	};
}

/**
 * [OL-api] NDJSON lines: `done:false` lines with a piece of the message each (tool calls on a line of their
 * own), then a `done:true` line with an empty message, `done_reason` and the counts.
 */
export function ollamaStreamLines(
	request: ScriptedRequest,
	reply: WireReply,
	usage: WireUsage,
	pieces: string[],
): StreamEvent[] {
	const line = (fields: object, piece: boolean): StreamEvent => ({
		data: JSON.stringify({ ...head(request), ...fields }),
		piece,
	});
	const lines = pieces.map((content) =>
		line({ message: { role: 'assistant', content }, done: false }, true),
	);
	if (reply.toolCalls?.length)
		lines.push(line({ message: assistantMessage('', reply), done: false }, false));
	lines.push(
		line({ message: { role: 'assistant', content: '' }, ...doneFields(reply, usage) }, false),
	);
	return lines;
}

/** [OL-routes]: a failure midway is one more line, `{"error":"…"}`. */
export function ollamaStreamError(message: string): StreamEvent {
	return { data: JSON.stringify(ollamaError(message)), piece: false };
}
