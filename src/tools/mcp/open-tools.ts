// Before a run: the MCP servers whose tools `allowed_tools` names are connected, their tools listed, fingerprinted, pinned and built.
import type { ConnectionPolicy } from '../http-request/connection-policy';
import type { Tool } from '../tool';
import { DIALECT_URIS } from '../../validation/dialect';
import { assertValidSchema, type JsonSchema } from '../../validation/validate';
import { fitsToolRegistry, MAX_TOOL_NAME_LENGTH, type McpServerConfig } from './config';
import { McpConnection } from './connection';
import { McpServerError } from './errors';
import { toolFingerprint, type McpToolDefinition } from './fingerprint';
import { blockedMcpTool, mcpTool, mcpToolInfo, type McpToolInfo } from './mcp-tool';
import { pinStatus, type McpPinStore } from './pins';

/** The run's MCP tools, `allowed_tools` and `approval_required` with each `<server>.*` spelled out, and the connections to close. */
export interface McpToolSet {
	tools: Tool[];
	allowedTools: string[];
	approvalRequired?: string[];
	close(): Promise<void>;
}

export interface OpenMcpToolsOptions {
	servers: readonly McpServerConfig[];
	allowedTools: readonly string[];
	approvalRequired?: readonly string[];
	/** Where pins are kept and written (trust on first use); absent: only `mcp_servers[].pins`, and tools without one run unpinned. */
	pins?: McpPinStore;
	signal?: AbortSignal;
	/** Test seam: the resolver and address classifier (http_request's by default). */
	policy?: ConnectionPolicy;
}

/** A tool of a server, with what keeps it from being offered (undefined: nothing). */
interface Candidate {
	definition: McpToolDefinition;
	parameters: JsonSchema;
	refusal?: string;
}

/**
 * Opens the servers `allowed_tools` names a tool of (`<server>.<tool>` or `<server>.*`), in parallel; a server none of
 * whose tools is allowed is never contacted. A tool named outright must be offered and usable, else McpServerError;
 * under `<server>.*`, a tool the registry cannot take (its name, its schema) is left out with a notice. Any failure
 * closes every connection opened. The caller closes the set when the run ends.
 */
export async function openMcpTools(options: OpenMcpToolsOptions): Promise<McpToolSet> {
	const wanted = options.servers.filter((server) =>
		options.allowedTools.some((name) => name.startsWith(`${server.name}.`)),
	);
	const opened = await Promise.allSettled(
		wanted.map((server) =>
			McpConnection.open(server, {
				at: `mcp_servers[${options.servers.indexOf(server)}]`,
				readOnly: new Set(server.read_only ?? []),
				policy: options.policy,
				signal: options.signal,
			}),
		),
	);
	const connections = opened.flatMap((outcome) =>
		outcome.status === 'fulfilled' ? [outcome.value.connection] : [],
	);
	const close = async () => {
		await Promise.all(connections.map((connection) => connection.close()));
	};
	try {
		const failed = opened.find((outcome) => outcome.status === 'rejected');
		if (failed) throw (failed as PromiseRejectedResult).reason;
		const tools: Tool[] = [];
		const expanded = new Map<string, string[]>();
		for (const [index, server] of wanted.entries()) {
			const { connection, definitions } = (
				opened[index] as PromiseFulfilledResult<Awaited<ReturnType<typeof McpConnection.open>>>
			).value;
			const offered = await serverTools(server, connection, definitions, options);
			tools.push(...offered);
			expanded.set(
				`${server.name}.*`,
				offered.map((tool) => tool.name),
			);
		}
		const spelledOut = (names: readonly string[]) => [
			...new Set(names.flatMap((name) => expanded.get(name) ?? [name])),
		];
		// A blocked tool is never called, so there is nothing for a person to approve: it answers at once.
		const blocked = new Set(
			tools.filter((tool) => mcpToolInfo(tool)?.record.pin === 'changed').map((tool) => tool.name),
		);
		const approvalRequired =
			options.approvalRequired &&
			spelledOut(options.approvalRequired).filter((name) => !blocked.has(name));
		return {
			tools,
			allowedTools: spelledOut(options.allowedTools),
			...(approvalRequired ? { approvalRequired } : {}),
			close,
		};
	} catch (error) {
		await close();
		throw error;
	}
}

/** One server's allowed tools, fingerprinted and checked against their pins; the blocked ones as stand-ins. */
async function serverTools(
	server: McpServerConfig,
	connection: McpConnection,
	definitions: McpToolDefinition[],
	options: OpenMcpToolsOptions,
): Promise<Tool[]> {
	const prefix = `${server.name}.`;
	const narrowed = server.tools
		? definitions.filter((definition) => server.tools!.includes(definition.name))
		: definitions;
	const candidates = new Map(
		narrowed.map((definition) => [definition.name, candidate(server, definition)]),
	);
	const notices: string[] = [];
	const missing = (server.tools ?? []).filter(
		(name) => !definitions.some((definition) => definition.name === name),
	);
	if (missing.length > 0)
		notices.push(
			`MCP server "${server.name}" does not offer ${missing.map((name) => `"${name}"`).join(', ')}, named in its "tools"`,
		);

	const chosen: Candidate[] = [];
	const wildcard = options.allowedTools.includes(`${server.name}.*`);
	for (const [name, entry] of candidates) {
		const named = options.allowedTools.includes(`${prefix}${name}`);
		if (!named && !wildcard) continue;
		if (entry.refusal && named)
			throw new McpServerError(
				server.name,
				`allowed_tools names ${prefix}${name}, which cannot be offered: ${entry.refusal}`,
				`Remove ${prefix}${name} from allowed_tools, or have the server's operator fix the tool.`,
			);
		if (entry.refusal) notices.push(`${prefix}${name} is left out: ${entry.refusal}`);
		else chosen.push(entry);
	}
	for (const name of options.allowedTools) {
		if (
			!name.startsWith(prefix) ||
			name === `${server.name}.*` ||
			candidates.has(name.slice(prefix.length))
		)
			continue;
		const narrowedOut = definitions.some(
			(definition) => definition.name === name.slice(prefix.length),
		);
		const offers = [...candidates.keys()].join(', ') || 'none';
		throw new McpServerError(
			server.name,
			narrowedOut
				? `allowed_tools names ${name}, which mcp_servers "${server.name}" leaves out with its "tools"`
				: `allowed_tools names ${name}, which MCP server "${server.name}" does not offer (it offers: ${offers})`,
			narrowedOut
				? `Add "${name.slice(prefix.length)}" to that server's "tools", or remove ${name} from allowed_tools.`
				: `Name one of the server's tools in allowed_tools, or ${server.name}.* for all of them.`,
		);
	}

	const fingerprints = Object.fromEntries(
		chosen.map((entry) => [entry.definition.name, toolFingerprint(entry.definition)]),
	);
	const configured = server.pins ?? {};
	// A tool whose `pins` entry differs is blocked as it is: its kept pin is neither read as trust nor replaced.
	const checked = chosen.filter(
		(entry) =>
			configured[entry.definition.name] === undefined ||
			configured[entry.definition.name] === fingerprints[entry.definition.name],
	);
	const kept = options.pins
		? await options.pins.check(
				server.name,
				Object.fromEntries(
					checked.map((entry) => [entry.definition.name, fingerprints[entry.definition.name]]),
				),
				new Set(
					checked
						.filter((entry) => configured[entry.definition.name] !== undefined)
						.map((entry) => entry.definition.name),
				),
			)
		: undefined;

	const readOnly = new Set(server.read_only ?? []);
	const unpinned: string[] = [];
	const tools = chosen.map((entry, index) => {
		const name = entry.definition.name;
		const fingerprint = fingerprints[name];
		const { status, pinned } = pinStatus(
			fingerprint,
			configured[name],
			kept ? { kept: kept[name] } : false,
		);
		const replaced =
			status === 'accepted' ? kept?.[name] : status === 'changed' ? pinned : undefined;
		const info: McpToolInfo = {
			record: {
				tool: `${prefix}${name}`,
				fingerprint,
				pin: status,
				...(replaced ? { pinned_fingerprint: replaced } : {}),
				read_only: readOnly.has(name),
				...(entry.definition.annotations ? { annotations: entry.definition.annotations } : {}),
			},
			// The server's notices ride on its first tool; the array is shared, so what is said below still reaches it.
			notices: index === 0 ? notices : [],
		};
		if (status === 'unpinned') unpinned.push(info.record.tool);
		if (status === 'changed') notices.push(changedNotice(server.name, name, pinned!, fingerprint));
		if (status === 'pinned_now')
			notices.push(`${prefix}${name} is pinned from now on to ${fingerprint} (first use)`);
		if (status === 'accepted')
			notices.push(
				`${prefix}${name}: its new definition ${fingerprint} was accepted through mcp_servers "${server.name}" pins, replacing the pin ${replaced}`,
			);
		return status === 'changed'
			? blockedMcpTool(info)
			: mcpTool(connection, entry.definition, entry.parameters, info);
	});
	if (unpinned.length > 0) {
		notices.push(
			`not pinned (no pin store, no mcp_servers "${server.name}" pins entry), ` +
				`so a changed definition would not be noticed: ${unpinned.join(', ')}; their fingerprints are in mcp_tools`,
		);
	}
	// A server whose every allowed tool was left out still says why, where the trace reads it.
	if (tools.length === 0 && notices.length > 0)
		throw new McpServerError(
			server.name,
			`MCP server "${server.name}" has no tool that can be offered: ${notices.join('; ')}`,
			`Check allowed_tools and the "tools" of mcp_servers "${server.name}".`,
		);
	return tools;
}

function changedNotice(server: string, tool: string, pinned: string, offered: string): string {
	return (
		`${server}.${tool} is BLOCKED: its definition changed since it was pinned (pinned ${pinned}, offered ${offered}); ` +
		'it is never called until the change is accepted: ' +
		`review the server's new description and schema, then set "pins": {"${tool}": "${offered}"} on mcp_servers "${server}"`
	);
}

/**
 * The tool as the registry will take it, or why it cannot be. Its schema keeps the `$schema` it declares, and
 * without one is given 2020-12's: MCP's specification (2025-11-25, "JSON Schema Usage") makes 2020-12 the
 * dialect of a schema without `$schema`, so the engine checks it by 2020-12's keywords.
 */
function candidate(server: McpServerConfig, definition: McpToolDefinition): Candidate {
	const fullName = `${server.name}.${definition.name}`;
	const parameters: JsonSchema = { $schema: DIALECT_URIS['2020-12'], ...definition.inputSchema };
	// An empty name would be offered as `<server>.`, which the registry's pattern lets through.
	if (definition.name === '') {
		return {
			definition,
			parameters,
			refusal: `its name is empty, so it would be offered as ${JSON.stringify(fullName)}, not a tool name the engine takes`,
		};
	}
	if (!fitsToolRegistry(fullName)) {
		return {
			definition,
			parameters,
			refusal:
				`its name ${JSON.stringify(fullName)} is not a tool name the engine takes ` +
				`(at most ${MAX_TOOL_NAME_LENGTH} characters of letters, digits, "_", "." and "-"); a shorter server name may help`,
		};
	}
	try {
		assertValidSchema(parameters, `the input schema of ${fullName}`);
	} catch (error) {
		return { definition, parameters, refusal: (error as Error).message };
	}
	return { definition, parameters };
}
