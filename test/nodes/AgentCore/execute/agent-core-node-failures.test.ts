import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

const CREDENTIALS = {
	openai: { agentCoreOpenAiApi: { id: '1', name: 'Scripted OpenAI' } },
	gemini: { agentCoreGeminiApi: { id: '2', name: 'Scripted Gemini' } },
};
const WRONG_KEY = {
	status: 401,
	errorMessage:
		'Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.',
};

describe('Agent Core node: failures n8n can act on (On Model Error, On Limit Reached)', () => {
	const server = useScriptedServer();

	async function run(
		parameters: INodeParameters,
		settings: Record<string, unknown> = {},
		provider: 'openai' | 'gemini' = 'openai',
	) {
		return runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'hello' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: {
						provider,
						model: { __rl: true, mode: 'id', value: 'scripted-model' },
						...parameters,
					},
					settings: { credentials: CREDENTIALS[provider], ...settings },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'sk-wrong-key-123456', url: server().openaiBaseUrl },
				agentCoreGeminiApi: { apiKey: 'gemini-wrong-key-123456', host: server().geminiBaseUrl },
			},
		});
	}

	it.each(['openai', 'gemini'] as const)(
		'fails the node on a wrong %s API key with the provider’s 401 and its message',
		async (provider) => {
			server().setScript(WRONG_KEY);
			const result = await run({}, {}, provider);

			const error = result.errorOf('Agent Core') as Error & {
				httpCode?: string;
				description?: string;
			};
			expect(error).toBeDefined();
			expect(error.message).toMatch(/^model call failed: .*401/);
			expect(error.message).toContain('Incorrect API key provided');
			expect(error.httpCode).toBe('401');
			expect(error.description).toMatch(/API key/);
			expect(result.run.status).toBe('error');
			// A 401 is not retried by the adapter: one call.
			expect(server().requests).toHaveLength(1);
		},
	);

	it("lets n8n's Retry On Fail run the node again, one model call per try", async () => {
		server().setScript(WRONG_KEY);
		const result = await run({}, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });

		expect(result.errorOf('Agent Core')?.message).toContain('401');
		expect(server().requests).toHaveLength(2);
	});

	it("answers from n8n's second try when the first one failed", async () => {
		server().setScript([WRONG_KEY, final('second try worked')]);
		const result = await run({}, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });

		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(server().requests).toHaveLength(2);
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({
			final_answer: 'second try worked',
			output: 'second try worked',
			finish_reason: 'final',
		});
	});

	it('with Continue On Fail (regular output), gives an error item with the partial trace, usage and finish_reason', async () => {
		server().setScript([
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			WRONG_KEY,
		]);
		const result = await run(
			{ allowedTools: ['json_transform'] },
			{ onError: 'continueRegularOutput' },
		);

		expect(result.errorOf('Agent Core')).toBeUndefined();
		const [failed] = result.outputOf('Agent Core');
		expect(failed.json).toMatchObject({
			error: expect.stringContaining('Incorrect API key'),
			status: 401,
			finish_reason: 'llm_error',
			used_tools: { json_transform: { count: 1 } },
		});
		const trace = failed.json.trace as IDataObject[];
		expect(trace).toHaveLength(2);
		expect(trace[0]).toMatchObject({ action: { tool: 'json_transform' }, observation: '2' });
		expect(trace[1]).toMatchObject({ error: { type: 'llm_error', status: 401 } });
		expect((failed.json.usage as IDataObject).total_tokens).toBeGreaterThan(0);
	});

	it('sends the failed run to the error output (Continue using error output), with its message', async () => {
		server().setScript(WRONG_KEY);
		const result = await run({}, { onError: 'continueErrorOutput' });

		expect(result.outputOf('Agent Core', 0)).toEqual([]);
		const errorItems = result.outputOf('Agent Core', 1);
		expect(errorItems).toHaveLength(1);
		expect(errorItems[0].json.error).toMatch(/^model call failed: .*401 Incorrect API key/);
	});

	it('fails the node when the run times out, naming the limit', async () => {
		server().setScript({ text: final('too late'), delayMs: 4000 });
		const result = await run({ limits: { timeout: 0.3 } });

		const error = result.errorOf('Agent Core') as Error & {
			httpCode?: string | null;
			description?: string;
		};
		expect(error.message).toMatch(/timeout|time limit|timed out/i);
		expect(error.httpCode ?? undefined).toBeUndefined();
		expect(error.description).toMatch(/Run Timeout/);
	});

	it('returns the run as an item, as before, when On Model Error is Return the Run as an Item', async () => {
		server().setScript(WRONG_KEY);
		const result = await run({ options: { onModelError: 'returnItem' } });

		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({
			finish_reason: 'llm_error',
			final_answer: '',
			output:
				'No answer: the model call failed (model call failed: 401 Incorrect API key provided: sk-wrong).',
			trace: [{ error: { type: 'llm_error', status: 401 } }],
		});
	});

	it('sends a limit to the error output only when On Limit Reached is Fail the Node', async () => {
		server().setScript(action('json_transform', { data: 1, expression: '@' }));
		const parameters = { allowedTools: ['json_transform'], limits: { maxSteps: 1 } };

		const byDefault = await run(parameters, { onError: 'continueErrorOutput' });
		expect(byDefault.outputOf('Agent Core', 0)[0].json).toMatchObject({
			finish_reason: 'max_steps',
		});
		expect(byDefault.outputOf('Agent Core', 1)).toEqual([]);

		const routed = await run(
			{ ...parameters, options: { onLimitReached: 'fail' } },
			{ onError: 'continueErrorOutput' },
		);
		expect(routed.outputOf('Agent Core', 0)).toEqual([]);
		expect(routed.outputOf('Agent Core', 1)[0].json.error).toMatch(/max_steps \(1\)/);

		const regular = await run(
			{ ...parameters, options: { onLimitReached: 'fail' } },
			{ onError: 'continueRegularOutput' },
		);
		expect(regular.outputOf('Agent Core')[0].json).toMatchObject({
			error: expect.stringMatching(/max_steps/),
			finish_reason: 'max_steps',
			trace: [expect.any(Object)],
		});
		expect(regular.outputOf('Agent Core')[0].json.status).toBeUndefined();
	});
});
