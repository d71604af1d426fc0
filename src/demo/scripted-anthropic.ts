/**
 * The Anthropic Messages API (`POST /v1/messages`) as the scripted server speaks it: the request read
 * into the neutral form, the Message answer, its error body and its server-sent events
 * (../shared/reference/provider-behaviours.md §3; keys in brackets name its sources).
 */
import type { ChatMessage } from '../core/messages';
import type {
	AnthropicUsageShape,
	ParsedCall,
	ScriptedRequest,
	StreamEvent,
	WireReply,
	WireUsage,
} from './scripted-types';
export type { AnthropicUsageShape } from './scripted-types';

/** [AN-shared]: the error type the API names for each HTTP status. */
const ERROR_TYPES: Record<number, string> = {
	400: 'invalid_request_error',
	401: 'authentication_error',
	402: 'billing_error',
	403: 'permission_error',
	404: 'not_found_error',
	413: 'request_too_large',
	429: 'rate_limit_error',
	504: 'timeout_error',
	529: 'overloaded_error',
};

/** The scripted finish reasons in OpenAI's words, as Anthropic names them [AN-msg]; others are sent as they are. */
const STOP_REASONS: Record<string, string> = {
	stop: 'end_turn',
	length: 'max_tokens',
	content_filter: 'refusal',
	tool_calls: 'tool_use',
};

/**
 * [AN-msg]: `system` is top level (a string or text blocks), `messages` are user/assistant turns with a
 * string or blocks, and `max_tokens` is required. Consecutive user turns are accepted as they are
 * (§3 "Alternation": the API combines them into one turn).
 */
export function parseAnthropicCall(body: any): ParsedCall | { problem: string } {
	if (!Array.isArray(body.messages)) return { problem: 'messages: Field required' };
	if (body.max_tokens === undefined) return { problem: 'max_tokens: Field required' };
	const messages: ChatMessage[] = [];
	if (body.system !== undefined) messages.push({ role: 'system', content: blockText(body.system) });
	for (const message of body.messages) {
		messages.push({
			role: message?.role === 'assistant' ? 'assistant' : 'user',
			content: blockText(message?.content),
		});
	}
	return { model: String(body.model ?? ''), messages, body };
}

/** Text of a string, or of the text blocks of a content array (tool results carry their own content). */
function blockText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content
		.map((block: any) =>
			typeof block?.text === 'string'
				? block.text
				: block?.type === 'tool_result'
					? blockText(block.content)
					: '',
		)
		.join('');
}

/** §3 "Sampling" [I-a-topp]: current models refuse `temperature` together with `top_p`. */
export function anthropicSamplingRefusal(body: any): { status: number; body: object } | undefined {
	if (body.temperature === undefined || body.top_p === undefined) return undefined;
	return {
		status: 400,
		body: anthropicError(
			400,
			'`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
		),
	};
}

/** [AN-shared] `{"type":"error","error":{"type","message"},"request_id"}`; 5xx other than 529 is `api_error` [I-a-500]. */
export function anthropicError(status: number, message: string): object {
	return { ...errorEvent(status, message), request_id: `req_scripted_${status}` };
}

function errorEvent(
	status: number,
	message: string,
): { type: 'error'; error: { type: string; message: string } } {
	return {
		type: 'error',
		error: {
			type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
			message,
		},
	};
}

/** The content blocks of a reply: its text, then its tool calls as `tool_use` blocks. */
function contentBlocks(request: ScriptedRequest, reply: WireReply): object[] {
	const blocks: object[] =
		reply.text === '' && reply.toolCalls?.length ? [] : [{ type: 'text', text: reply.text }];
	reply.toolCalls?.forEach((call, index) =>
		blocks.push({
			type: 'tool_use',
			id: toolUseId(request, index),
			name: call.name,
			input: call.arguments ?? {},
		}),
	);
	return blocks;
}

function toolUseId(request: ScriptedRequest, index: number): string {
	return `toolu_scripted_${request.callIndex}_${index}`;
}

function stopReason(reply: WireReply): string {
	const scripted = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
	return STOP_REASONS[scripted] ?? scripted;
}

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/**
 * [AN-msg] usage: the input split into uncached, cache-creation and cache-read counts, and the output. The
 * cache counts come from the reply's `anthropic` shape, else from the scripted usage's `cache_write_tokens`
 * and `cached_tokens` (the form every scripted format reads).
 */
function anthropicUsage(
	usage: WireUsage,
	shape: AnthropicUsageShape = {},
): Record<string, unknown> {
	const creation = shape.cacheCreationTokens ?? count(usage.cache_write_tokens);
	const read = shape.cacheReadTokens ?? count(usage.cached_tokens);
	const input = count(usage.prompt_tokens) - creation - read;
	return {
		input_tokens: input,
		cache_creation_input_tokens: creation,
		cache_read_input_tokens: read,
		output_tokens: usage.completion_tokens,
		service_tier: 'standard',
	};
}

/** [AN-msg]: the Message object of a non-streamed call. */
export function anthropicMessage(
	request: ScriptedRequest,
	reply: WireReply,
	usage: WireUsage,
): object {
	return {
		id: `msg_scripted_${request.callIndex}`,
		type: 'message',
		role: 'assistant',
		model: request.model,
		content: contentBlocks(request, reply),
		stop_reason: stopReason(reply),
		stop_sequence: null,
		...(reply.anthropic?.stopDetails && stopReason(reply) === 'refusal'
			? { stop_details: { type: 'refusal', ...reply.anthropic.stopDetails } }
			: {}),
		usage: anthropicUsage(usage, reply.anthropic),
	};
}

/**
 * [AN-stream]: `message_start` (stop_reason null), one content block per text or tool call opened,
 * filled by `text_delta` / `input_json_delta` and closed, then `message_delta` with the stop reason
 * and output usage, then `message_stop`; every event is named in its `event:` line.
 */
export function anthropicStreamEvents(
	request: ScriptedRequest,
	reply: WireReply,
	usage: WireUsage,
	pieces: string[],
): StreamEvent[] {
	const event = (type: string, fields: object, piece = false): StreamEvent => ({
		event: type,
		data: JSON.stringify({ type, ...fields }),
		piece,
	});
	const shape = reply.anthropic ?? {};
	const whole = anthropicUsage(usage, shape);
	const startUsage = {
		...whole,
		output_tokens: shape.startOutputTokens ?? 1,
		...(shape.startInputTokens !== undefined ? { input_tokens: shape.startInputTokens } : {}),
	};
	const { stop_details: _details, ...message } = anthropicMessage(request, reply, usage) as Record<
		string,
		unknown
	>;
	const start = { ...message, content: [], stop_reason: null, usage: startUsage };
	const events = [event('message_start', { message: start })];
	if (shape.repeatMessageStart) events.push(event('message_start', { message: start }));
	let index = 0;
	if (!(reply.text === '' && reply.toolCalls?.length)) {
		events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
		for (const text of pieces)
			events.push(
				event('content_block_delta', { index, delta: { type: 'text_delta', text } }, true),
			);
		events.push(event('content_block_stop', { index: index++ }));
	}
	for (const [callNumber, call] of (reply.toolCalls ?? []).entries()) {
		events.push(
			event('content_block_start', {
				index,
				content_block: {
					type: 'tool_use',
					id: toolUseId(request, callNumber),
					name: call.name,
					input: {},
				},
			}),
		);
		events.push(
			event('content_block_delta', {
				index,
				delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.arguments ?? {}) },
			}),
		);
		events.push(event('content_block_stop', { index: index++ }));
	}
	// [AN-stream]: message_delta's usage is cumulative; with server tools it restates the input counts too.
	const { service_tier: _tier, ...restated } = whole;
	const deltaUsage =
		shape.startInputTokens !== undefined ? restated : { output_tokens: usage.completion_tokens };
	const details =
		stopReason(reply) === 'refusal' && shape.stopDetails
			? { stop_details: { type: 'refusal', ...shape.stopDetails } }
			: {};
	events.push(
		event('message_delta', {
			delta: { stop_reason: stopReason(reply), stop_sequence: null, ...details },
			usage: deltaUsage,
		}),
	);
	events.push(event('message_stop', {}));
	return events;
}

/** [AN-msg] the in-stream `error` event, the same body as an HTTP error. */
export function anthropicStreamError(message: string): StreamEvent {
	return { event: 'error', data: JSON.stringify(errorEvent(500, message)), piece: false };
}
