import { DynamicStructuredTool } from '@langchain/core/tools';
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { z as zod4 } from 'zod';
import { z as zod3 } from 'zod/v3';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { action, final, lastUserMessage, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	createSubWorkflowTriggerNode,
	subNode,
} from '../../../support/test-nodes';

/** The sub-workflow's work: looks a customer up by id (a real node running in the sub-workflow). */
class CustomerLookup implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Customer Lookup',
		name: 'customerLookup',
		group: ['transform'],
		version: 1,
		description: 'test',
		defaults: { name: 'Customer Lookup' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, index) => ({
				json: {
					id: item.json.id,
					name: item.json.id === 'c-7' ? 'Ada Lovelace' : 'unknown',
					plan: 'gold',
				},
				pairedItem: { item: index },
			})),
		];
	}
}

const calls: unknown[] = [];
const multiplyTool = () =>
	new DynamicStructuredTool({
		name: 'multiply',
		description: 'Multiplies two numbers.',
		schema: zod3.object({ a: zod3.number(), b: zod3.number() }),
		func: async ({ a, b }: { a: number; b: number }) => {
			calls.push({ a, b });
			return String(a * b);
		},
	});
const greetTool = () =>
	new DynamicStructuredTool({
		name: 'greet',
		description: 'Greets someone.',
		schema: zod4.object({ who: zod4.string().min(1) }) as never,
		func: async ({ who }: { who: string }) => `Hello, ${who}!`,
	});

describe('Agent Core tools inside n8n’s engine', () => {
	const server = useScriptedServer();
	const credentials = () => ({ agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } });
	const agent = (parameters: Record<string, unknown>) =>
		createNode({
			name: 'Agent Core',
			type: 'agentCore',
			parameters: { model: { __rl: true, mode: 'id', value: 'm' }, ...parameters },
			settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
		});

	const workflowTool = {
		name: 'lookup_customer',
		description: 'Finds a customer by id.',
		workflowId: { __rl: true, mode: 'id', value: 'customers' },
		argsSchema: JSON.stringify({
			type: 'object',
			properties: { id: { type: 'string', pattern: '^c-\\d+$' } },
			required: ['id'],
			additionalProperties: false,
		}),
	};

	async function runWithWorkflowTool(
		options: Record<string, unknown> = {},
		limits: Record<string, unknown> = {},
	) {
		return runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'Who is c-7?' }]),
				agent({ workflowTools: { tools: [workflowTool] }, limits, options }),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore(), customerLookup: new CustomerLookup() },
			credentials: credentials(),
			workflows: {
				customers: {
					nodes: [
						createSubWorkflowTriggerNode(),
						createNode({ name: 'Customer Lookup', type: 'customerLookup' }),
					],
					connections: connectInSequence('When Called', 'Customer Lookup'),
				},
			},
		});
	}

	it('calls a sub-workflow as a tool: validated args in, its output as the observation', async () => {
		server().setScript([action('lookup_customer', { id: 'c-7' }), final('c-7 is Ada Lovelace.')]);
		const result = await runWithWorkflowTool();
		const json = result.outputOf('Agent Core')[0].json;
		expect(json.final_answer).toBe('c-7 is Ada Lovelace.');
		expect(result.executeWorkflowCalls).toEqual([
			{ workflowId: 'customers', items: [{ json: { id: 'c-7' } }] },
		]);
		expect((json.trace as Array<Record<string, unknown>>)[0].observation).toBe(
			'{"id":"c-7","name":"Ada Lovelace","plan":"gold"}',
		);
		expect(server().requests[0].messages[0].content).toContain(
			'lookup_customer: Finds a customer by id.',
		);
	});

	it('links the item and the node run to the sub-execution its workflow tool started, as n8n’s Workflow Tool does', async () => {
		server().setScript([action('lookup_customer', { id: 'c-7' }), final('c-7 is Ada Lovelace.')]);
		const result = await runWithWorkflowTool();
		const item = result.outputOf('Agent Core')[0];
		expect(item.metadata?.subExecution).toEqual({
			executionId: expect.any(String),
			workflowId: 'customers',
		});
		const task = result.run.data.resultData.runData['Agent Core'][0];
		expect(task.metadata).toMatchObject({
			subExecution: item.metadata?.subExecution,
			subExecutionsCount: 1,
		});
	});

	it('never runs a workflow tool twice for an identical call, unless Options → Read-Only Tools names it; Loop Limit ends the run', async () => {
		const lookup = action('lookup_customer', { id: 'c-7' });
		server().setScript([lookup, lookup, final('c-7 is Ada Lovelace.')]);
		const writes = await runWithWorkflowTool();
		expect(writes.executeWorkflowCalls).toHaveLength(1);
		expect(lastUserMessage(server(), 2)).toContain(
			'already ran at step 1 and was not run again, since it has side effects. It returned:',
		);

		server().setScript([lookup, lookup, final('c-7 is Ada Lovelace.')]);
		const reads = await runWithWorkflowTool({ readOnlyTools: 'other_tool, lookup_customer' });
		expect(reads.executeWorkflowCalls).toHaveLength(1);
		expect(lastUserMessage(server(), server().requests.length - 1)).toContain(
			'(repeated call: identical to step 1, not run again; the same result)\n{"id":"c-7"',
		);

		server().setScript([lookup, lookup, final('never reached')]);
		const looped = await runWithWorkflowTool({}, { loopLimit: 2 });
		expect(looped.outputOf('Agent Core')[0].json).toMatchObject({
			finish_reason: 'loop',
			stop_detail: expect.stringMatching(/^lookup_customer was called 2 times/),
		});
	});

	it('refuses args that break the workflow tool’s schema without running the workflow', async () => {
		server().setScript([action('lookup_customer', { id: '7' }), final('gave up')]);
		const result = await runWithWorkflowTool();
		expect(result.executeWorkflowCalls).toHaveLength(0);
		expect(lastUserMessage(server(), 1)).toContain('args.id: must match pattern');
	});

	it('refuses a workflow tool without a name, naming the row', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'x' }]),
				agent({ workflowTools: { tools: [{ ...workflowTool, name: '' }] } }),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: credentials(),
		});
		expect(result.errorOf('Agent Core')?.message).toContain(
			'Workflow Tools → tool 1: Name is empty',
		);
	});

	it('takes n8n tool sub-nodes on its Tool input: zod 3 and zod 4 schemas become JSON Schema checked by ajv', async () => {
		calls.length = 0;
		server().setScript([
			action('multiply', { a: 'six', b: 7 }),
			action('multiply', { a: 6, b: 7 }),
			action('greet', { who: 'Ada' }),
			final('42, and hello'),
		]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'compute' }]),
				agent({}),
				createNode({ name: 'Multiply', type: 'multiplyTool' }),
				createNode({ name: 'Greet', type: 'greetTool' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				Multiply: {
					ai_tool: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiTool, index: 0 }]],
				},
				Greet: { ai_tool: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiTool, index: 0 }]] },
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				multiplyTool: subNode('multiplyTool', NodeConnectionTypes.AiTool, multiplyTool),
				greetTool: subNode('greetTool', NodeConnectionTypes.AiTool, greetTool),
			},
			credentials: credentials(),
		});
		const json = result.outputOf('Agent Core')[0].json;
		const trace = json.trace as Array<Record<string, any>>;
		expect(json.finish_reason).toBe('final');
		expect(trace[0].error).toMatchObject({
			type: 'invalid_args',
			message: expect.stringContaining('args.a: must be number'),
		});
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		expect(trace[1].observation).toBe('42');
		expect(trace[2].observation).toBe('Hello, Ada!');
		expect(json.used_tools).toMatchObject({ multiply: { count: 1 }, greet: { count: 1 } });
		const system = server().requests[0].messages[0].content;
		expect(system).toContain('multiply: Multiplies two numbers.');
		expect(system).toContain('"who":{"type":"string","minLength":1}');
	});
});

describe('redis_context through the Agent Core node', () => {
	const server = useScriptedServer();

	it('uses the node’s Redis credential and keeps values per session across executions', async () => {
		const { getTestRedis, deleteKeysByPrefix, redisCredentialData } = await import(
			'../../../support/redis'
		);
		const { Redis } = await import('ioredis');
		const redis = await getTestRedis();
		const client = new Redis(redis.url);
		const session = `node-kv-${Date.now()}`;
		const execute = (prompt: string) =>
			runWorkflow({
				nodes: [
					createInputNode([{ prompt, session_id: session }]),
					createNode({
						name: 'Agent Core',
						type: 'agentCore',
						parameters: {
							model: { __rl: true, mode: 'id', value: 'm' },
							allowedTools: ['redis_context'],
						},
						settings: {
							credentials: {
								agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
								agentCoreRedisApi: { id: '3', name: 'Redis' },
							},
						},
					}),
				],
				connections: connectInSequence('Input', 'Agent Core'),
				nodeTypes: { agentCore: new AgentCore() },
				credentials: {
					agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
					agentCoreRedisApi: redisCredentialData(redis.url),
				},
			});
		try {
			server().setScript([
				action('redis_context', { operation: 'set', key: 'color', value: 'teal' }),
				final('noted'),
			]);
			await execute('remember teal');
			server().setScript([
				action('redis_context', { operation: 'get', key: 'color' }),
				final('teal'),
			]);
			const second = await execute('what color?');
			const trace = second.outputOf('Agent Core')[0].json.trace as Array<Record<string, unknown>>;
			expect(trace[0].observation).toBe('teal');
			expect(second.outputOf('Agent Core')[0].json.session_id).toBe(session);
		} finally {
			await deleteKeysByPrefix(client, `agent_core:kv:{${session}}`);
			client.disconnect();
			await redis.stop();
		}
	});
});
