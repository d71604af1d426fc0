// The Agent Core Tool's two ways in: supplyData (the tool a parent binds) and execute (n8n 2's engine running a tool call).
import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
import { nodeError } from '../../shared/node-errors';
import { SUB_AGENT_FIELD } from '../../shared/sub-agent-tool';
import {
	argumentsSchema,
	isTaskAlone,
	promptArguments,
	promptWithArguments,
	writtenPrompt,
} from './prompt';
import { readSubAgent, runOnItsOwn, type NodeSubAgent } from './sub-agent';

/** A tool call's arguments: LangChain hands over the arguments, or a ToolCall holding them. */
function argumentValues(input: unknown): Record<string, unknown> {
	const call = input as { type?: unknown; args?: unknown } | undefined;
	const args = call?.type === 'tool_call' ? call.args : input;
	if (typeof args === 'string') return { task: args };
	return typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
}

/**
 * The tool a parent binds, shaped as LangChain's tools are (name, description, JSON Schema, invoke; n8n's AI Agent
 * turns the schema into zod as for any tool sub-node), without loading LangChain. Its call runs the agent on its own
 * limits and logs the call on this node as n8n's tool sub-nodes do (the Logs view shows the agent's model and tool
 * calls under it). With the Prompt at its default, the task alone, it carries the agent (SUB_AGENT_FIELD) for Agent
 * Core as the parent, which then runs it inside its own run instead of calling invoke, and logs its calls here.
 */
export async function supplySubAgentTool(
	context: ISupplyDataFunctions,
	itemIndex: number,
): Promise<SupplyData> {
	const agent = await readSubAgent(context, itemIndex);
	const written = writtenPrompt(context.getNode());
	const tool = {
		name: agent.name,
		description: agent.description,
		schema: argumentsSchema(promptArguments(written)),
		returnDirect: false,
		metadata: {},
		async invoke(input: unknown, config?: { signal?: AbortSignal }): Promise<string> {
			const values = argumentValues(input);
			const { index } = context.addInputData(NodeConnectionTypes.AiTool, [
				[{ json: values as IDataObject }],
			]);
			try {
				// evaluateExpression reads its text as an expression (it adds the "=" itself); a Prompt without one is text.
				const filled = promptWithArguments(written, values);
				const prompt = filled.startsWith('=')
					? context.evaluateExpression(filled.slice(1), itemIndex)
					: filled;
				const signal = config?.signal ?? context.getExecutionCancelSignal();
				const response = await runOnItsOwn(agent, String(prompt ?? ''), signal);
				context.addOutputData(NodeConnectionTypes.AiTool, index, [[{ json: { response } }]]);
				return response;
			} catch (error) {
				const failure = new NodeOperationError(context.getNode(), error as Error, { itemIndex });
				context.addOutputData(NodeConnectionTypes.AiTool, index, failure);
				throw failure;
			}
		},
		...(isTaskAlone(written)
			? { [SUB_AGENT_FIELD]: { ...agent, onCall: logsCalls(context, itemIndex) } }
			: {}),
	};
	return { response: tool };
}

/**
 * Each call Agent Core as the parent runs (it runs the agent itself, never invoke) logged on this node as invoke logs
 * its own, a run of the node per call, its task in and what the parent reads out: n8n's Logs view nests the agent's
 * model and tool calls under a run of this node, and without one it shows none of them.
 */
function logsCalls(context: ISupplyDataFunctions, itemIndex: number): NodeSubAgent['onCall'] {
	return (task) => {
		const { index } = context.addInputData(NodeConnectionTypes.AiTool, [[{ json: { task } }]]);
		return {
			end(ending) {
				context.addOutputData(
					NodeConnectionTypes.AiTool,
					index,
					'response' in ending
						? [[{ json: { response: ending.response } }]]
						: new NodeOperationError(context.getNode(), ending.error, { itemIndex }),
				);
			},
		};
	};
}

/**
 * A tool call as n8n 2's engine runs it for its AI Agent (the node executed with the call's arguments as its item,
 * $fromAI reading them): the agent's answer as `response`, as n8n's tool nodes return it.
 */
export async function executeSubAgentCalls(
	context: IExecuteFunctions,
): Promise<INodeExecutionData[][]> {
	const answers: INodeExecutionData[] = [];
	const items = context.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const agent = await readSubAgent(context, itemIndex);
		const prompt = String(context.getNodeParameter('text', itemIndex, '') ?? '');
		if (!prompt.trim())
			throw nodeError(
				context,
				'Prompt is empty',
				itemIndex,
				'Leave Prompt at its default (the task the parent model writes) or write one.',
			);
		const response = await runOnItsOwn(agent, prompt, context.getExecutionCancelSignal?.());
		answers.push({ json: { response }, pairedItem: { item: itemIndex } });
	}
	return [answers];
}
