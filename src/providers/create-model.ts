import { createHash } from 'node:crypto';
import pLimit, { type Limit } from 'p-limit';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model';
import { GeminiChatModel } from './gemini';
import { OpenAiChatModel } from './openai';
import { checkKnownOptions, type OptionNames } from '../core/known-options';

export type ProviderName = 'openai' | 'gemini';

/**
 * High enough not to be the bottleneck of a busy n8n process (at 8, a 2-core n8n topped out near
 * 8 ÷ (2 calls × call time) runs per second in the webhook benchmark), low enough to queue a burst.
 */
export const DEFAULT_MAX_CONCURRENT_CALLS = 64;

export interface ProviderOptions {
	provider: ProviderName;
	apiKey: string;
	baseUrl?: string;
	maxRetries?: number;
	/** Model calls allowed at once per credential (API key + base URL) in this process; default 64. */
	maxConcurrentCalls?: number;
	/** Binds the model to this model id (`modelName`), e.g. for a fallback that is another model than `config.model`. */
	model?: string;
}

/** createChatModel's option names (checkKnownOptions refuses any other, e.g. the openai SDK's `baseURL`). */
export const PROVIDER_OPTIONS = {
	provider: true,
	apiKey: true,
	baseUrl: true,
	maxRetries: true,
	maxConcurrentCalls: true,
	model: true,
} satisfies OptionNames<ProviderOptions>;

/**
 * One limiter per credential and process: runs of many workflow items or executions share it, so a burst
 * queues here instead of drawing 429s. Process-local on purpose: each n8n worker caps its own calls.
 */
const limiters = new Map<string, { limit: Limit; size: number }>();

function limiterFor(key: string, size: number): Limit {
	const existing = limiters.get(key);
	if (existing && existing.size === size) return existing.limit;
	const limit = pLimit(size);
	limiters.set(key, { limit, size });
	return limit;
}

/** Builds the provider adapter, wrapped in the per-credential concurrency cap. */
export function createChatModel(options: ProviderOptions): ChatModel {
	checkKnownOptions('createChatModel', options, PROVIDER_OPTIONS);
	const size = options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS;
	if (!Number.isInteger(size) || size < 1)
		throw new Error('maxConcurrentCalls must be an integer ≥ 1');
	const inner: ChatModel =
		options.provider === 'gemini'
			? new GeminiChatModel({
					apiKey: options.apiKey,
					baseUrl: options.baseUrl,
					maxRetries: options.maxRetries,
				})
			: new OpenAiChatModel({
					apiKey: options.apiKey,
					baseUrl: options.baseUrl,
					maxRetries: options.maxRetries,
				});
	const credentialKey = createHash('sha256')
		.update(`${options.provider}\n${options.baseUrl ?? ''}\n${options.apiKey}`)
		.digest('hex');
	const limit = limiterFor(credentialKey, size);
	return {
		provider: inner.provider,
		...(options.model ? { modelName: options.model } : {}),
		secrets: inner.secrets,
		// A call that waited in the queue past its deadline is not sent at all.
		generate: (request: ChatRequest): Promise<ChatResponse> =>
			limit(() =>
				request.signal.aborted ? Promise.reject(request.signal.reason) : inner.generate(request),
			),
		listModels: inner.listModels?.bind(inner),
	};
}
