// Agent Core Tool under a parent that is not Agent Core (issue #52), in n8n's engine. n8n's AI Agent itself is not a
// dependency of this package (its n8n 2.41 copy needs n8n-workflow 2, the engine here is n8n-core 1): these tests do
// what it does with a tool sub-node. n8n 1's AI Agent binds the supplied tool to its model (LangChain's bindTools) and
// calls invoke with the model's arguments; n8n 2's engine runs the tool node itself, the call's arguments as its item.
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
} from 'n8n-workflow';
import { ChatOpenAI } from '@langchain/openai';
import type { ScriptedServer } from '../../../src/demo/scripted-server';
import { action, final, lastUserMessage, startsScriptedServers } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../support/test-nodes';
import { CHILD, childNode, nodeTypes, subAgentWorkflow } from './sub-agent-workflow';

type InvokableTool = { name: string; invoke(args: unknown): Promise<unknown> };

/** A parent as n8n 1's AI Agent uses a tool sub-node: bound to its model, invoked with the tool call's arguments. */
const bindingAgent = (server: () => ScriptedServer): INodeType => ({
	description: {
		displayName: 'Binding Agent',
		name: 'bindingAgent',
		group: ['transform'],
		version: 1,
		description: 'test parent',
		defaults: { name: 'Parent' },
		inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tool' }],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tools = (await this.getInputConnectionData(
			NodeConnectionTypes.AiTool,
			0,
		)) as InvokableTool[];
		const model = new ChatOpenAI({
			apiKey: 'parent-key',
			model: 'gpt-4o-mini',
			maxRetries: 0,
			configuration: { baseURL: server().openaiBaseUrl },
		}).bindTools(tools as never);
		const reply = await model.invoke(String(this.getInputData()[0].json.prompt));
		const [call] = reply.tool_calls ?? [];
		const observation = await tools.find((tool) => tool.name === call.name)!.invoke(call.args);
		return [[{ json: { observation: observation as string } }]];
	},
});

describe('Agent Core Tool under another parent', () => {
	const startServer = startsScriptedServers();
	let parentServer: ScriptedServer;
	let childServer: ScriptedServer;
	beforeEach(async () => {
		parentServer = await startServer();
		childServer = await startServer();
	});

	async function underBindingAgent(child = childNode()) {
		const calls: unknown[] = [];
		const result = await runWorkflow({
			...subAgentWorkflow(createNode({ name: 'Parent', type: 'bindingAgent' }), child),
			nodeTypes: nodeTypes(childServer, calls, { bindingAgent: bindingAgent(() => parentServer) }),
		});
		expect(result.errorOf('Parent')).toBeUndefined();
		return { result, calls, observation: result.outputOf('Parent')[0].json.observation };
	}

	it("is a tool the parent's model binds, {task} in, whose call runs the agent on its own and answers in words", async () => {
		parentServer.setScript([
			{ text: '', toolCalls: [{ name: CHILD, arguments: { task: 'multiply 6 by 7' } }] },
		]);
		childServer.setScript([action('multiply', { a: 6, b: 7 }), final('6 times 7 is 42')]);
		const { result, calls, observation } = await underBindingAgent();
		const [bound] = parentServer.requests[0].body.tools;
		expect(bound.function).toMatchObject({
			name: CHILD,
			description: 'Does arithmetic with its multiply tool; give it the whole question.',
			parameters: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] },
		});
		expect(observation).toBe('6 times 7 is 42');
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		expect(lastUserMessage(childServer, 0)).toBe('multiply 6 by 7');
		// n8n's Logs view: the call on the tool node, its task in and its answer out, as a tool sub-node logs it.
		const [logged] = result.run.data.resultData.runData[CHILD];
		expect(logged.inputOverride?.ai_tool?.[0]?.[0].json).toEqual({ task: 'multiply 6 by 7' });
		expect(logged.data?.ai_tool?.[0]?.[0].json).toEqual({ response: '6 times 7 is 42' });
	});

	it('answers why there is no answer when the agent stops at its own limit: the finish reason and its detail', async () => {
		parentServer.setScript([
			{ text: '', toolCalls: [{ name: CHILD, arguments: { task: 'multiply twice' } }] },
		]);
		childServer.setScript([action('multiply', { a: 6, b: 7 }), action('multiply', { a: 2, b: 3 })]);
		const { observation, calls } = await underBindingAgent(
			childNode({ options: { maxToolCalls: 1 } }),
		);
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		expect(observation).toMatch(
			new RegExp(`^${CHILD} did not answer \\(finish_reason max_tool_calls\\): .+`),
		);
	});

	it('ends a call that waits for a person with an answer saying so and that approvals need Agent Core as the parent', async () => {
		parentServer.setScript([
			{ text: '', toolCalls: [{ name: CHILD, arguments: { task: 'multiply 6 by 7' } }] },
		]);
		childServer.setScript([action('multiply', { a: 6, b: 7 }), final('never reached')]);
		const { observation, calls } = await underBindingAgent(
			childNode({ options: { approvalTools: 'multiply' } }),
		);
		expect(calls).toEqual([]);
		expect(observation).toBe(
			`${CHILD} did not answer: its call waits for a person to approve it, and this parent cannot pause for one. ` +
				`Approvals need Agent Core as the parent: connect ${CHILD} to Agent Core's Tool input and turn on Require Approval there.`,
		);
	});

	it("runs a tool call as n8n 2's engine does, the node executed with the call's arguments: $fromAI reads the task", async () => {
		childServer.setScript([action('multiply', { a: 6, b: 7 }), final('6 times 7 is 42')]);
		const calls: unknown[] = [];
		const { nodes, connections } = subAgentWorkflow(createNode({ name: 'Unused', type: 'noOp' }));
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ task: 'multiply 6 by 7', toolCallId: 'call_1' }]),
				...nodes.slice(2),
			],
			connections: { ...connections, ...connectInSequence('Input', CHILD), [CHILD]: {} },
			nodeTypes: nodeTypes(childServer, calls),
		});
		expect(result.errorOf(CHILD)).toBeUndefined();
		expect(result.outputOf(CHILD).map((item) => item.json)).toEqual([
			{ response: '6 times 7 is 42' },
		]);
		expect(lastUserMessage(childServer, 0)).toBe('multiply 6 by 7');
		expect(calls).toEqual([{ a: 6, b: 7 }]);
	});
});
