import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { runAgent } from '../../src';
import {
	addUsage,
	estimateWhenUnreported,
	sanitiseUsage,
	type TokenUsage,
} from '../../src/core/usage';
import type { ChatModel, ChatRequest } from '../../src/providers/chat-model';
import { LangChainChatModel } from '../../src/providers/langchain';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { action, final, modelFor, probeTool, useScriptedServer } from '../support/agent';

/**
 * Issue #29: cached and cache-write prompt tokens, read exactly as each provider reports them, as parts of
 * `prompt_tokens`. Every call goes through the real SDK or LangChain class over HTTP to the scripted server,
 * which sends the counts in each API's own fields (provider-behaviours.md: [ON-usage], [GG-types], [AN-msg]);
 * the counts are those of the realworld case each test names.
 */

/** One call of `model`, streamed (with a text listener) or not. */
function call(model: ChatModel, streamed: boolean): ReturnType<ChatModel['generate']> {
	const request: ChatRequest = {
		model: 'm',
		messages: [{ role: 'user', content: 'q' }],
		responseFormat: { type: 'text' },
		signal: new AbortController().signal,
	};
	return model.generate(streamed ? { ...request, onTextDelta: () => undefined } : request);
}

const ways = [
	['plain', false],
	['streamed', true],
] as const;

describe('the engine’s own adapters read cached prompt tokens as parts of the prompt', () => {
	const server = useScriptedServer();

	it.each(ways)(
		'OpenAI chat completions (%s): prompt_tokens_details.cached_tokens and cache_write_tokens, exactly',
		async (_how, streamed) => {
			// pyd:test_cache/test_openrouter_cache_all_settings_real_api#2: prompt 2572, of which 2240 read from and 329 written to the cache.
			server().setScript({
				text: final('ok'),
				usage: {
					prompt_tokens: 2572,
					completion_tokens: 100,
					cached_tokens: 2240,
					cache_write_tokens: 329,
				},
			});
			const response = await call(modelFor(server(), 'openai'), streamed);

			expect(server().requests[0].streamed).toBe(streamed);
			expect(response.usage).toEqual({
				prompt_tokens: 2572,
				completion_tokens: 100,
				total_tokens: 2672,
				cached_tokens: 2240,
				cache_write_tokens: 329,
			});
		},
	);

	it('OpenAI chat completions streamed: cached tokens beside reasoning tokens, each in its own detail', async () => {
		// vercel:xai:xai-text.chunks.txt: prompt 12 with 11 cached, completion 1 beside 290 reasoning tokens.
		server().setScript({
			text: final('ok'),
			usage: { prompt_tokens: 12, completion_tokens: 1, cached_tokens: 11 },
			reasoningTokens: 290,
		});
		const response = await call(modelFor(server(), 'openai'), true);

		expect(response.usage).toEqual({
			prompt_tokens: 12,
			completion_tokens: 1,
			total_tokens: 13,
			reasoning_tokens: 290,
			cached_tokens: 11,
		});
	});

	it.each(ways)(
		'Gemini (%s): usageMetadata.cachedContentTokenCount, inside promptTokenCount',
		async (_how, streamed) => {
			// genai:Client_Tests_generateContent_ML_Dev_should_generate_content_with_given_valid_json_schema_in_responseSchema#0:
			// promptTokenCount 5 with cachedContentTokenCount 3, candidates 238, thoughts 41, total 284.
			server().setScript({
				text: final('ok'),
				usage: { prompt_tokens: 5, completion_tokens: 238, cached_tokens: 3 },
				reasoningTokens: 41,
			});
			const response = await call(modelFor(server(), 'gemini'), streamed);

			expect(server().requests[0]).toMatchObject({ provider: 'gemini', streamed });
			expect(response.usage).toEqual({
				prompt_tokens: 5,
				completion_tokens: 279,
				total_tokens: 284,
				reasoning_tokens: 41,
				cached_tokens: 3,
			});
		},
	);

	it('a reply without cache counts has no cached keys at all', async () => {
		server().setScript({ text: final('ok'), usage: { prompt_tokens: 20, completion_tokens: 4 } });
		const response = await call(modelFor(server(), 'openai'), false);

		expect(response.usage).toEqual({ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 });
	});
});

describe('n8n’s LangChain chat models read cached prompt tokens as parts of the prompt', () => {
	const server = useScriptedServer();
	const claude = (target: ScriptedServer) =>
		new LangChainChatModel(
			new ChatAnthropic({
				anthropicApiKey: 'sk-ant-test',
				model: 'claude-sonnet-4-5',
				anthropicApiUrl: target.url,
				maxRetries: 0,
			}),
		);
	const gpt = (target: ScriptedServer, useResponsesApi = false) =>
		new LangChainChatModel(
			new ChatOpenAI({
				apiKey: 'test-key',
				model: 'gpt-4o-mini',
				maxRetries: 0,
				useResponsesApi,
				configuration: { baseURL: target.openaiBaseUrl },
			}),
		);

	it.each(ways)(
		'ChatAnthropic (%s): cache_read_input_tokens are cached, cache_creation_input_tokens written, both in the prompt',
		async (_how, streamed) => {
			// vercel:anthropic:anthropic-code-execution-20260120-prompt-cache.1.chunks.txt: input 6 + 3337 written + 6289 read = 9632.
			server().setScript({
				text: final('ok'),
				usage: {
					prompt_tokens: 9632,
					completion_tokens: 198,
					cached_tokens: 6289,
					cache_write_tokens: 3337,
				},
			});
			const response = await call(claude(server()), streamed);

			expect(server().requests[0]).toMatchObject({ provider: 'anthropic', streamed });
			expect(response.usage).toEqual({
				prompt_tokens: 9632,
				completion_tokens: 198,
				total_tokens: 9830,
				cached_tokens: 6289,
				cache_write_tokens: 3337,
			});
		},
	);

	it('ChatOpenAI (plain): usage_metadata.input_token_details.cache_read', async () => {
		// vercel:deepseek/chat:deepseek-json.json: prompt 495 with 320 cached.
		server().setScript({
			text: final('ok'),
			usage: { prompt_tokens: 495, completion_tokens: 144, cached_tokens: 320 },
		});
		const response = await call(gpt(server()), false);

		expect(response.usage).toEqual({
			prompt_tokens: 495,
			completion_tokens: 144,
			total_tokens: 639,
			cached_tokens: 320,
		});
	});

	it('ChatOpenAI (streamed): cache_read from usage_metadata, cache_write_tokens from the raw usage LangChain keeps', async () => {
		// pyd:test_cache/test_openrouter_cache_all_settings_real_api#2 (OpenRouter, Claude behind an OpenAI-compatible API).
		server().setScript({
			text: final('ok'),
			usage: {
				prompt_tokens: 2572,
				completion_tokens: 100,
				cached_tokens: 2240,
				cache_write_tokens: 329,
			},
		});
		const response = await call(gpt(server()), true);

		expect(server().requests[0].streamed).toBe(true);
		expect(response.usage).toEqual({
			prompt_tokens: 2572,
			completion_tokens: 100,
			total_tokens: 2672,
			cached_tokens: 2240,
			cache_write_tokens: 329,
		});
	});

	it.each(ways)(
		'ChatOpenAI on the Responses API (%s): usage.input_tokens_details.cached_tokens',
		async (_how, streamed) => {
			// vercel:openai/responses:openai-file-search-tool.1.chunks.txt: input 3737 with 2304 cached.
			server().setScript({
				text: final('ok'),
				usage: { prompt_tokens: 3737, completion_tokens: 621, cached_tokens: 2304 },
			});
			const response = await call(gpt(server(), true), streamed);

			expect(server().requests[0]).toMatchObject({ provider: 'openai-responses', streamed });
			expect(response.usage).toEqual({
				prompt_tokens: 3737,
				completion_tokens: 621,
				total_tokens: 4358,
				cached_tokens: 2304,
			});
		},
	);
});

describe('a run’s total usage', () => {
	const server = useScriptedServer();

	it('adds each step’s cached and cache-write tokens, as it adds the prompt tokens they are part of', async () => {
		const probe = probeTool();
		server().setScript([
			{
				text: action('probe', { value: 1 }),
				usage: { prompt_tokens: 2572, completion_tokens: 63, cache_write_tokens: 2569 },
			},
			{
				text: final('done'),
				usage: {
					prompt_tokens: 2700,
					completion_tokens: 20,
					cached_tokens: 2569,
					cache_write_tokens: 100,
				},
			},
		]);
		const result = await runAgent({
			model: modelFor(server(), 'openai'),
			extraTools: [probe.tool],
			config: { model: 'gpt-4o-mini', allowed_tools: ['probe'] },
			prompt: 'q',
		});

		expect(result.finish_reason).toBe('final');
		expect(probe.calls).toHaveLength(1);
		expect(result.trace.map((step) => step.usage)).toEqual([
			{ prompt_tokens: 2572, completion_tokens: 63, total_tokens: 2635, cache_write_tokens: 2569 },
			{
				prompt_tokens: 2700,
				completion_tokens: 20,
				total_tokens: 2720,
				cached_tokens: 2569,
				cache_write_tokens: 100,
			},
		]);
		expect(result.usage).toEqual({
			prompt_tokens: 5272,
			completion_tokens: 83,
			total_tokens: 5355,
			cached_tokens: 2569,
			cache_write_tokens: 2669,
		});
	});

	it('keeps no cached keys when no step reported any', () => {
		const total: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
		addUsage(total, sanitiseUsage({ prompt_tokens: 10, completion_tokens: 2 }));
		addUsage(
			total,
			sanitiseUsage({
				prompt_tokens: 10,
				completion_tokens: 2,
				cached_tokens: 0,
				cache_write_tokens: -4,
			}),
		);

		expect(total).toEqual({ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 });
	});
});

describe('sanitiseUsage on cache counts', () => {
	it('clamps cached tokens above the prompt to the prompt', () => {
		expect(sanitiseUsage({ prompt_tokens: 100, completion_tokens: 5, cached_tokens: 250 })).toEqual(
			{ prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, cached_tokens: 100 },
		);
	});

	it('clamps cache-write tokens to what the cached ones leave of the prompt, and drops a part that is then 0', () => {
		expect(
			sanitiseUsage({
				prompt_tokens: 100,
				completion_tokens: 0,
				cached_tokens: 70,
				cache_write_tokens: 50,
			}),
		).toMatchObject({ cached_tokens: 70, cache_write_tokens: 30 });
		expect(
			sanitiseUsage({
				prompt_tokens: 100,
				completion_tokens: 0,
				cached_tokens: 100,
				cache_write_tokens: 50,
			}),
		).toEqual({ prompt_tokens: 100, completion_tokens: 0, total_tokens: 100, cached_tokens: 100 });
	});

	it('reads a string, negative or NaN cache count as none, and rounds a fraction', () => {
		const usage = sanitiseUsage({
			prompt_tokens: 100,
			completion_tokens: 1,
			cached_tokens: '60',
			cache_write_tokens: -3,
		});
		expect(usage).toEqual({ prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 });
		expect(
			sanitiseUsage({
				prompt_tokens: 100,
				completion_tokens: 1,
				cached_tokens: Number.NaN,
				cache_write_tokens: 2.6,
			}),
		).toEqual({
			prompt_tokens: 100,
			completion_tokens: 1,
			total_tokens: 101,
			cache_write_tokens: 3,
		});
	});

	it('an estimated prompt carries no cache parts of the unreported one', () => {
		const usage = estimateWhenUnreported(
			sanitiseUsage({ prompt_tokens: 900, completion_tokens: 0, cached_tokens: 800 }),
			{
				text: 'hi',
				usage: { prompt_tokens: 900, completion_tokens: 0, total_tokens: 900 },
				usageReported: false,
			},
			[{ role: 'user', content: 'q' }],
		);
		expect(usage.estimated).toBe(true);
		expect(usage.cached_tokens).toBeUndefined();
		expect(usage.cache_write_tokens).toBeUndefined();
	});
});
