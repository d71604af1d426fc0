// A parent node with an Agent Core Tool on its Tool input, the tool with its own chat model and tool sub-nodes, for n8n's engine.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { DynamicStructuredTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import {
	NodeConnectionTypes,
	type IConnections,
	type INode,
	type INodeParameters,
	type INodeType,
	type ISupplyDataFunctions,
	type SupplyData,
	type NodeConnectionType,
} from 'n8n-workflow';
import { z } from 'zod/v3';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { AgentCoreTool } from '../../../nodes/AgentCoreTool/AgentCoreTool.node';
import type { ScriptedServer } from '../../../src/demo/scripted-server';
import { startsScriptedServers } from '../../support/agent';
import { createInputNode, createNode, subNode } from '../../support/test-nodes';

/** The sub-agent's name on the canvas, and so its tool's name. */
export const CHILD = 'Researcher';

/** A tool sub-node that multiplies and records each call. */
export function multiplyNode(calls: unknown[]): INodeType {
	return subNode(
		'multiplyTool',
		NodeConnectionTypes.AiTool,
		() =>
			new DynamicStructuredTool({
				name: 'multiply',
				description: 'Multiplies two numbers.',
				schema: z.object({ a: z.number(), b: z.number() }),
				func: async ({ a, b }: { a: number; b: number }) => {
					calls.push({ a, b });
					return String(a * b);
				},
			}),
	);
}

/** An OpenAI Chat Model sub-node (a real ChatOpenAI, as n8n's builds it) on `server`. */
export const chatModelNode = (server: ScriptedServer, model = 'gpt-5-mini'): INodeType =>
	subNode(
		'chatModel',
		NodeConnectionTypes.AiLanguageModel,
		() =>
			new ChatOpenAI({
				apiKey: 'child-key',
				model,
				maxRetries: 0,
				configuration: { baseURL: server.openaiBaseUrl },
			}),
	);

/**
 * The OpenAI Chat Model sub-node logging each model call on its own node, as n8n's chat models do (N8nLlmTracing:
 * addInputData as the call starts, addOutputData as it ends): n8n's Logs view nests those runs under their source.
 */
export const loggingChatModelNode = (server: ScriptedServer): INodeType => ({
	...chatModelNode(server),
	async supplyData(this: ISupplyDataFunctions): Promise<SupplyData> {
		const type = NodeConnectionTypes.AiLanguageModel;
		const runs = new Map<string, number>();
		const tracing = BaseCallbackHandler.fromMethods({
			handleChatModelStart: (_llm, messages, runId) => {
				const { index } = this.addInputData(type, [[{ json: { messages: messages.length } }]]);
				runs.set(runId, index);
			},
			handleLLMEnd: (output, runId) => {
				const text = output.generations[0]?.[0]?.text ?? '';
				this.addOutputData(type, runs.get(runId)!, [[{ json: { response: text } }]]);
			},
		});
		return {
			response: new ChatOpenAI({
				apiKey: 'child-key',
				model: 'gpt-5-mini',
				maxRetries: 0,
				configuration: { baseURL: server.openaiBaseUrl },
				callbacks: [tracing],
			}),
		};
	},
});

/** Agent Core version 2 as the parent, on the OpenAI-compatible credential ("OpenAI"), with `parameters` and `credentials` added. */
export const agentCoreParent = (
	parameters: INodeParameters = {},
	credentials: Record<string, { id: string; name: string }> = {},
): INode =>
	createNode({
		name: 'Agent Core',
		type: 'agentCore',
		typeVersion: 2,
		parameters: {
			provider: 'openai',
			model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
			...parameters,
		},
		settings: {
			credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' }, ...credentials },
		},
	});

/** The parent's and the Agent Core Tool's scripted model servers, new for each test. */
export function useParentAndChildServers(): { parent: ScriptedServer; child: ScriptedServer } {
	const startServer = startsScriptedServers();
	const servers = {} as { parent: ScriptedServer; child: ScriptedServer };
	beforeEach(async () => {
		servers.parent = await startServer();
		servers.child = await startServer();
	});
	return servers;
}

/** The Agent Core Tool node: Description, a connected chat model, its own Allowed Tools and Options. */
export const childNode = (parameters: Record<string, unknown> = {}): INode =>
	createNode({
		name: CHILD,
		type: 'agentCoreTool',
		typeVersion: 3,
		parameters: {
			toolDescription: 'Does arithmetic with its multiply tool; give it the whole question.',
			provider: 'connected',
			...parameters,
		},
	});

const to = (node: string, type: NodeConnectionType) => ({ [type]: [[{ node, type, index: 0 }]] });

/**
 * Input → `parent`, with the Agent Core Tool on the parent's Tool input and, on the Agent Core Tool's, a chat model
 * ("Child Model") and a multiply tool ("Multiply").
 */
export function subAgentWorkflow(parent: INode, child: INode = childNode()) {
	const nodes = [
		createInputNode([{ prompt: 'What is 6 times 7?' }]),
		parent,
		child,
		createNode({ name: 'Child Model', type: 'chatModel' }),
		createNode({ name: 'Multiply', type: 'multiplyTool' }),
	];
	const connections: IConnections = {
		Input: { main: [[{ node: parent.name, type: NodeConnectionTypes.Main, index: 0 }]] },
		[CHILD]: to(parent.name, NodeConnectionTypes.AiTool),
		'Child Model': to(CHILD, NodeConnectionTypes.AiLanguageModel),
		Multiply: to(CHILD, NodeConnectionTypes.AiTool),
	};
	return { nodes, connections };
}

/** The node types of these workflows, with `extra` (a parent's type). */
export const nodeTypes = (
	childServer: ScriptedServer,
	calls: unknown[],
	extra: Record<string, INodeType> = {},
) => ({
	agentCore: new AgentCore(),
	agentCoreTool: new AgentCoreTool(),
	chatModel: chatModelNode(childServer),
	multiplyTool: multiplyNode(calls),
	...extra,
});
