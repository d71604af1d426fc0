// n8n's MCP Client Tool sub-node on the Tool input: which connected tools are its, and what its results mean.
import { NodeConnectionTypes, type IExecuteFunctions } from 'n8n-workflow';
import { renderCallResult, TruncatedText } from '../../../../src/run-path';

const MCP_CLIENT_TOOL_TYPE = /\.mcpClientTool$/;

/** A toolkit as n8n hands it over, with the tools' own metadata (n8n 2.x names the sub-node there). */
interface ToolkitWithMetadata {
	getTools(): Array<{ metadata?: Record<string, unknown> }>;
}

/**
 * Whether a toolkit on the Tool input came from n8n's MCP Client Tool. n8n 1.x hands over its own
 * `McpToolkit`; n8n 2.x a generic `StructuredToolkit` whose tools name their sub-node in
 * `metadata.sourceNodeName`, so the sub-node's type is looked up among the Tool input's nodes.
 */
export function isMcpClientToolkit(
	context: IExecuteFunctions,
	toolkit: ToolkitWithMetadata,
): boolean {
	if (toolkit.constructor.name === 'McpToolkit') return true;
	const sources = new Set(toolkit.getTools().map((tool) => tool.metadata?.sourceNodeName));
	const parents =
		context.getParentNodes?.(context.getNode().name, {
			connectionType: NodeConnectionTypes.AiTool,
			depth: 1,
		}) ?? [];
	return parents.some(
		(parent) => MCP_CLIENT_TOOL_TYPE.test(parent.type) && sources.has(parent.name),
	);
}

const isContentItem = (value: unknown) =>
	typeof value === 'object' &&
	value !== null &&
	typeof (value as { type?: unknown }).type === 'string';

/**
 * What the model reads of a call of an MCP Client Tool's tool. n8n's node (1.x and 2.x alike, read in
 * McpClientTool/utils.js createCallTool and the logWrapper around it) hands back a string: on success
 * the JSON of the result's content array, or (2.x) of its structured content when there is some; on a
 * failure — an `isError` result, a JSON-RPC error, a timeout — the error's text itself, never thrown.
 * So JSON is rendered as the engine renders an MCP result, and anything else is thrown, to be the tool
 * error the model reads.
 */
export function readMcpClientToolResult(result: unknown): string | TruncatedText {
	const value = typeof result === 'string' ? parseJson(result) : result;
	if (Array.isArray(value) && value.every(isContentItem))
		return renderCallResult({ content: value as never });
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		const object = value as Record<string, unknown>;
		// The whole result (a server that sent neither content nor structured content), or the structured content.
		if (Array.isArray(object.content) && object.content.every(isContentItem))
			return renderCallResult(object as never);
		return renderCallResult({ content: [], structuredContent: object });
	}
	throw new Error(
		`the tool reported an error: ${typeof result === 'string' ? result : JSON.stringify(result)}`,
	);
}

/** The JSON value of the text, or undefined when it is not JSON (an error's text). */
function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}
