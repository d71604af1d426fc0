// What a run is configured with: its config checked, the registry of its tools and the allowed ones, and what its first step notes of them.
import type { Tool } from '../../tools/tool';
import { ToolRegistry, builtInTools } from '../../tools/registry';
import { SchemaError } from '../../validation/schema-error';
import { mcpSetUp } from '../../tools/mcp';
import { stateSecretProblem } from '../../run-state/signed-state';
import type { TraceStep } from '../../trace/types';
import { schemaDialectNotice } from '../../validation/validate';
import { type AgentConfig, ConfigError, resolveConfig } from '../../settings/config';
import type { RunAgentOptions } from '../base/run-options';
import { resolvedByMcpRun, withMcpTools, type McpRunOptions } from './mcp-run';
import type { ChatMessage } from '../../core/messages';
import { fileRefs, type TakenFiles } from './input-files';
import type { HooksStart } from './before-run';
import { configAgentTools, configuredAgents, type SubAgentSpec } from '../subagent';
import { SUB_AGENT, type AgentTool } from '../subagent/agent-tool';
import type { AgentResult } from '../../trace/types';

/** Whether the config names MCP servers: a run whose config names none never enters setup/mcp-run.ts nor tools/mcp. */
function namesMcpServers(config: unknown): boolean {
	const servers = (config as { mcp_servers?: unknown } | null | undefined)?.mcp_servers;
	return (
		servers !== undefined && servers !== null && !(Array.isArray(servers) && servers.length === 0)
	);
}

/** Whether the run has a library hook or a built-in guardrail: without either it never enters hooks/ (issue #49). */
export const hasHooks = (options: Pick<RunAgentOptions, 'hooks'>, config: AgentConfig): boolean =>
	(options.hooks?.length ?? 0) > 0 || config.guardrails.length > 0;

/**
 * Runs `run` with the tools of the config's MCP servers (see withMcpTools); without any, with the options as they are.
 * withMcpTools is handed how the run's tools are registered (its config is checked before any server is opened), as
 * setup/mcp-run.ts cannot import this file back.
 */
export function withMcpServers<Options extends McpRunOptions>(
	options: Options,
	run: (options: Options) => Promise<AgentResult>,
): Promise<AgentResult> {
	return namesMcpServers(options.config)
		? withMcpTools(options, run, runToolRegistry)
		: run(options);
}

/** The run's config, checked, and its allowed tools; a config with approval_required needs a signing key before anything runs. */
export function configureRun(
	options: Pick<RunAgentOptions, 'config' | 'extraTools' | 'stateSecret' | 'streamAnswer'>,
): { config: AgentConfig; allowed: Map<string, Tool> } {
	if (
		options.streamAnswer !== undefined &&
		options.streamAnswer !== 'as-written' &&
		options.streamAnswer !== 'checked'
	) {
		throw new TypeError(
			`streamAnswer must be 'as-written' or 'checked', not ${JSON.stringify(options.streamAnswer)}: leave it out to stream the answer as the model writes it`,
		);
	}
	const registry = runToolRegistry(options.extraTools, options.config);
	// With MCP servers the config was resolved before they were opened: their tools are in the registry now.
	const byMcpRun = namesMcpServers(options.config) ? resolvedByMcpRun(options.config) : undefined;
	const config = byMcpRun ?? resolveConfig(options.config, registry);
	const asks = config.approval_required.length > 0 || config.approve_plan;
	const keyProblem = asks ? stateSecretProblem(options.stateSecret) : undefined;
	const key = config.approval_required.length > 0 ? 'approval_required' : 'approve_plan';
	if (keyProblem) throw new ConfigError(key, keyProblem);
	const allowed = new Map(config.allowed_tools.map((name) => [name, registry.get(name)!]));
	// Sub-agents (issue #52): each one's own config checked with this one, and whether it only reads decided.
	const registryOf = (spec: SubAgentSpec, raw: Record<string, unknown>) =>
		spec.tools ? runToolRegistry(spec.tools, raw) : runToolRegistry(options.extraTools, raw);
	// Only a run with sub-agents (named in `agents`, or a library agentTool allowed: its marker read off the tool) has
	// them checked: a run without one never enters subagent/ (issue #49).
	const isAgent = (tool: Tool) => (tool as Partial<AgentTool>)[SUB_AGENT];
	const hasAgents =
		Object.keys(config.agents ?? {}).length > 0 || [...allowed.values()].some(isAgent);
	if (!hasAgents) return { config, allowed };
	const agents = configuredAgents(config, allowed, registry, registryOf, options.stateSecret);
	return { config, allowed: agents };
}

/**
 * The registry of the built-in and extra tools, and the sub-agents the config names (`agents`, issue #52); a schema
 * the engine refuses is a ConfigError naming the tool, and a sub-agent named as another tool is one naming it, before
 * any model call.
 */
export function runToolRegistry(
	extraTools: readonly Tool[] = [],
	rawConfig?: unknown,
): ToolRegistry {
	// Only a config that names `agents` asks subagent/ for their tools (issue #49).
	const named = (rawConfig as { agents?: unknown } | null | undefined)?.agents !== undefined;
	const agents = named ? configAgentTools(rawConfig) : [];
	const taken = new Set([...builtInTools, ...extraTools].map((tool) => tool.name));
	const clash = agents.find((agent) => taken.has(agent.name));
	if (clash)
		throw new ConfigError(
			`agents.${clash.name}`,
			`agents names "${clash.name}", which is already a tool's name: give the sub-agent a name of its own`,
		);
	try {
		return new ToolRegistry([...builtInTools, ...extraTools, ...agents]);
	} catch (error) {
		if (error instanceof SchemaError) throw new ConfigError(error.field, error.message, error.fix);
		throw error;
	}
}

/** Said once, at step 1, when http_request is allowed with nothing that limits its hosts. */
export const OPEN_HTTP_REQUEST_NOTICE =
	'http_request may reach any public host: tool_settings.http_request.allowed_domains is empty (in ' +
	'n8n: Tool Settings (JSON), or an HTTP Request Tool credential, which names its hosts)';

/**
 * The set-up notices of the first step: the protocol format's, an http_request open to any host (egress_hosts
 * "from_prompt" already limits it to the hosts the user or the workflow named), and the MCP servers' (pins made,
 * blocked or missing); with MCP tools, their fingerprints and pins as `mcp_tools`, so the trace's hash chain covers
 * them; and each schema without `$schema` that is checked as JSON Schema 2020-12 for its keywords. No notices,
 * no `notices` field.
 */
export function noteSetUp(
	entry: TraceStep,
	formatNotice: string | undefined,
	config: Pick<AgentConfig, 'allowed_tools' | 'tool_settings' | 'output_schema'>,
	tools: Iterable<Tool> = [],
): void {
	const http = config.tool_settings.http_request as
		| { allowed_domains?: unknown[]; egress_hosts?: string }
		| undefined;
	const open =
		config.allowed_tools.includes('http_request') &&
		!(http?.allowed_domains?.length ?? 0) &&
		http?.egress_hosts !== 'from_prompt';
	const allowed = [...tools];
	// Only a tool named `<server>.<tool>` can be an MCP server's: without one, tools/mcp is not asked (issue #49).
	const mcp = allowed.some(({ name }) => name.includes('.'))
		? mcpSetUp(allowed)
		: { records: [], notices: [] };
	const dialects = [
		...allowed.map((tool) =>
			schemaDialectNotice(tool.parameters, `the args schema of tool "${tool.name}"`),
		),
		config.output_schema && schemaDialectNotice(config.output_schema, 'output_schema'),
	].filter((notice): notice is string => typeof notice === 'string');
	const notices = [
		...(formatNotice ? [formatNotice] : []),
		...(open ? [OPEN_HTTP_REQUEST_NOTICE] : []),
		...mcp.notices,
		...dialects,
	];
	if (notices.length > 0) entry.notices = notices;
	if (mcp.records.length > 0) entry.mcp_tools = mcp.records;
}

/** What a run's first step records of its setup: the notices, the files the user's message carries, before_run's decisions. */
export function noteFirstStep(
	entry: TraceStep,
	formatNotice: string | undefined,
	config: Pick<AgentConfig, 'allowed_tools' | 'tool_settings' | 'output_schema'>,
	tools: Iterable<Tool>,
	start: { files?: ChatMessage['files']; taken: TakenFiles; begun?: HooksStart },
): void {
	noteSetUp(entry, formatNotice, config, tools);
	const files = start.files?.length ? fileRefs(start.files) : undefined;
	if (files) entry.files = files;
	if (start.taken.notices.length)
		entry.notices = [...(entry.notices ?? []), ...start.taken.notices];
	if (start.begun?.decisions.length) entry.guardrails = [...start.begun.decisions];
}
