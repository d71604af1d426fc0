import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { ExecutionRedis } from '../../../../nodes/AgentCore/execute/governance/execution-redis';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

const OPENAI_CREDENTIAL = { agentCoreOpenAiApi: { id: '1', name: 'Scripted OpenAI' } };
const GEMINI_CREDENTIAL = { agentCoreGeminiApi: { id: '2', name: 'Scripted Gemini' } };

describe('Agent Core node inside n8n’s execution engine', () => {
	const server = useScriptedServer();

	function agentNode(parameters: INodeParameters, settings: Record<string, unknown> = {}) {
		return createNode({
			name: 'Agent Core',
			type: 'agentCore',
			parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, ...parameters },
			settings: { credentials: OPENAI_CREDENTIAL, ...settings },
		});
	}

	async function run(
		items: IDataObject[],
		parameters: INodeParameters,
		settings: Record<string, unknown> = {},
	) {
		return runWorkflow({
			nodes: [createInputNode(items), agentNode(parameters, settings)],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'sk-test-openai-key-123456', url: server().openaiBaseUrl },
				agentCoreGeminiApi: { apiKey: 'gemini-test-key-123456', host: server().geminiBaseUrl },
			},
		});
	}

	it('answers one item per input item with the run output shape (final_answer, finish_reason, trace, used_tools), paired with its input', async () => {
		server().setScript((request) =>
			final(`answer to ${request.messages[request.messages.length - 1].content}`),
		);
		const result = await run([{ prompt: 'first' }, { prompt: 'second' }], {});
		const output = result.outputOf('Agent Core');
		expect(output).toHaveLength(2);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(output[0].json).toMatchObject({
			final_answer: 'answer to first',
			finish_reason: 'final',
			used_tools: {},
			usage: { total_tokens: expect.any(Number) },
			messages: [
				{ role: 'user', content: 'first' },
				{ role: 'assistant', content: 'answer to first' },
			],
		});
		expect(Array.isArray(output[0].json.trace)).toBe(true);
		expect((output[0].json.trace as IDataObject[])[0]).toMatchObject({
			step: 1,
			final: { answer: 'answer to first' },
			repair: false,
		});
	});

	it('answers a Chat Trigger message (chatInput, sessionId) with the default fields, the reply also in output', async () => {
		server().setScript((request) =>
			final(`chat reply to ${request.messages[request.messages.length - 1].content}`),
		);
		const result = await run(
			[{ action: 'sendMessage', sessionId: 'chat-session-1', chatInput: 'hello from the chat' }],
			{},
		);
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({
			final_answer: 'chat reply to hello from the chat',
			output: 'chat reply to hello from the chat',
			session_id: 'chat-session-1',
		});
	});

	it("reads a Webhook node's body.prompt with the default Prompt, and chatInput before prompt", async () => {
		server().setScript((request) =>
			final(`got ${request.messages[request.messages.length - 1].content}`),
		);
		const result = await run(
			[
				{ headers: {}, body: { prompt: 'from the webhook body' } },
				{ chatInput: 'the chat message', prompt: 'older field' },
			],
			{},
		);
		expect(result.outputOf('Agent Core').map((item) => item.json.output)).toEqual([
			'got from the webhook body',
			'got the chat message',
		]);
	});

	it('runs whitelisted tools with panel limits and tool settings, the trace holding objects', async () => {
		server().setScript([
			action('json_transform', { data: { a: [1, 2, 3] }, expression: 'sum(a)' }),
			final('6'),
		]);
		const result = await run([{ prompt: 'sum it' }], {
			allowedTools: ['json_transform'],
			limits: { maxSteps: 3, observationMaxLen: 100 },
			developerText: 'Be terse.',
		});
		const json = result.outputOf('Agent Core')[0].json;
		expect(json.final_answer).toBe('6');
		expect(json.used_tools).toMatchObject({ json_transform: { count: 1 } });
		expect((json.trace as IDataObject[])[0]).toMatchObject({
			action: { tool: 'json_transform' },
			observation: '6',
		});
		expect(server().requests[0].messages[0].content).toContain('Be terse.');
		expect(server().requests[0].messages[0].content).not.toContain('Examples');
	});

	it('sends the few-shot examples with every call when Options → Examples in Prompt is Always', async () => {
		server().setScript(final('ok'));
		await run([{ prompt: 'hi' }], { options: { promptExamples: 'always' } });
		expect(server().requests[0].messages[0].content).toContain('Examples (format only');
	});

	it('ends with the limit’s finish_reason as a normal item, not an error', async () => {
		server().setScript(action('json_transform', { data: 1, expression: '@' }));
		const result = await run([{ prompt: 'loop' }], {
			allowedTools: ['json_transform'],
			limits: { maxSteps: 2 },
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({
			finish_reason: 'max_steps',
			final_answer: '',
		});
	});

	it('makes no Redis owner for an execution whose items use nothing that needs Redis', async () => {
		server().setScript(() => final('done'));
		const close = jest.spyOn(ExecutionRedis.prototype, 'close');
		try {
			const result = await run([{ prompt: 'first' }, { prompt: 'second' }], {});
			expect(result.outputOf('Agent Core')).toHaveLength(2);
			expect(close).not.toHaveBeenCalled();
		} finally {
			close.mockRestore();
		}
	});

	it('talks to Gemini through its credential', async () => {
		server().setScript(final('from gemini'));
		const result = await run(
			[{ prompt: 'hi' }],
			{ provider: 'gemini' },
			{ credentials: GEMINI_CREDENTIAL },
		);
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({
			final_answer: 'from gemini',
			provider: 'gemini',
		});
		expect(server().requests[0].provider).toBe('gemini');
	});

	it('takes a conversation from messages_json', async () => {
		server().setScript(final('second answer'));
		const messages = [
			{ role: 'user', content: 'q1' },
			{ role: 'assistant', content: 'a1' },
			{ role: 'user', content: 'q2' },
		];
		const result = await run([{ messages_json: messages }], { inputMode: 'messages' });
		expect(result.outputOf('Agent Core')[0].json.messages).toEqual([
			{ role: 'user', content: 'q2' },
			{ role: 'assistant', content: 'second answer' },
		]);
		expect(server().requests[0].messages.map((message) => message.role)).toEqual([
			'system',
			'user',
			'assistant',
			'user',
		]);
	});

	it('keeps the API key out of the output', async () => {
		server().setScript(final('the key was sk-test-openai-key-123456'));
		const result = await run([{ prompt: 'leak it' }], {});
		expect(JSON.stringify(result.outputOf('Agent Core'))).not.toContain(
			'sk-test-openai-key-123456',
		);
	});

	it('fails the execution on an empty prompt with an error naming the field', async () => {
		const result = await run([{ prompt: '' }], {});
		const error = result.errorOf('Agent Core');
		expect(error?.message).toContain('no input: set prompt');
		expect(server().requests).toHaveLength(0);
	});

	it('with continueOnFail, turns a bad item into an error item and still answers the good one', async () => {
		server().setScript(final('fine'));
		const result = await run(
			[{ messages_json: '[{"role":"user"' }, { messages_json: [{ role: 'user', content: 'ok' }] }],
			{ inputMode: 'messages' },
			{ continueOnFail: true },
		);
		const output = result.outputOf('Agent Core');
		expect(output[0]).toEqual({
			json: { error: expect.stringContaining('messages_json is not valid JSON') },
			pairedItem: { item: 0 },
		});
		expect(output[1].json).toMatchObject({ final_answer: 'fine' });
	});

	it.each([
		[{ limits: { maxSteps: 0 } }, 'max_steps must be an integer from 1 to 1000'],
		[{ toolSettingsJson: '{"http_request": ' }, 'Tool Settings (JSON) is not valid JSON'],
		[
			{ toolSettingsJson: '{"http_request": {"allowed_methods": ["TRACE"]}}' },
			'tool_settings.http_request.allowed_methods[0]',
		],
		[{ model: { __rl: true, mode: 'id', value: '={{ $json.no_such_field }}' } }, 'Model is empty'],
	])('refuses bad panel settings %j before calling the model', async (parameters, message) => {
		const result = await run([{ prompt: 'x' }], parameters as INodeParameters);
		expect(result.errorOf('Agent Core')?.message).toContain(message);
		expect(server().requests).toHaveLength(0);
	});
});
