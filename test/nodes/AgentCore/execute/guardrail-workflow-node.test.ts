// Issue #50: version 2's Guardrail Workflow in n8n's engine — an n8n workflow that judges the run at its Guardrail
// Points: it denies a call, blocks an answer, rewrites args; one that fails or answers with two items fails closed.
import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { action, final, lastUserMessage, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	createSubWorkflowTriggerNode,
} from '../../../support/test-nodes';

const seen: Array<Record<string, unknown>> = [];

/** The guardrail workflow's judge: what a workflow builder would write with an IF and a Set node, in one test node. */
class Judge implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Judge',
		name: 'judge',
		group: ['transform'],
		version: 1,
		description: 'test',
		defaults: { name: 'Judge' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const item = this.getInputData()[0].json as Record<string, any>;
		seen.push(item);
		const decide = (json: IDataObject): INodeExecutionData[][] => [
			[{ json, pairedItem: { item: 0 } }],
		];
		if (item.point === 'before_tool' && item.args?.id === 'c-9')
			return decide({ decision: 'deny', reason: 'customer c-9 is off limits' });
		if (item.point === 'before_tool' && item.args?.id === 'c-8')
			return decide({ decision: 'modify', args: { id: 'c-7' } });
		if (item.point === 'after_run' && String(item.answer).includes('secret'))
			return decide({ decision: 'block', reason: 'the answer mentions a secret' });
		if (item.args?.id === 'c-666') throw new Error('the judge broke');
		if (item.args?.id === 'c-2')
			return [[{ json: { decision: 'allow' } }, { json: { decision: 'allow' } }]];
		return decide({ decision: 'allow' });
	}
}

/** The tool the agent calls: a workflow that echoes the customer it was asked for. */
class Lookup implements INodeType {
	description: INodeTypeDescription = {
		...new Judge().description,
		displayName: 'Lookup',
		name: 'lookup',
		defaults: { name: 'Lookup' },
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			[{ json: { id: this.getInputData()[0].json.id, name: 'Ada' }, pairedItem: { item: 0 } }],
		];
	}
}

describe('version 2’s Guardrail Workflow in n8n’s engine', () => {
	const server = useScriptedServer();
	beforeEach(() => void (seen.length = 0));

	async function run(options: Record<string, unknown> = {}) {
		return runWorkflow({
			nodes: [
				createInputNode([{ chatInput: 'Who is the customer?' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
						inputMode: 'prompt',
						prompt: '={{ $json.chatInput }}',
						options: {
							workflowTools: {
								tools: [
									{
										name: 'lookup_customer',
										description: 'Finds a customer.',
										workflowId: { __rl: true, mode: 'id', value: 'lookup' },
										argsSchema: JSON.stringify({
											type: 'object',
											properties: { id: { type: 'string' } },
											required: ['id'],
										}),
									},
								],
							},
							guardrailWorkflow: {
								__rl: true,
								mode: 'id',
								value: 'judge',
								cachedResultName: 'Judge',
							},
							...options,
						},
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore(), judge: new Judge(), lookup: new Lookup() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'demo', url: server().openaiBaseUrl } },
			workflows: {
				judge: {
					nodes: [createSubWorkflowTriggerNode(), createNode({ name: 'Judge', type: 'judge' })],
					connections: connectInSequence('When Called', 'Judge'),
				},
				lookup: {
					nodes: [createSubWorkflowTriggerNode(), createNode({ name: 'Lookup', type: 'lookup' })],
					connections: connectInSequence('When Called', 'Lookup'),
				},
			},
		});
	}
	const output = (result: Awaited<ReturnType<typeof run>>) =>
		result.outputOf('Agent Core')[0].json as Record<string, any>;

	it('is called at each default point with the point’s content, and a deny refuses the call while the run goes on', async () => {
		server().setScript([
			action('lookup_customer', { id: 'c-9' }),
			final('I may not look that up.'),
		]);
		const json = output(await run());
		expect(json.finish_reason).toBe('final');
		expect(seen.map((item) => item.point)).toEqual(['before_run', 'before_tool', 'after_run']);
		expect(seen[0]).toMatchObject({
			input: 'Who is the customer?',
			step: 0,
			run_id: expect.any(String),
		});
		expect(seen[1]).toMatchObject({ tool: 'lookup_customer', args: { id: 'c-9' }, step: 1 });
		expect(lastUserMessage(server(), 1)).toContain('customer c-9 is off limits');
		expect(json.trace[0].guardrails[0]).toMatchObject({
			name: 'guardrail workflow "Judge"',
			decision: 'deny',
		});
	});

	it('rewrites a call’s args, which run as rewritten', async () => {
		server().setScript([action('lookup_customer', { id: 'c-8' }), final('done')]);
		const result = await run({ guardrailPoints: ['before_tool'] });
		expect(result.executeWorkflowCalls.filter((call) => call.workflowId === 'lookup')).toEqual([
			{ workflowId: 'lookup', items: [{ json: { id: 'c-7' } }] },
		]);
	});

	it('blocks an answer: the item ends `guardrail` and the chat output says so in one sentence, without the answer', async () => {
		server().setScript([final('The secret code is 1234')]);
		const json = output(await run({ guardrailPoints: ['after_run'] }));
		expect(json.finish_reason).toBe('guardrail');
		expect(json.output).toBe('No answer: a guardrail stopped the run.');
		expect(JSON.stringify(json)).not.toContain('1234');
	});

	it.each([
		['fails', 'c-666', /guardrail workflow "Judge" failed at before_tool/],
		['returns two items', 'c-2', /returned 2 items/],
	])('a workflow that %s fails closed: the tool never runs', async (_, id, detail) => {
		server().setScript([action('lookup_customer', { id }), final('never')]);
		const result = await run({ guardrailPoints: ['before_tool'] });
		const json = output(result);
		expect(json.finish_reason).toBe('guardrail');
		expect(json.stop_detail).toMatch(detail);
		expect(result.executeWorkflowCalls.some((call) => call.workflowId === 'lookup')).toBe(false);
	});

	it('refuses empty Guardrail Points with a Guardrail Workflow, naming the fix', async () => {
		server().setScript([final('never')]);
		const result = await run({ guardrailPoints: [] });
		expect(result.errorOf('Agent Core')?.message).toMatch(/Guardrail Points is empty/);
		expect(server().requests).toHaveLength(0);
	});
});
