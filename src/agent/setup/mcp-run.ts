// A run with MCP servers: their tools opened before it (and their headers made secrets), closed when it ends, however it ends.
import {
	mcpServersProblem,
	openMcpTools,
	type McpServerConfig,
	type McpToolSet,
} from '../../tools/mcp';
import { Redactor } from '../../trace/redact';
import type { AgentResult } from '../../trace/types';
import { type AgentConfig, ConfigError, resolveConfig } from '../../settings/config';
import type { RunAgentOptions } from '../base/run-options';
import type { ToolRegistry } from '../../tools/registry';
import type { Tool } from '../../tools/tool';

/** Configs withMcpTools resolved and checked: configureRun takes them as they are instead of resolving them again. */
const resolvedWithMcpTools = new WeakSet<object>();

/** The config withMcpTools resolved once for this run (its MCP tools spelled out), or undefined for any other. */
export function resolvedByMcpRun(config: unknown): AgentConfig | undefined {
	return typeof config === 'object' && config !== null && resolvedWithMcpTools.has(config)
		? (config as AgentConfig)
		: undefined;
}

export type McpRunOptions = Pick<
	RunAgentOptions,
	'config' | 'extraTools' | 'secrets' | 'mcpPins' | 'signal'
>;

/**
 * Runs `run` with the tools of the config's `mcp_servers` (named: see withMcpServers) added: the servers `allowed_tools` names a tool of are
 * connected and their tools listed, fingerprinted and pinned first (any failure is thrown before the first model
 * call, naming the server), `<server>.*` in `allowed_tools` and `approval_required` is spelled out as the tools the
 * server offers, and every header value is a secret the run redacts. The connections are closed when `run` settles.
 */
export async function withMcpTools<Options extends McpRunOptions>(
	options: Options,
	run: (options: Options) => Promise<AgentResult>,
	/** The registry of the run's tools (configure-run.ts's runToolRegistry), for the config's check. */
	runToolRegistry: (extraTools?: readonly Tool[], rawConfig?: unknown) => ToolRegistry,
): Promise<AgentResult> {
	const config = options.config as
		| (McpRunOptions['config'] & { mcp_servers?: unknown })
		| undefined;
	const servers = config?.mcp_servers;
	const problem = mcpServersProblem(servers);
	if (problem) throw new ConfigError('mcp_servers', problem);
	const names = (value: unknown) =>
		Array.isArray(value)
			? value.filter((name): name is string => typeof name === 'string')
			: undefined;
	const allowedTools = names(config!.allowed_tools);
	const approvalRequired = names(config!.approval_required);
	const secrets = (servers as McpServerConfig[]).flatMap((server) =>
		Object.values(server.headers ?? {}),
	);
	// An allowed_tools that is not a list of names is refused by the run's own config check, before anything is opened.
	if (!allowedTools) return run({ ...options, secrets: [...(options.secrets ?? []), ...secrets] });
	// The rest of the config is checked before any server is contacted: a wrong max_steps costs no connection.
	const ofServers = (name: string) => serverOf(servers as McpServerConfig[], name) !== undefined;
	const others = (list: string[] | undefined) => list?.filter((name) => !ofServers(name));
	refuseMcpToolSettings(config!.tool_settings, servers as McpServerConfig[]);
	const checked = resolveConfig(
		{
			...config,
			allowed_tools: others(allowedTools),
			...(approvalRequired ? { approval_required: others(approvalRequired) } : {}),
		},
		runToolRegistry(options.extraTools, config),
	);
	let set: McpToolSet;
	try {
		set = await openMcpTools({
			servers: servers as McpServerConfig[],
			allowedTools,
			approvalRequired,
			pins: options.mcpPins,
			signal: options.signal,
		});
	} catch (error) {
		// What a server answered may echo a header (a 401 page, say): the error goes to stderr or the node's panel.
		if (error instanceof Error) error.message = new Redactor(secrets).text(error.message);
		throw error;
	}
	try {
		return await run({
			...options,
			config: resolvedOnce({
				...checked,
				allowed_tools: set.allowedTools,
				approval_required: set.approvalRequired ?? checked.approval_required,
			}) as Options['config'],
			extraTools: [...(options.extraTools ?? []), ...set.tools],
			secrets: [...(options.secrets ?? []), ...secrets],
		});
	} finally {
		await set.close();
	}
}

/** The server whose tool `name` is (`<server>.<tool>`), if any. */
function serverOf(servers: readonly McpServerConfig[], name: string): McpServerConfig | undefined {
	return servers.find((server) => name.startsWith(`${server.name}.`));
}

/**
 * An MCP tool has no `tool_settings` entry: its time limit is its server's `timeout`, set once per server (issue #42).
 * Said as such, rather than as the unknown tool the run's own check would call it.
 */
function refuseMcpToolSettings(toolSettings: unknown, servers: readonly McpServerConfig[]): void {
	if (typeof toolSettings !== 'object' || toolSettings === null) return;
	for (const name of Object.keys(toolSettings)) {
		const server = serverOf(servers, name);
		if (server)
			throw new ConfigError(
				'tool_settings',
				`tool_settings names "${name}", a tool of the MCP server "${server.name}"; MCP tools take no tool_settings`,
				`Remove tool_settings "${name}"; for its time limit set mcp_servers "${server.name}" timeout (seconds), which applies to that server's tools.`,
			);
	}
}

/** Marks the config this run resolved, with its MCP tools spelled out, so that it is resolved once, not twice. */
function resolvedOnce(config: AgentConfig): AgentConfig {
	resolvedWithMcpTools.add(config);
	return config;
}
