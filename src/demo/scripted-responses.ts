/**
 * The OpenAI Responses API (`POST /v1/responses`) as the scripted server speaks it: n8n's OpenAI Chat
 * Model v1.3 uses it by default (../shared/reference/provider-behaviours.md §6 and the emulation table
 * [N-openai]). Shapes follow openai-node's `src/resources/responses/responses.ts` [ON-client]; errors are
 * the chat-completions ones [ON-err].
 */
import type { ChatMessage } from '../core/messages';
import type {
	ParsedCall,
	ScriptedRequest,
	StreamEvent,
	WireReply,
	WireUsage,
} from './scripted-types';

const ROLES: Record<string, ChatMessage['role']> = {
	system: 'system',
	developer: 'system',
	user: 'user',
	assistant: 'assistant',
};

/** Finish reasons (in OpenAI chat words) that end a response `incomplete`, with the reason the API gives. */
const INCOMPLETE_REASONS: Record<string, string> = {
	length: 'max_output_tokens',
	content_filter: 'content_filter',
};

/**
 * `instructions` is the system prompt; `input` is a string (one user turn) or items: messages with a
 * role and string or `input_text`/`output_text` parts, and the tool round trip (`function_call`,
 * `function_call_output`) as @langchain/openai sends it back.
 */
export function parseResponsesCall(body: any): ParsedCall | { problem: string } {
	if (body.input === undefined) return { problem: "Missing required parameter: 'input'." };
	const messages: ChatMessage[] = [];
	if (typeof body.instructions === 'string')
		messages.push({ role: 'system', content: body.instructions });
	const items =
		typeof body.input === 'string'
			? [{ role: 'user', content: body.input }]
			: Array.isArray(body.input)
				? body.input
				: [];
	for (const item of items) {
		if (item?.type === 'function_call')
			messages.push({ role: 'assistant', content: `${item.name}(${item.arguments ?? ''})` });
		else if (item?.type === 'function_call_output')
			messages.push({ role: 'user', content: String(item.output ?? '') });
		else if (item?.role !== undefined)
			messages.push({ role: ROLES[item.role] ?? 'user', content: partsText(item.content) });
	}
	return { model: String(body.model ?? ''), messages, body };
}

function partsText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

/** The `message` output item: one `output_text` part with no annotations. */
function messageItem(request: ScriptedRequest, text: string, status: string): object {
	return {
		id: `msg_scripted_${request.callIndex}`,
		type: 'message',
		status,
		role: 'assistant',
		content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
	};
}

/** A native tool call as a `function_call` output item, arguments as a JSON string. */
function functionCallItem(
	request: ScriptedRequest,
	call: { name: string; arguments?: Record<string, unknown> },
	index: number,
	args: string,
): object {
	return {
		id: `fc_scripted_${request.callIndex}_${index}`,
		type: 'function_call',
		status: 'completed',
		call_id: `call_scripted_${index}`,
		name: call.name,
		arguments: args,
	};
}

function outputItems(request: ScriptedRequest, reply: WireReply): object[] {
	const items =
		reply.text === '' && reply.toolCalls?.length
			? []
			: [messageItem(request, reply.text, 'completed')];
	reply.toolCalls?.forEach((call, index) =>
		items.push(functionCallItem(request, call, index, JSON.stringify(call.arguments ?? {}))),
	);
	return items;
}

/**
 * [ON-usage] Responses form: reasoning tokens are counted inside output_tokens and detailed apart, cached
 * tokens inside input_tokens (realworld case `vercel:openai/responses:openai-file-search-tool.1.chunks.txt`:
 * 2304 of 3737); the Responses API reports no cache writes.
 */
function responsesUsage(usage: WireUsage, reasoningTokens?: number): object {
	const sum =
		typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
			? usage.prompt_tokens + usage.completion_tokens
			: undefined;
	return {
		input_tokens: usage.prompt_tokens,
		input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
		output_tokens: usage.completion_tokens,
		output_tokens_details: { reasoning_tokens: reasoningTokens ?? 0 },
		total_tokens: sum,
	};
}

/** The Response object: `completed`, or `incomplete` with its reason for a length or filtered finish. */
export function responsesObject(
	request: ScriptedRequest,
	reply: WireReply,
	usage: WireUsage,
): object {
	const incompleteReason = INCOMPLETE_REASONS[reply.finishReason ?? 'stop'];
	return {
		...responseHead(request, incompleteReason ? 'incomplete' : 'completed'),
		incomplete_details: incompleteReason ? { reason: incompleteReason } : null,
		output: outputItems(request, reply),
		usage: responsesUsage(usage, reply.reasoningTokens),
	};
}

function responseHead(request: ScriptedRequest, status: string): object {
	return {
		id: `resp_scripted_${request.callIndex}`,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		status,
		error: null,
		incomplete_details: null,
		instructions: request.body.instructions ?? null,
		model: request.model,
		output: [],
		parallel_tool_calls: true,
		tool_choice: request.body.tool_choice ?? 'auto',
		tools: request.body.tools ?? [],
		usage: null,
	};
}

/**
 * The streamed events, each named in its `event:` line and numbered by `sequence_number`:
 * `response.created`, `response.in_progress`, then per output item `response.output_item.added`, its text
 * (`response.content_part.added`, `response.output_text.delta` pieces, `…done`) or its arguments
 * (`response.function_call_arguments.delta`/`.done`), `response.output_item.done`, and last
 * `response.completed` (or `response.incomplete`) with the whole Response.
 */
export function responsesStreamEvents(
	request: ScriptedRequest,
	reply: WireReply,
	usage: WireUsage,
	pieces: string[],
): StreamEvent[] {
	const events: StreamEvent[] = [];
	const event = (type: string, fields: object, piece = false) => {
		events.push({
			event: type,
			data: JSON.stringify({ type, ...fields, sequence_number: events.length }),
			piece,
		});
	};
	const final = responsesObject(request, reply, usage) as {
		status: string;
		output: Array<{ id: string }>;
	};
	event('response.created', { response: responseHead(request, 'in_progress') });
	event('response.in_progress', { response: responseHead(request, 'in_progress') });
	final.output.forEach((item: any, output_index) => {
		if (item.type === 'message') {
			const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
			const at = { item_id: item.id, output_index, content_index: 0 };
			event('response.output_item.added', {
				output_index,
				item: { ...item, status: 'in_progress', content: [] },
			});
			event('response.content_part.added', { ...at, part });
			for (const delta of pieces)
				event('response.output_text.delta', { ...at, delta, logprobs: [] }, true);
			event('response.output_text.done', { ...at, text: reply.text, logprobs: [] });
			event('response.content_part.done', { ...at, part: { ...part, text: reply.text } });
		} else {
			event('response.output_item.added', {
				output_index,
				item: { ...item, status: 'in_progress', arguments: '' },
			});
			event('response.function_call_arguments.delta', {
				item_id: item.id,
				output_index,
				delta: item.arguments,
			});
			event('response.function_call_arguments.done', {
				item_id: item.id,
				output_index,
				arguments: item.arguments,
			});
		}
		event('response.output_item.done', { output_index, item });
	});
	event(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
		response: final,
	});
	return events;
}

/** The `error` event a stream that fails midway carries ([ON-client] ResponseErrorEvent). */
export function responsesStreamError(message: string, sequenceNumber: number): StreamEvent {
	return {
		event: 'error',
		data: JSON.stringify({
			type: 'error',
			code: 'server_error',
			message,
			param: null,
			sequence_number: sequenceNumber,
		}),
		piece: false,
	};
}
