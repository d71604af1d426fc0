// Issue #33: Options → Return Intermediate Steps gives Agent Core's output n8n's AI Agent's `intermediateSteps`, in n8n's engine.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

const API_KEY = 'sk-test-openai-key-123456';

describe('Agent Core version 2: Return Intermediate Steps', () => {
	const server = useScriptedServer();

	/** The last run's AI events, as n8n records them (credential mode). */
	let aiEvents: Array<{ event: string; msg: string }> = [];

	async function run(options: INodeParameters) {
		const parameters: INodeParameters = {
			provider: 'openai',
			model: { __rl: true, mode: 'id', value: 'scripted-model' },
			allowedTools: ['json_transform'],
			options: { maxSteps: 6, ...options },
		};
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'total the order' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters,
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'Scripted OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: API_KEY, url: server().openaiBaseUrl } },
		});
		aiEvents = result.aiEvents;
		return result.outputOf('Agent Core')[0].json;
	}

	/** Two calls that return, one that fails in between, the first with the credential's key in its args. */
	const script = () =>
		server().setScript([
			action('json_transform', {
				data: { token: API_KEY, items: [{ price: 2 }, { price: 3 }] },
				expression: 'sum(items[*].price)',
			}),
			action('json_transform', {
				data: { items: [{ price: 2 }] },
				expression: 'average(items[*].price)',
			}),
			action('json_transform', {
				data: { items: [{ price: 2 }, { price: 3 }] },
				expression: 'length(items)',
			}),
			final('5 in total, 2 items'),
		]);

	it('adds no intermediateSteps while the option is off (the default)', async () => {
		script();
		const json = await run({});
		expect(json.finish_reason).toBe('final');
		expect(json).not.toHaveProperty('intermediateSteps');
	});

	it("lists each tool call in n8n's AI Agent shape, the failed one with the error the model read, the key redacted", async () => {
		script();
		const json = await run({ returnIntermediateSteps: true });
		expect(json.finish_reason).toBe('final');
		const call = (step: number, toolInput: IDataObject) => {
			const toolCallId = `agent_core_step_${step}`;
			const message = {
				type: 'ai',
				content: [],
				additional_kwargs: {},
				response_metadata: {},
				tool_calls: [
					{ id: toolCallId, name: 'json_transform', args: toolInput, type: 'tool_call' },
				],
				invalid_tool_calls: [],
			};
			return {
				tool: 'json_transform',
				toolInput,
				log: 'Calling json_transform',
				messageLog: [message],
				toolCallId,
				type: 'tool_call',
			};
		};
		const averageError = (json.trace as IDataObject[])[1].error as IDataObject;
		expect(averageError).toMatchObject({ type: 'tool_error' });
		expect(json.intermediateSteps).toEqual([
			{
				action: call(1, {
					data: { token: '[REDACTED]', items: [{ price: 2 }, { price: 3 }] },
					expression: 'sum(items[*].price)',
				}),
				observation: '5',
			},
			{
				action: call(2, { data: { items: [{ price: 2 }] }, expression: 'average(items[*].price)' }),
				observation: `Error: ${averageError.message}`,
			},
			{
				action: call(3, {
					data: { items: [{ price: 2 }, { price: 3 }] },
					expression: 'length(items)',
				}),
				observation: '2',
			},
		]);
		expect(String(averageError.message)).toMatch(
			/^json_transform failed: invalid JMESPath expression "average\(items\[\*\]\.price\)": Unknown function: average\(\)/,
		);
		// The model read the same error back, in its repair turn.
		const repairTurn = server().requests[2].messages.at(-1)!;
		expect(String(repairTurn.content).split('\n')[0]).toBe(`Error: ${averageError.message}`);
		expect(JSON.stringify(json)).not.toContain(API_KEY);
	});

	it('lists each call of an "actions" batch as its own entry, in the order asked, shaped like a single call, and n8n records an ai-tool-called event per call', async () => {
		const transform = (expression: string, prices: number[]) => ({
			tool: 'json_transform',
			args: { data: { items: prices.map((price) => ({ price })) }, expression },
		});
		server().setScript([
			JSON.stringify({
				type: 'actions',
				calls: [
					transform('sum(items[*].price)', [2, 3]),
					transform('average(items[*].price)', [2]),
					transform('length(items)', [2, 3]),
				],
			}),
			action('json_transform', { data: { n: 7 }, expression: 'n' }),
			final('5 in total, 2 items'),
		]);
		const json = await run({ returnIntermediateSteps: true, maxParallelToolCalls: 4 });
		expect(json.finish_reason).toBe('final');
		const trace = json.trace as IDataObject[];
		expect(trace[0].calls).toHaveLength(3);
		const failed = (trace[0].calls as IDataObject[])[1].error as IDataObject;
		expect(failed).toMatchObject({ type: 'tool_error' });
		const steps = json.intermediateSteps as Array<{ action: IDataObject; observation: string }>;
		expect(
			steps.map((step) => [step.action.toolCallId, step.action.toolInput, step.observation]),
		).toEqual([
			['agent_core_step_1_call_1', transform('sum(items[*].price)', [2, 3]).args, '5'],
			[
				'agent_core_step_1_call_2',
				transform('average(items[*].price)', [2]).args,
				`Error: ${failed.message}`,
			],
			['agent_core_step_1_call_3', transform('length(items)', [2, 3]).args, '2'],
			['agent_core_step_2', { data: { n: 7 }, expression: 'n' }, '7'],
		]);
		// n8n's own record of the run: an ai-tool-called event per call of the batch, the failed one not ok.
		const toolEvents = aiEvents
			.filter((entry) => entry.event === 'ai-tool-called')
			.map((entry) => JSON.parse(entry.msg));
		expect(toolEvents.map(({ step, ok }) => [step, ok])).toEqual([
			[1, true],
			[1, false],
			[1, true],
			[2, true],
		]);
		// Every entry has exactly the keys and message shape of a single call's entry.
		for (const step of steps) {
			expect(Object.keys(step.action).sort()).toEqual(Object.keys(steps[3].action).sort());
			expect(step.action).toMatchObject({
				tool: 'json_transform',
				log: 'Calling json_transform',
				type: 'tool_call',
			});
			expect(step.action.messageLog).toEqual([
				expect.objectContaining({
					type: 'ai',
					tool_calls: [
						{
							id: step.action.toolCallId,
							name: 'json_transform',
							args: step.action.toolInput,
							type: 'tool_call',
						},
					],
				}),
			]);
		}
	});

	it('leaves out a call that never came back to the model: the one max_tool_calls stopped', async () => {
		script();
		const json = await run({ returnIntermediateSteps: true, maxToolCalls: 1 });
		expect(json.finish_reason).toBe('max_tool_calls');
		expect(
			(json.intermediateSteps as IDataObject[]).map(
				(step) => (step.action as IDataObject).toolCallId,
			),
		).toEqual(['agent_core_step_1']);
	});

	it('leaves out the calls of a batch that max_tool_calls stopped, keeping the ones that ran', async () => {
		const call = (expression: string) => ({
			tool: 'json_transform',
			args: { data: { n: 1 }, expression },
		});
		server().setScript([
			JSON.stringify({ type: 'actions', calls: [call('n'), call('n + `1`'), call('abs(n)')] }),
			final('x'),
		]);
		const json = await run({
			returnIntermediateSteps: true,
			maxParallelToolCalls: 4,
			maxToolCalls: 1,
		});
		expect(json.finish_reason).toBe('max_tool_calls');
		expect((json.trace as IDataObject[])[0].calls).toHaveLength(3);
		expect(
			(json.intermediateSteps as IDataObject[]).map(
				(step) => (step.action as IDataObject).toolCallId,
			),
		).toEqual(['agent_core_step_1_call_1']);
	});

	it('is not in version 1, whose panel stays as published', () => {
		const optionNames = (version: 1 | 2) =>
			(
				new AgentCore().nodeVersions[version].description.properties.find(
					(property) => property.name === 'options',
				)!.options as Array<{ name: string }>
			).map((option) => option.name);
		expect(optionNames(2)).toContain('returnIntermediateSteps');
		expect(optionNames(1)).not.toContain('returnIntermediateSteps');
	});
});
