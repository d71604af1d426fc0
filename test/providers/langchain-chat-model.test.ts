import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
	AIMessage,
	AIMessageChunk,
	type AIMessageFields,
	type BaseMessage,
	type ContentBlock,
} from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { ChatOpenAI } from '@langchain/openai';
import { LangChainChatModel } from '../../src/providers/langchain';
import { runAgent, type AgentEvent, type ChatRequest } from '../../src';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { action, final, probeTool, useScriptedServer } from '../support/agent';

/**
 * The adapter from an n8n chat model sub-node (a LangChain chat model) to the engine's ChatModel, driven
 * with real LangChain objects: @langchain/openai's ChatOpenAI over real HTTP to the scripted server, and
 * @langchain/core's own chat model classes where only the transport is replaced.
 */
const API_KEY = 'sk-langchain-test-key-4242';

/** ChatOpenAI as n8n's OpenAI Chat Model builds it, pointed at the scripted server; no LangChain retries. */
function chatOpenAi(server: ScriptedServer): ChatOpenAI {
	return new ChatOpenAI({
		apiKey: API_KEY,
		model: 'gpt-4o-mini',
		maxRetries: 0,
		configuration: { baseURL: server.openaiBaseUrl },
	});
}

/** A plain engine request, for calling the adapter directly. */
function requestOf(overrides: Partial<ChatRequest> = {}): ChatRequest {
	return {
		model: 'ignored-by-the-adapter',
		messages: [{ role: 'user', content: 'hello' }],
		responseFormat: { type: 'text' },
		signal: new AbortController().signal,
		...overrides,
	};
}

/** Waits (polling) for something the server notices after the client has already moved on. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe('a LangChain ChatOpenAI as the engine model', () => {
	const server = useScriptedServer();

	it('runs a tool step and then a final answer, recording the sub-node’s provider and model', async () => {
		server().setScript([action('probe', { value: 3 }), final('the probe said 3')]);
		const probe = probeTool();
		const result = await runAgent({
			model: new LangChainChatModel(chatOpenAi(server())),
			config: { model: 'not-the-sub-node-model', allowed_tools: ['probe'] },
			prompt: 'use the probe',
			extraTools: [probe.tool],
		});

		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('the probe said 3');
		expect(probe.calls).toEqual([{ value: 3 }]);
		expect(result.trace.map((step) => [step.provider, step.model])).toEqual([
			['openai', 'gpt-4o-mini'],
			['openai', 'gpt-4o-mini'],
		]);
		// The engine's conversation reached the server as chat messages, the observation included.
		expect(server().requests.map((request) => request.model)).toEqual([
			'gpt-4o-mini',
			'gpt-4o-mini',
		]);
		expect(server().requests[1].messages.map((message) => message.role)).toEqual([
			'system',
			'user',
			'assistant',
			'user',
		]);
		expect(server().requests[1].messages[3].content).toContain('"echoed"');
	});

	it('reports the usage, the reasoning tokens and a cut-off reply as finish reason length', async () => {
		server().setScript({
			text: '{"type":"final","answer":"cut',
			finishReason: 'length',
			usage: { prompt_tokens: 11, completion_tokens: 7 },
			reasoningTokens: 3,
		});
		const response = await new LangChainChatModel(chatOpenAi(server())).generate(requestOf());

		expect(response).toMatchObject({
			text: '{"type":"final","answer":"cut',
			usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, reasoning_tokens: 3 },
			finishReason: 'length',
		});
	});

	it('names the tools of a native tool call that came instead of text', async () => {
		server().setScript({ text: '', toolCalls: [{ name: 'web_search', arguments: { q: 'x' } }] });
		const response = await new LangChainChatModel(chatOpenAi(server())).generate(requestOf());

		expect(response).toMatchObject({
			text: '',
			nativeToolCalls: ['web_search'],
			finishReason: 'stop',
		});
	});

	it('streams the final answer as answer_delta events when the run has a listener', async () => {
		server().setScript({
			chunks: ['{"type":"final",', '"answer":"streamed ', 'through LangChain"}'],
		});
		const events: AgentEvent[] = [];
		const result = await runAgent({
			model: new LangChainChatModel(chatOpenAi(server())),
			config: { model: 'gpt-4o-mini' },
			prompt: 'q',
			onEvent: (event) => {
				events.push(event);
			},
		});

		expect(result.final_answer).toBe('streamed through LangChain');
		expect(server().requests[0].streamed).toBe(true);
		const deltas = events.flatMap((event) => (event.type === 'answer_delta' ? [event.text] : []));
		expect(deltas.length).toBeGreaterThan(0);
		expect(deltas.join('')).toBe('streamed through LangChain');
	});

	it('does not stream without a listener', async () => {
		server().setScript(final('whole'));
		await runAgent({
			model: new LangChainChatModel(chatOpenAi(server())),
			config: { model: 'gpt-4o-mini' },
			prompt: 'q',
		});

		expect(server().requests[0].streamed).toBe(false);
	});

	it.each([
		['json_object', { type: 'json_object' }],
		// No tools: the compiled protocol fits OpenAI's strict subset, so it goes strict.
		[
			'json_schema',
			{
				type: 'json_schema',
				json_schema: expect.objectContaining({
					name: 'agent_turn',
					strict: true,
					schema: expect.objectContaining({ required: ['type', 'answer'] }),
				}),
			},
		],
		['off', undefined],
	] as const)(
		'asks ChatOpenAI for JSON mode %s through response_format',
		async (jsonMode, expected) => {
			server().setScript(final('json'));
			const result = await runAgent({
				model: new LangChainChatModel(chatOpenAi(server())),
				config: { model: 'gpt-4o-mini', json_mode: jsonMode },
				prompt: 'q',
			});

			expect(result.final_answer).toBe('json');
			expect(server().requests[0].body.response_format).toEqual(expected);
		},
	);

	it.each([
		['a plain call', { text: final('too late'), delayMs: 60_000 }, undefined],
		[
			'a stream',
			{ chunks: ['{"type":"final",', '"answer":"too late"}'], chunkDelayMs: 60_000 },
			() => undefined,
		],
	])(
		'ends %s that hangs at the run timeout and closes the connection',
		async (_what, reply, onEvent) => {
			server().setScript(reply);
			const result = await runAgent({
				model: new LangChainChatModel(chatOpenAi(server())),
				config: { model: 'gpt-4o-mini', timeout: 1 },
				prompt: 'q',
				onEvent,
			});

			expect(result.finish_reason).toBe('timeout');
			expect(server().requests[0].streamed).toBe(onEvent !== undefined);
			await eventually(
				() => server().requests[0]?.clientLeftEarly === true,
				'the server to see the client leave',
			);
		},
	);

	it('passes a provider error on with its HTTP status', async () => {
		server().setScript({ status: 401, errorMessage: 'Incorrect API key provided' });
		const result = await runAgent({
			model: new LangChainChatModel(chatOpenAi(server())),
			config: { model: 'gpt-4o-mini' },
			prompt: 'q',
		});

		expect(result.finish_reason).toBe('llm_error');
		expect(result.trace[0].error).toMatchObject({ type: 'llm_error', status: 401 });
		expect(result.trace[0].error?.message).toContain('Incorrect API key provided');
	});

	it('has the engine redact the sub-node’s API key from everything it returns', async () => {
		server().setScript(final(`my key is ${API_KEY}`));
		const model = new LangChainChatModel(chatOpenAi(server()));
		const result = await runAgent({ model, config: { model: 'gpt-4o-mini' }, prompt: 'q' });

		expect(model.secrets).toContain(API_KEY);
		expect(result.finish_reason).toBe('final');
		expect(JSON.stringify(result)).not.toContain(API_KEY);
	});
});

describe('what the adapter refuses', () => {
	it.each([
		['nothing', undefined],
		['a string', 'gpt-4o-mini'],
		['an object without invoke', { model: 'gpt-4o-mini', apiKey: 'x' }],
	])('refuses %s with a message naming the Chat Model input', (_what, value) => {
		expect(() => new LangChainChatModel(value)).toThrow(
			/^The Chat Model input is not a chat model/,
		);
	});
});

/**
 * A LangChain chat model whose reply is the AIMessage built from `reply`, so a test can give it the shape a
 * provider package produces (content blocks, metadata, usage). Only the transport is replaced: invoke,
 * message coercion and the merging of generation info into `response_metadata` are @langchain/core's.
 */
class ReplyingChatModel extends BaseChatModel {
	readonly received: BaseMessage[][] = [];
	anthropicApiKey = 'sk-ant-thinking-key-777';

	constructor(
		private readonly llmType: string,
		private readonly reply: AIMessageFields,
		private readonly generationInfo?: Record<string, unknown>,
	) {
		super({});
	}

	_llmType(): string {
		return this.llmType;
	}

	async _generate(messages: BaseMessage[]): Promise<ChatResult> {
		this.received.push(messages);
		return {
			generations: [
				{ text: '', message: new AIMessage(this.reply), generationInfo: this.generationInfo },
			],
		};
	}
}

/** A reply like @langchain/anthropic's with extended thinking: a thinking block before the text. */
function thinkingModel(text: string): ReplyingChatModel {
	return new ReplyingChatModel('anthropic', {
		content: [
			{ type: 'thinking', thinking: 'The user wants x.', signature: 'sig' },
			{ type: 'redacted_thinking', data: 'opaque' },
			{ type: 'text', text },
		],
		usage_metadata: { input_tokens: 20, output_tokens: 9, total_tokens: 29 },
		response_metadata: { stop_reason: 'end_turn' },
	});
}

describe('reasoning from LangChain content blocks', () => {
	it('keeps thinking blocks out of the text and reports them as reasoning', async () => {
		const model = thinkingModel(final('x'));
		const adapter = new LangChainChatModel(model);
		const response = await adapter.generate(
			requestOf({
				messages: [
					{ role: 'system', content: 'be brief' },
					{ role: 'user', content: 'q' },
					{ role: 'assistant', content: 'a' },
					{ role: 'user', content: 'q2' },
				],
			}),
		);

		expect(response).toEqual({
			text: final('x'),
			reasoning: 'The user wants x.',
			usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
			usageReported: true,
			finishReason: 'stop',
		});
		expect(adapter.provider).toBe('anthropic');
		expect(adapter.secrets).toEqual(['sk-ant-thinking-key-777']);
		// The plain {role, content} messages became LangChain's own message classes.
		expect(model.received[0].map((message) => [message.getType(), message.content])).toEqual([
			['system', 'be brief'],
			['human', 'q'],
			['ai', 'a'],
			['human', 'q2'],
		]);
	});

	it("runs an agent to its final answer when the reply carries thinking blocks, recording them as the step's reasoning", async () => {
		const result = await runAgent({
			model: new LangChainChatModel(thinkingModel(final('x'))),
			config: { model: 'claude' },
			prompt: 'q',
		});

		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('x');
		expect(result.trace[0].reasoning).toBe('The user wants x.');
	});

	it('streams only the text pieces, and joins the thinking pieces into the reasoning', async () => {
		const chunk = (block: ContentBlock) => new AIMessageChunk({ content: [block] });
		const model = new FakeStreamingChatModel({
			chunks: [
				chunk({ index: 0, type: 'thinking', thinking: 'Let me ' }),
				chunk({ index: 0, type: 'thinking', thinking: 'think.' }),
				chunk({ index: 1, type: 'text', text: '{"type":"final",' }),
				chunk({ index: 1, type: 'text', text: '"answer":"y"}' }),
			],
		});
		const pieces: string[] = [];
		const response = await new LangChainChatModel(model).generate(
			requestOf({ onTextDelta: (piece) => pieces.push(piece) }),
		);

		expect(pieces).toEqual(['{"type":"final",', '"answer":"y"}']);
		expect(response.text).toBe(final('y'));
		expect(response.reasoning).toBe('Let me think.');
	});

	it('reads DeepSeek-style reasoning_content from additional_kwargs', async () => {
		const model = new FakeStreamingChatModel({
			chunks: [
				new AIMessageChunk({
					content: final('z'),
					additional_kwargs: { reasoning_content: 'because' },
				}),
			],
		});
		const response = await new LangChainChatModel(model).generate(
			requestOf({ onTextDelta: () => undefined }),
		);

		expect(response).toMatchObject({ text: final('z'), reasoning: 'because' });
	});
});

describe('finish reasons and usage as each provider package reports them', () => {
	it.each([
		['OpenAI chat completions', 'openai', { finish_reason: 'content_filter' }, 'content_filter'],
		['Gemini under finishReason', 'googlegenerativeai', { finishReason: 'MAX_TOKENS' }, 'length'],
		['Gemini under finish_reason', 'vertexai', { finish_reason: 'SAFETY' }, 'content_filter'],
		['Anthropic end_turn', 'anthropic', { stop_reason: 'end_turn' }, 'stop'],
		['Anthropic max_tokens', 'anthropic', { stop_reason: 'max_tokens' }, 'length'],
		[
			'Anthropic context window',
			'anthropic',
			{ stop_reason: 'model_context_window_exceeded' },
			'length',
		],
		['Anthropic refusal', 'anthropic', { stop_reason: 'refusal' }, 'content_filter'],
		['Anthropic pause_turn', 'anthropic', { stop_reason: 'pause_turn' }, 'other'],
		['Ollama length', 'ollama', { done_reason: 'length' }, 'length'],
		['Responses API completed', 'openai', { status: 'completed' }, 'stop'],
		[
			'Responses API cut off',
			'openai',
			{ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
			'length',
		],
		[
			'Responses API filtered',
			'openai',
			{ status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
			'content_filter',
		],
		['nothing', 'custom', {}, undefined],
	] as const)('%s', async (_what, llmType, metadata, expected) => {
		// Through generationInfo, as the provider packages put it; @langchain/core moves it into response_metadata.
		const response = await new LangChainChatModel(
			new ReplyingChatModel(llmType, { content: 'text' }, metadata),
		).generate(requestOf());

		expect(response.finishReason).toBe(expected);
	});

	it('treats an OpenAI refusal as a content filter', async () => {
		const model = new ReplyingChatModel(
			'openai',
			{ content: '', additional_kwargs: { refusal: 'I cannot help with that.' } },
			{ finish_reason: 'stop' },
		);
		expect((await new LangChainChatModel(model).generate(requestOf())).finishReason).toBe(
			'content_filter',
		);
	});

	it.each([
		[
			'LangChain tokenUsage',
			{ tokenUsage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 } },
			{ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
		],
		[
			'raw OpenAI usage',
			{
				usage: {
					prompt_tokens: 5,
					completion_tokens: 4,
					total_tokens: 9,
					completion_tokens_details: { reasoning_tokens: 1 },
				},
			},
			{ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9, reasoning_tokens: 1 },
		],
		[
			'raw Anthropic usage',
			{ usage: { input_tokens: 6, output_tokens: 3 } },
			{ prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 },
		],
		[
			'Ollama eval counts',
			{ prompt_eval_count: 8, eval_count: 2 },
			{ prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 },
		],
		['nothing', {}, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }],
	])('reads usage from %s when there is no usage_metadata', async (_what, metadata, expected) => {
		const response = await new LangChainChatModel(
			new ReplyingChatModel('custom', { content: 'text', response_metadata: metadata }),
		).generate(requestOf());

		expect(response.usage).toEqual(expected);
	});

	it('names the provider of the common sub-node classes as the engine’s own adapters do', () => {
		const providers = ['openai', 'anthropic', 'googlegenerativeai', 'ollama', 'bedrock'].map(
			(type) => new LangChainChatModel(new ReplyingChatModel(type, { content: '' })).provider,
		);
		expect(providers).toEqual(['openai', 'anthropic', 'gemini', 'ollama', 'bedrock']);
	});
});
