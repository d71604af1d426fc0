// Sub-agents when a run is configured (issue #52): the config's named agents become tools, and each allowed
// sub-agent's own config is checked with the parent's, which also decides whether it counts as read-only.
import { ConfigError } from '../../core/config-error';
import { stateSecretProblem } from '../../run-state/signed-state';
import { type AgentConfig, resolveConfig } from '../../settings/config';
import { isPlainObject } from '../../settings/setting-checks';
import { AGENT_NAME_PATTERN } from '../../settings/agent-settings';
import type { ToolRegistry } from '../../tools/registry';
import type { Tool } from '../../tools/tool';
import { agentTool, subAgentOf, type AgentTool, type SubAgentSpec } from './agent-tool';

/** The keys a sub-agent's config takes from its parent's when it sets none: one price list, one shared budget, the same named agents. */
const INHERITED = ['prices', 'shared_budget', 'agents'] as const;

/**
 * The tools of the config's `agents` (unchecked: a malformed entry is left out here and refused by the config check
 * that follows, naming it).
 */
export function configAgentTools(rawConfig: unknown): AgentTool[] {
	const agents = isPlainObject(rawConfig) ? rawConfig.agents : undefined;
	if (!isPlainObject(agents)) return [];
	const name = new RegExp(AGENT_NAME_PATTERN);
	return Object.entries(agents).flatMap(([key, entry]) =>
		name.test(key) &&
		isPlainObject(entry) &&
		typeof entry.description === 'string' &&
		entry.description.trim()
			? [
					agentTool({
						name: key,
						description: entry.description,
						...(typeof entry.system === 'string' ? { system: entry.system } : {}),
						...(isPlainObject(entry.config) ? { config: entry.config } : {}),
					}),
				]
			: [],
	);
}

/**
 * The run's config as a sub-agent `spec` runs it: its own keys over the parent's model and the keys it inherits.
 * Its limits are narrowed to what the parent has left when it runs (see childLimits).
 */
export function childConfig(
	parent: AgentConfig,
	spec: SubAgentSpec,
): Record<string, unknown> & { model: string } {
	const inherited = Object.fromEntries(
		INHERITED.filter((key) => parent[key] !== undefined && !(key in spec.config)).map((key) => [
			key,
			parent[key],
		]),
	);
	return { model: parent.model, ...inherited, ...spec.config } as Record<string, unknown> & {
		model: string;
	};
}

/**
 * The allowed tools with every sub-agent among them checked: its config resolves (a problem is a ConfigError naming
 * `agents.<name>.config.<key>`, or `<name>.config.<key>` for a library agentTool), and it counts as read-only only when
 * every tool its config allows is read-only and it keeps no conversation of its own (a sub-agent among its tools
 * counts as changing things). `registryOf` gives the registry a sub-agent's config is checked against: the parent's,
 * or its own tools with the built-ins.
 */
export function configuredAgents(
	config: AgentConfig,
	allowed: Map<string, Tool>,
	parentRegistry: ToolRegistry,
	registryOf: (spec: SubAgentSpec, childRaw: Record<string, unknown>) => ToolRegistry,
	stateSecret?: string,
): Map<string, Tool> {
	const fromConfig = Object.keys(config.agents ?? {});
	// Every named agent is checked with the parent's config, allowed or not; a library agentTool when it is allowed.
	const names = new Set([...fromConfig, ...allowed.keys()]);
	for (const name of names) {
		const tool = allowed.get(name) ?? parentRegistry.get(name);
		const spec = subAgentOf(tool);
		if (!tool || !spec) continue;
		const field = fromConfig.includes(name) ? `agents.${name}.config` : `${name}.config`;
		const raw = childConfig(config, spec);
		const registry = registryOf(spec, raw);
		let child: AgentConfig;
		try {
			child = resolveConfig(raw, registry);
		} catch (error) {
			if (!(error instanceof ConfigError)) throw error;
			throw new ConfigError(`${field}.${error.key}`, `${field}: ${error.message}`);
		}
		// A sub-agent that may wait for a person needs the signing key its pause is sealed with, as the run itself would.
		const asks = child.approval_required.length > 0 || child.approve_plan;
		const keyProblem = asks ? stateSecretProblem(stateSecret) : undefined;
		if (keyProblem) throw new ConfigError(`${field}.approval_required`, `${field}: ${keyProblem}`);
		// Its own conversation is a side effect too: such a sub-agent's calls run one at a time, in order.
		const readOnly =
			!spec.memory &&
			child.allowed_tools.every((each) => {
				const used = registry.get(each);
				return used !== undefined && !subAgentOf(used) && used.sideEffects === false;
			});
		if (allowed.has(name)) allowed.set(name, { ...tool, sideEffects: !readOnly });
	}
	return allowed;
}
