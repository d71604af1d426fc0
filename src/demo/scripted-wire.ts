/**
 * The bytes the scripted server answers with, shaped as the real APIs send them
 * (../shared/reference/provider-behaviours.md; keys in brackets name its sources).
 */
import { anthropicError } from './scripted-anthropic';
import { ollamaError } from './scripted-ollama';
import type { Provider, ScriptedRequest, WireReply, WireUsage } from './scripted-types';
export type { Provider, WireReply, WireUsage } from './scripted-types';

const GEMINI_STATUS_NAMES: Record<number, string> = {
	400: 'INVALID_ARGUMENT',
	401: 'UNAUTHENTICATED',
	403: 'PERMISSION_DENIED',
	404: 'NOT_FOUND',
	409: 'ABORTED',
	429: 'RESOURCE_EXHAUSTED',
	499: 'CANCELLED',
	500: 'INTERNAL',
	501: 'UNIMPLEMENTED',
	503: 'UNAVAILABLE',
	504: 'DEADLINE_EXCEEDED',
};

export function openAiCompletion(
	request: ScriptedRequest,
	reply: WireReply,
	usage: WireUsage,
): object {
	const toolCalls = reply.toolCalls?.map((call, index) => ({
		id: `call_scripted_${index}`,
		type: 'function',
		function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
	}));
	const message = toolCalls
		? {
				role: 'assistant',
				content: reply.text === '' ? null : reply.text,
				refusal: null,
				tool_calls: toolCalls,
			}
		: {
				role: 'assistant',
				content: reply.refusal ? null : reply.text,
				refusal: reply.refusal ?? null,
				...(reply.reasoning ? { [reply.reasoning.field]: reply.reasoning.text } : {}),
			};
	const finishReason = reply.finishReason ?? (toolCalls ? 'tool_calls' : 'stop');
	return {
		id: `chatcmpl-scripted-${request.callIndex}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
		choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
		usage: openAiUsage(usage, reply.reasoningTokens),
	};
}

/**
 * [ON-usage]: reasoning tokens are counted inside completion_tokens and detailed apart; cached and
 * cache-write tokens inside prompt_tokens, detailed in `prompt_tokens_details` (`cache_write_tokens` as
 * OpenRouter sends it, realworld case `pyd:test_cache/test_openrouter_cache_all_settings_real_api#2`).
 */
export function openAiUsage(usage: WireUsage, reasoningTokens?: number): object {
	const { cached_tokens: cached, cache_write_tokens: cacheWrite, ...counts } = usage;
	const sum =
		typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
			? usage.prompt_tokens + usage.completion_tokens
			: undefined;
	const promptDetails = {
		...(cached === undefined ? {} : { cached_tokens: cached }),
		...(cacheWrite === undefined ? {} : { cache_write_tokens: cacheWrite }),
	};
	return {
		total_tokens: sum,
		...counts,
		...(Object.keys(promptDetails).length ? { prompt_tokens_details: promptDetails } : {}),
		...(reasoningTokens === undefined
			? {}
			: { completion_tokens_details: { reasoning_tokens: reasoningTokens } }),
	};
}

export function geminiCompletion(
	request: ScriptedRequest,
	reply: WireReply,
	usage: WireUsage,
): object {
	const usageMetadata = geminiUsage(usage, reply.reasoningTokens);
	if (reply.promptBlocked)
		return {
			promptFeedback: { blockReason: reply.promptBlocked },
			usageMetadata,
			modelVersion: request.model,
		};
	const parts: object[] = [];
	if (reply.text !== '') parts.push({ text: reply.text });
	for (const call of reply.toolCalls ?? [])
		parts.push({ functionCall: { name: call.name, args: call.arguments ?? {} } });
	const finishReason = reply.finishReason ?? 'STOP';
	// A filtered candidate carries no parts ([GG-types] SAFETY: "content is empty"); `{role}` only, one of the two seen forms.
	const content = parts.length > 0 ? { role: 'model', parts } : { role: 'model' };
	return {
		candidates: [{ content, finishReason, index: 0 }],
		usageMetadata,
		modelVersion: request.model,
		responseId: `scripted-${request.callIndex}`,
	};
}

/**
 * [GG-rec-think]: thoughts are reported apart, and candidatesTokenCount is left out when no visible text was
 * made. [GG-types]: the cached part of the prompt is `cachedContentTokenCount`, detailed by modality in
 * `cacheTokensDetails` as a recorded reply has it (realworld case
 * `genai:Client_Tests_generateContent_ML_Dev_should_generate_content_with_given_valid_json_schema_in_responseSchema#0`).
 */
export function geminiUsage(usage: WireUsage, thoughts?: number): object {
	const prompt = usage.prompt_tokens;
	const candidates = usage.completion_tokens;
	const cached = usage.cached_tokens;
	const total =
		typeof prompt === 'number' && typeof candidates === 'number'
			? prompt + candidates + (thoughts ?? 0)
			: usage.total_tokens;
	return {
		...(cached === undefined
			? {}
			: {
					cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cached }],
					cachedContentTokenCount: cached,
				}),
		promptTokenCount: prompt,
		...(candidates === 0 && thoughts ? {} : { candidatesTokenCount: candidates }),
		...(thoughts === undefined ? {} : { thoughtsTokenCount: thoughts }),
		totalTokenCount: total,
	};
}

/**
 * The error body each API sends ([ON-err] `{"error":{message,type,param,code}}`, [GG-errors] `{"error":{code,message,status}}`,
 * Anthropic's and Ollama's in their own files; the Responses API's is OpenAI's).
 */
export function errorBody(
	provider: Provider,
	status: number,
	message: string,
	fields: { param?: string | null; code?: string | null } = {},
): object {
	if (provider === 'anthropic') return anthropicError(status, message);
	if (provider === 'ollama') return ollamaError(message);
	if (provider === 'gemini') {
		const statusName =
			GEMINI_STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
		return { error: { code: status, message, status: statusName } };
	}
	// Type and code as the real API reports them, since adapters may branch on them.
	const type =
		status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
	const code =
		fields.code !== undefined
			? fields.code
			: status === 429
				? 'rate_limit_exceeded'
				: status === 401
					? 'invalid_api_key'
					: null;
	return { error: { message, type, param: fields.param ?? null, code } };
}

/**
 * What a GPT-5-family model refuses (provider-behaviours.md §1.1 [I-temp-gpt5], §1.2 [I-maxtok]): any
 * temperature but its default 1, and `max_tokens`. The Gemini form is the same rule in Gemini's error
 * shape, for a model configured to take only its default (Gemini itself documents no such refusal).
 * Other formats have their own refusals (e.g. `anthropicSamplingRefusal`).
 */
export function reasoningModelRefusal(
	provider: Provider,
	body: any,
): { status: number; body: object } | undefined {
	if (provider === 'openai') {
		if (body.temperature !== undefined && body.temperature !== 1) {
			const message = `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`;
			return {
				status: 400,
				body: errorBody('openai', 400, message, {
					param: 'temperature',
					code: 'unsupported_value',
				}),
			};
		}
		if (body.max_tokens !== undefined) {
			const message =
				"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
			return {
				status: 400,
				body: errorBody('openai', 400, message, {
					param: 'max_tokens',
					code: 'unsupported_parameter',
				}),
			};
		}
		return undefined;
	}
	if (provider !== 'gemini') return undefined;
	const temperature = body.generationConfig?.temperature;
	if (temperature !== undefined && temperature !== 1) {
		const message = `Invalid value at 'generation_config.temperature' (${temperature}): this model supports only the default temperature.`;
		return { status: 400, body: errorBody('gemini', 400, message) };
	}
	return undefined;
}
