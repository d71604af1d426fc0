// An MCP server's tool as one of the run's tools (`<server>.<tool>`), or its blocked stand-in; and what the trace says of it.
import type { Tool } from '../tool';
import type { JsonSchema } from '../../validation/validate';
import type { McpConnection } from './connection';
import type { McpToolDefinition } from './fingerprint';
import type { PinStatus } from './pins';
import { observeCallResult } from './result';

/** What the trace's first step says of each MCP tool the run offered (`mcp_tools`), so the hash chain covers it. */
export interface McpToolRecord {
	/** As offered: `<server>.<tool>`. */
	tool: string;
	/** SHA-256 (hex) of its definition as the server offered it in this run (see toolFingerprint). */
	fingerprint: string;
	pin: PinStatus;
	/** With `changed`: the fingerprint it was pinned to; with `accepted`: the kept pin that `pins` replaced. */
	pinned_fingerprint?: string;
	/** True only when the operator named it in `read_only`; otherwise it counts as having side effects. */
	read_only: boolean;
	/** The server's hints (readOnlyHint, destructiveHint, idempotentHint, openWorldHint), shown as given and never trusted. */
	annotations?: Record<string, unknown>;
}

/** The MCP facts of a tool the run offers, and the notices its server's set-up left (on its server's first tool). */
export interface McpToolInfo {
	record: McpToolRecord;
	notices: string[];
}

const infoOf = new WeakMap<Tool, McpToolInfo>();

/** The MCP facts of `tool`, when it is an MCP server's tool. */
export function mcpToolInfo(tool: Tool): McpToolInfo | undefined {
	return infoOf.get(tool);
}

/** The trace's `mcp_tools` and the set-up notices of the MCP tools among `tools`. */
export function mcpSetUp(tools: Iterable<Tool>): { records: McpToolRecord[]; notices: string[] } {
	const records: McpToolRecord[] = [];
	const notices: string[] = [];
	for (const tool of tools) {
		const info = infoOf.get(tool);
		if (!info) continue;
		records.push(info.record);
		notices.push(...info.notices);
	}
	return { records, notices };
}

/** How long after the server's timeout the engine's own limit ends a call the connection did not. */
const BACKSTOP_SECONDS = 1;

/** The tool that calls `definition` on the server; args reach it only after the engine checked them against its input schema. */
export function mcpTool(
	connection: McpConnection,
	definition: McpToolDefinition,
	parameters: JsonSchema,
	info: McpToolInfo,
): Tool {
	const tool: Tool = {
		name: info.record.tool,
		description:
			definition.description?.trim() ||
			`Tool "${definition.name}" of the MCP server "${connection.server.name}".`,
		parameters,
		sideEffects: !info.record.read_only,
		...(connection.server.timeout === undefined
			? {}
			: {
					callTimeout: {
						// The connection's own timeout ends the call first, with the error that names the server.
						seconds: connection.server.timeout + BACKSTOP_SECONDS,
						setting: `mcp_servers "${connection.server.name}" timeout`,
					},
				}),
		async execute(args: Record<string, unknown>, context) {
			return observeCallResult(
				await connection.callTool(definition.name, args, context.signal),
				info.record.tool,
			);
		},
	};
	infoOf.set(tool, info);
	return tool;
}

/**
 * A tool whose definition changed since it was pinned: offered under its name with a neutral description (never
 * the new text, which is what a "rug pull" would have the model follow), and never called: every call is answered
 * with an observation saying why.
 */
export function blockedMcpTool(info: McpToolInfo): Tool {
	const { tool: name, fingerprint, pinned_fingerprint: pinned } = info.record;
	const observation =
		`${name} is blocked: its definition (description or input schema) changed since it was pinned (pinned ${pinned}, offered now ${fingerprint}), ` +
		'so it was not called. Answer without it; an operator must accept the new definition first.';
	const tool: Tool = {
		name,
		description:
			'Blocked: this tool changed since it was reviewed, and calls to it are refused until an operator accepts the change.',
		parameters: { type: 'object' },
		sideEffects: false,
		async execute() {
			return observation;
		},
	};
	infoOf.set(tool, info);
	return tool;
}
