// The registry of a run's tools (the built-ins and the caller's), where a tool schema the engine refuses becomes a config error.
import { ToolRegistry, builtInTools } from '../../tools/registry';
import type { Tool } from '../../tools/tool';
import { ConfigError } from '../../core/config-error';
import { SchemaError } from '../../validation/schema-error';
import { configAgentTools } from '../subagent';

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
