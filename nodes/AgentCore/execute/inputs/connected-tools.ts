import { NodeConnectionTypes, type IExecuteFunctions } from 'n8n-workflow';
import { agentTool, toJsonSchemaObject, type Tool } from '../../../../src/run-path';
import { SUB_AGENT_FIELD, suppliedSubAgent } from '../../../shared/sub-agent-tool';
import { isMcpClientToolkit, readMcpClientToolResult } from './mcp-client-tool';

/** The part of a LangChain tool (what n8n's tool sub-nodes supply) that Agent Core uses. */
interface LangChainToolLike {
	name: string;
	description?: string;
	schema?: unknown;
	metadata?: Record<string, unknown>;
	invoke(input: unknown, config?: { signal?: AbortSignal }): Promise<unknown>;
}

interface ToolkitLike {
	getTools(): LangChainToolLike[];
}

function isToolkit(value: unknown): value is ToolkitLike {
	return typeof (value as ToolkitLike)?.getTools === 'function';
}

function isTool(value: unknown): value is LangChainToolLike {
	return (
		typeof (value as LangChainToolLike)?.name === 'string' &&
		typeof (value as LangChainToolLike).invoke === 'function'
	);
}

/**
 * Tool sub-nodes connected to the "Tool" input (the same ones n8n's AI Agent takes). Their names join
 * the whitelist; their schemas, zod or JSON Schema, become JSON Schema checked by ajv like every tool; an Agent
 * Core Tool node becomes a sub-agent (../../../shared/sub-agent-tool.ts).
 */
export async function readConnectedTools(
	context: IExecuteFunctions,
	itemIndex: number,
	readOnly: ReadonlySet<string> = new Set(),
): Promise<Tool[]> {
	const connected = await context
		.getInputConnectionData(NodeConnectionTypes.AiTool, itemIndex)
		.catch((error: Error) => {
			// Nothing connected is not an error: the input is optional. Used as a tool (usableAsTool), the node
			// has no Tool input at all, and n8n says "Node does not have input of type": no connected tools either.
			if (
				/no (input|node).*connected|is not connected|does not have input of type/i.test(
					error.message,
				)
			)
				return [];
			throw error;
		});
	const entries = Array.isArray(connected) ? connected : connected ? [connected] : [];
	const tools = entries.flatMap((entry): Array<{ tool: unknown; mcp: boolean }> => {
		if (!isToolkit(entry)) return [{ tool: entry, mcp: false }];
		const mcp = isMcpClientToolkit(context, entry);
		return entry.getTools().map((tool) => ({ tool, mcp }));
	});
	// Options → Read-Only Tools: the rest are taken to have side effects (a repeat never runs twice). An Agent Core
	// Tool node is a sub-agent of this run (issue #52): run by its loop, inside its budget, read-only when all its tools are.
	return tools.flatMap(({ tool, mcp }) => {
		if (!isTool(tool)) return [];
		const subAgent = SUB_AGENT_FIELD in tool ? suppliedSubAgent(tool) : undefined;
		return [subAgent ? agentTool(subAgent) : adaptTool(tool, readOnly.has(tool.name), mcp)];
	});
}

/**
 * A connected tool as one of the run's tools. It never returns files (issue #40): n8n-core's tool wrapper
 * (makeHandleToolInvocation in get-input-connection-data) hands over only the items' JSON as a string and drops their
 * binary data, so no image or PDF of a tool sub-node reaches Agent Core.
 */
function adaptTool(tool: LangChainToolLike, readOnly: boolean, mcp: boolean): Tool {
	return {
		name: tool.name,
		sideEffects: !readOnly,
		description: tool.description ?? `The connected n8n tool "${tool.name}".`,
		parameters: toJsonSchemaObject(tool.schema),
		async execute(args, context) {
			const result = await tool.invoke(args, { signal: context.signal });
			// n8n's MCP Client Tool answers a string, even for a failure: see readMcpClientToolResult.
			if (mcp) return readMcpClientToolResult(result);
			const content = (result as { content?: unknown })?.content;
			return typeof result === 'object' && result !== null && content !== undefined
				? content
				: result;
		},
	};
}
