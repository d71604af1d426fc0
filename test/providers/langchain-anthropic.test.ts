import { ChatAnthropic } from '@langchain/anthropic';
import { runAgent, type AgentEvent } from '../../src';
import { LangChainChatModel } from '../../src/providers/langchain';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { final, useScriptedServer } from '../support/agent';

/**
 * Issue #27, item 1: Claude through n8n's Anthropic Chat Model sub-node, i.e. @langchain/anthropic's real
 * ChatAnthropic (1.5.6, the version n8n 2.41.1 ships) over HTTP to the scripted server, which sends each
 * behaviour the realworld recordings show (case ids cited per test). Streamed, ChatAnthropic's own chunks
 * lose the stop reason and restate usage wrongly; these tests prove the adapter reads what Anthropic sent.
 */
const API_KEY = 'sk-ant-langchain-test-key-5151';
const CLAUDE = 'claude-sonnet-4-5';

/** ChatAnthropic as n8n's Anthropic Chat Model builds it ([N-anth]: the credential's URL, streaming off), without LangChain retries. */
function chatAnthropic(server: ScriptedServer, maxRetries = 0): ChatAnthropic {
	return new ChatAnthropic({
		anthropicApiKey: API_KEY,
		model: CLAUDE,
		anthropicApiUrl: server.url,
		maxRetries,
	});
}

async function streamedRun(server: ScriptedServer, prompt = 'q') {
	const events: AgentEvent[] = [];
	const result = await runAgent({
		model: new LangChainChatModel(chatAnthropic(server)),
		config: { model: CLAUDE },
		prompt,
		onEvent: (event) => events.push(event),
	});
	return { result, events };
}

describe('Claude streamed through LangChain ChatAnthropic', () => {
	const server = useScriptedServer();

	it('ends a streamed refusal content_filter with Anthropic’s explanation, after one call and no repair turn', async () => {
		// vercel:anthropic:anthropic-refusal.chunks.txt: stop_reason "refusal" only in message_delta, with stop_details.
		const explanation =
			"This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.";
		server().setScript([
			{
				text: '',
				finishReason: 'content_filter',
				usage: { prompt_tokens: 18, completion_tokens: 5 },
				anthropic: { stopDetails: { category: 'cyber', explanation } },
			},
			final('never asked for'),
		]);
		const { result } = await streamedRun(server());

		expect(server().requests).toHaveLength(1);
		expect(server().requests[0].streamed).toBe(true);
		expect(result.finish_reason).toBe('content_filter');
		expect(result.stop_detail).toContain(`Anthropic stop_reason refusal (cyber): ${explanation}`);
		expect(result.usage).toMatchObject({
			prompt_tokens: 18,
			completion_tokens: 5,
			total_tokens: 23,
		});
		expect(result.usage.estimated).toBeUndefined();
	});

	it('reads a streamed reply cut at max_tokens as cut: the repair turn says so, and a second cut ends max_output_tokens', async () => {
		// Before, the stop reason was lost when streaming: the cut reply read as broken JSON and the run ended parse_error.
		const cut = {
			chunks: ['{"type":"final",', '"answer":"Once upon a'],
			finishReason: 'length',
			usage: { prompt_tokens: 30, completion_tokens: 12 },
		};
		server().setScript([cut, cut]);
		const { result } = await streamedRun(server());

		expect(server().requests).toHaveLength(2);
		expect(result.trace[0].error?.type).toBe('output_limit');
		expect(server().requests[1].messages.at(-1)?.content).toContain(
			'cut off at the output-token limit',
		);
		expect(result.finish_reason).toBe('max_output_tokens');
	});

	it('counts a streamed reply’s usage exactly: message_start’s output_tokens not added to message_delta’s total', async () => {
		// vercel:anthropic:anthropic-text.chunks.txt (message_start output_tokens 1, message_delta 30: 30, not 31);
		// vercel:anthropic:anthropic-tool-no-args.chunks.txt shows up to 8 in message_start.
		server().setScript([
			{
				chunks: ['{"type":"final",', '"answer":"Hello!"}'],
				usage: { prompt_tokens: 12, completion_tokens: 30 },
				anthropic: { startOutputTokens: 8 },
			},
		]);
		const { result, events } = await streamedRun(server());

		expect(result.final_answer).toBe('Hello!');
		expect(result.usage).toEqual({ prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 });
		expect(
			events
				.filter((event) => event.type === 'answer_delta')
				.map((event) => (event as { text: string }).text)
				.join(''),
		).toBe('Hello!');
	});

	it('counts cache-read and cache-creation tokens in the prompt, and the input that server tools add by the end of the stream', async () => {
		// vercel:anthropic:anthropic-code-execution-20260120-prompt-cache.1.chunks.txt (cache tokens beside input_tokens),
		// vercel:anthropic:anthropic-web-fetch-tool.1.chunks.txt (message_start input 868, message_delta restates 4230).
		server().setScript([
			{
				text: final('fetched'),
				usage: { prompt_tokens: 9_632, completion_tokens: 198 },
				anthropic: {
					cacheCreationTokens: 1_200,
					cacheReadTokens: 5_000,
					startInputTokens: 868,
					startOutputTokens: 5,
				},
			},
		]);
		const { result } = await streamedRun(server());

		expect(result.usage).toEqual({
			prompt_tokens: 9_632,
			completion_tokens: 198,
			total_tokens: 9_830,
			cached_tokens: 5_000,
			cache_write_tokens: 1_200,
		});
	});

	it('counts a repeated message_start once', async () => {
		// vercel:anthropic:duplicate-message-start.chunks.txt: two message_start events of the same message (17 input tokens).
		server().setScript([
			{
				text: final('Hello, World!'),
				usage: { prompt_tokens: 17, completion_tokens: 227 },
				anthropic: { repeatMessageStart: true },
			},
		]);
		const { result } = await streamedRun(server());

		expect(result.final_answer).toBe('Hello, World!');
		expect(result.usage).toEqual({ prompt_tokens: 17, completion_tokens: 227, total_tokens: 244 });
	});

	it('leaves the sub-node’s model object as it was, so its next call (plain) reads usage and stop reason from the reply', async () => {
		const model = chatAnthropic(server());
		const adapter = new LangChainChatModel(model);
		server().setScript([
			{ text: final('one'), usage: { prompt_tokens: 10, completion_tokens: 4 } },
			{
				text: '',
				finishReason: 'content_filter',
				usage: { prompt_tokens: 11, completion_tokens: 0 },
				anthropic: { cacheReadTokens: 6 },
			},
		]);
		const streamed = await runAgent({
			model: adapter,
			config: { model: CLAUDE },
			prompt: 'q',
			onEvent: () => undefined,
		});
		const plain = await runAgent({ model: adapter, config: { model: CLAUDE }, prompt: 'q' });

		expect(Object.prototype.hasOwnProperty.call(model, 'createStreamWithRetry')).toBe(false);
		expect(streamed.usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
		expect(server().requests.map((request) => request.streamed)).toEqual([true, false]);
		expect(plain.finish_reason).toBe('content_filter');
		expect(plain.usage).toMatchObject({
			prompt_tokens: 11,
			completion_tokens: 0,
			total_tokens: 11,
		});
	});
});

describe('Claude’s errors through LangChain ChatAnthropic', () => {
	const server = useScriptedServer();

	it.each([
		['streamed', true],
		['plain', false],
	])(
		'reads a %s 404 as its status and Anthropic’s own message, without the body’s JSON or LangChain’s troubleshooting URL',
		async (_how, streamed) => {
			// pyd:test_model_name_suggestions/test_model_name_suggestion[anthropic]#0: 404 not_found_error "model: claude-sonet-4-5".
			server().setScript([{ status: 404, errorMessage: 'model: claude-sonet-4-5' }]);
			const result = await runAgent({
				model: new LangChainChatModel(chatAnthropic(server())),
				config: { model: CLAUDE },
				prompt: 'q',
				...(streamed ? { onEvent: () => undefined } : {}),
			});

			expect(result.finish_reason).toBe('llm_error');
			expect(result.stop_detail).toBe('model call failed: 404 model: claude-sonet-4-5');
			expect(result.trace[0].error).toMatchObject({ type: 'llm_error', status: 404 });
			expect(JSON.stringify(result)).not.toContain(API_KEY);
		},
	);

	it('retries a 529 as the sub-node’s own Max Retries says, once per retry and not again on top', async () => {
		server().setScript([{ status: 529, errorMessage: 'Overloaded' }, final('after the retry')]);
		const adapter = new LangChainChatModel(chatAnthropic(server(), 1));
		const result = await runAgent({ model: adapter, config: { model: CLAUDE }, prompt: 'q' });

		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'after the retry' });
		expect(server().requests).toHaveLength(2);
		expect(adapter.secrets).toContain(API_KEY);
	});
});
