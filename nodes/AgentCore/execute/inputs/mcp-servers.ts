// Options → MCP Servers (JSON) (version 2): the config's mcp_servers, the MCP tools it allows, and Read-Only Tools' `<server>.<tool>` names.
import type { IExecuteFunctions } from 'n8n-workflow';
import { mcpServersProblem, type McpServerConfig } from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';

const LABEL = 'MCP Servers (JSON)';

/** What the field gives a run: the servers as the config's `mcp_servers`, and the `allowed_tools` entries that allow their tools. */
export interface PanelMcpServers {
	servers?: McpServerConfig[];
	allowedTools: string[];
}

/**
 * The field's servers, checked with the engine's own check under the field's name. Declaring a server allows
 * its tools, as defining a workflow tool allows it: each tool its `tools` names (`<name>.<tool>`), or every tool
 * it offers (`<name>.*`) when `tools` is absent. A Read-Only Tools name `<name>.<tool>` of a declared server
 * joins that server's `read_only`.
 */
export function readMcpServers(
	context: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
	readOnlyTools: ReadonlySet<string>,
): PanelMcpServers {
	const parsed = parseField(context, value, itemIndex);
	if (parsed === undefined || (Array.isArray(parsed) && parsed.length === 0))
		return { allowedTools: [] };
	const problem = mcpServersProblem(parsed, LABEL);
	if (problem)
		throw nodeError(context, problem, itemIndex, `Fix that entry in Options → ${LABEL}.`);
	const servers = (parsed as McpServerConfig[]).map((server) =>
		withReadOnly(server, readOnlyTools),
	);
	const allowedTools = servers.flatMap((server) =>
		server.tools ? server.tools.map((tool) => `${server.name}.${tool}`) : [`${server.name}.*`],
	);
	return { servers, allowedTools };
}

function withReadOnly(
	server: McpServerConfig,
	readOnlyTools: ReadonlySet<string>,
): McpServerConfig {
	const prefix = `${server.name}.`;
	const named = [...readOnlyTools]
		.filter((name) => name.startsWith(prefix))
		.map((name) => name.slice(prefix.length));
	if (named.length === 0) return { ...server };
	return { ...server, read_only: [...new Set([...(server.read_only ?? []), ...named])] };
}

/**
 * Text is parsed, an expression's array taken as it is. The parser's own message may quote the text, headers
 * and all, so the error keeps only where the text broke.
 */
function parseField(context: IExecuteFunctions, value: unknown, itemIndex: number): unknown {
	if (typeof value !== 'string') return value ?? undefined;
	if (value.trim() === '') return undefined;
	try {
		return JSON.parse(value);
	} catch (error) {
		// V8 writes `Unexpected token 'k', ..."ization": k9Qx2Lm7}}"... is not valid JSON`: from the first quote of the text on, it goes.
		const reason = (error as Error).message.replace(/,?\s*(\.\.\.)?".*$/s, '');
		throw nodeError(
			context,
			`${LABEL} is not valid JSON: ${reason}`,
			itemIndex,
			`Fix the JSON in Options → ${LABEL}: an array of servers, e.g. [{"name": "docs", "url": "https://mcp.example.com/mcp"}].`,
		);
	}
}
