// A run that ends without an answer on first try (issue #28): `output`, the field n8n's chat shows, holds one sentence saying why, never nothing.
import type { INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { limitWords } from '../../nodes/AgentCore/execute/output/limit-words';
import { SETTINGS } from '../../src';
import { action, final, useScriptedServer } from '../support/agent';
import { runWorkflow } from '../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../support/test-nodes';

/** One sentence: a capital first, one full stop at the end and none before, no line break, no JSON. */
const ONE_SENTENCE = /^[A-Z][^\n{}]*[^.]\.$/;

describe('Agent Core in n8n’s engine: a run without an answer says why in output', () => {
	const server = useScriptedServer();

	async function chat(parameters: INodeParameters, typeVersion = 1) {
		const result = await runWorkflow({
			nodes: [
				createInputNode([
					{
						sessionId: 's1',
						action: 'sendMessage',
						chatInput: 'How many items are there? [1,2,3]',
					},
				]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'scripted-model' },
						allowedTools: ['json_transform'],
						...parameters,
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'Scripted OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'sk-test-key-123456', url: server().openaiBaseUrl },
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return result.outputOf('Agent Core')[0].json;
	}

	it('a step limit puts one sentence naming the limit in output, and the item stays a regular one', async () => {
		server().setScript([
			action('json_transform', { data: [1, 2, 3], expression: 'length(@)' }),
			final('3 items'),
		]);
		const json = await chat({ limits: { maxSteps: 1 } });

		expect(json.finish_reason).toBe('max_steps');
		expect(json.final_answer).toBe('');
		// In the panel's words, with the value the user set and the fix (issue #41), never the engine's max_steps.
		expect(json.output).toBe(
			'No answer: the agent used all 1 of its Max Steps (Limits); raise it.',
		);
		expect(json.output).toMatch(ONE_SENTENCE);
		expect(server().requests).toHaveLength(1);
	});

	it('names the value the run had when the field was left at its default', () => {
		const steps = SETTINGS.max_steps.default;
		expect(limitWords('max_steps', {}, 2)).toBe(
			`the agent used all ${steps} of its Max Iterations (Options); raise it`,
		);
		expect(limitWords('final', {}, 2)).toBeUndefined();
	});

	it('version 2 names the limit as its panel does: Max Iterations, under Options', async () => {
		server().setScript([
			action('json_transform', { data: [1, 2, 3], expression: 'length(@)' }),
			final('3 items'),
		]);
		const json = await chat({ options: { maxSteps: 1 } }, 2);
		expect(json.output).toBe(
			'No answer: the agent used all 1 of its Max Iterations (Options); raise it.',
		);
	});

	it('a run with an answer keeps the answer in output, unchanged', async () => {
		server().setScript(final('There are 3 items.'));
		const json = await chat({});

		expect(json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'There are 3 items.',
			output: 'There are 3 items.',
		});
	});
});
