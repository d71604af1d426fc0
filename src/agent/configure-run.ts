import { ToolRegistry, builtInTools } from '../tools/registry';
import type { Tool } from '../tools/tool';
import { stateSecretProblem } from '../run-state/signed-state';
import { SchemaError } from '../validation/schema-error';
import { type AgentConfig, ConfigError, resolveConfig } from './config';
import type { RunAgentOptions } from './run-options';

/** The run's config, checked, and its allowed tools; a config with approval_required needs a signing key before anything runs. */
export function configureRun(options: Pick<RunAgentOptions, 'config' | 'extraTools' | 'stateSecret'>): { config: AgentConfig; allowed: Map<string, Tool> } {
  const registry = toolRegistry([...builtInTools, ...(options.extraTools ?? [])]);
  const config = resolveConfig(options.config, registry);
  const keyProblem = config.approval_required.length > 0 ? stateSecretProblem(options.stateSecret) : undefined;
  if (keyProblem) throw new ConfigError('approval_required', keyProblem);
  return { config, allowed: new Map(config.allowed_tools.map((name) => [name, registry.get(name)!])) };
}

/** The registry of the run's tools; a tool schema the engine refuses is a config error naming the tool, before any model call. */
function toolRegistry(tools: Tool[]): ToolRegistry {
  try {
    return new ToolRegistry(tools);
  } catch (error) {
    if (error instanceof SchemaError) throw new ConfigError(error.field, error.message);
    throw error;
  }
}
