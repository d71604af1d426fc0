/** What an openai-node error means for the call: its words, whether to retry, which refused field to drop. */
import type { ChatRequest } from '../chat-model';
import type { DroppableField } from '../refused-fields';
import { withUpstreamReason } from '../provider-errors';
import { decideByStatus, type RetryDecision } from '../retry';
import { openAiSdk } from './sdk';
import { promptCacheKey } from './wire';

/**
 * openai-node words an error `<status> <error.message>` ([ON-err]), which reads well, except where a router
 * puts the real reason in the body's metadata (OpenRouter's 429 "Provider returned error"): then the
 * reason is added. The error keeps its class and fields.
 */
export function withReadableMessage(error: unknown): unknown {
	if (!(error instanceof openAiSdk().APIError)) return error;
	const readable = withUpstreamReason(error.message, error.error);
	if (readable) error.message = readable;
	return error;
}

export function classifyOpenAiError(error: unknown, streaming: boolean): RetryDecision {
	if (error instanceof openAiSdk().APIUserAbortError) return { retry: false };
	if (error instanceof openAiSdk().APIConnectionError) return { retry: true };
	// An error event inside a 200 stream: openai-node throws it without a status and never retries it ([ON-stream]).
	if (error instanceof openAiSdk().APIError && error.status === undefined) return { retry: false };
	if (error instanceof openAiSdk().APIError) return decideByStatus(error.status, error.headers);
	// A stream whose connection broke mid-reply fails with undici's TypeError ("terminated"): a connection
	// error like any other, retried after the text already passed on is voided. By name: it may come from another realm.
	if (streaming && (error as Error | null)?.name === 'TypeError') return { retry: true };
	return { retry: false };
}

/**
 * The request field a 400/422 refuses, when it is one the call can do without: `response_format` (an
 * endpoint without JSON mode), a user-set `temperature` (GPT-5 and o-series models accept only their
 * default: provider-behaviours.md §1.1, `param: "temperature"`, code `unsupported_value` or
 * `unsupported_parameter`), `prompt_cache_key` (compatible servers that refuse unknown fields) or, on a streamed
 * call, `stream_options`.
 */
export function refusedField(
	error: unknown,
	request: ChatRequest,
	dropped: ReadonlySet<DroppableField>,
): DroppableField | undefined {
	if (!(error instanceof openAiSdk().APIError) || (error.status !== 400 && error.status !== 422))
		return undefined;
	if (
		request.responseFormat.type !== 'text' &&
		!dropped.has('response_format') &&
		(error.param === 'response_format' ||
			/response_format|json_object|json_schema/i.test(error.message))
	) {
		// A refused schema first falls back to plain JSON mode, once; JSON mode refused too, to none.
		return request.responseFormat.type === 'json_schema' && !dropped.has('json_schema')
			? 'json_schema'
			: 'response_format';
	}
	if (
		request.temperature !== undefined &&
		!dropped.has('temperature') &&
		(error.param === 'temperature' || /'temperature'/.test(error.message))
	) {
		return 'temperature';
	}
	if (
		!dropped.has('prompt_cache_key') &&
		promptCacheKey(request.messages) &&
		(error.param === 'prompt_cache_key' || /prompt_cache_key/.test(error.message))
	) {
		return 'prompt_cache_key';
	}
	// OpenAI-compatible servers that stream but predate stream_options refuse the field.
	if (
		request.onTextDelta &&
		!dropped.has('stream_options') &&
		(error.param === 'stream_options' || /stream_options/.test(error.message))
	) {
		return 'stream_options';
	}
	return undefined;
}
