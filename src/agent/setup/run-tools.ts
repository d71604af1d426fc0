// The registry of a run's tools (the built-ins and the caller's), where a tool schema the engine refuses becomes a config error.
import { ToolRegistry, builtInTools } from '../../tools/registry';
import type { Tool } from '../../tools/tool';
import { ConfigError } from '../../core/config-error';
import { SchemaError } from '../../validation/schema-error';

/** The registry of the built-in and extra tools; a schema the engine refuses is a ConfigError naming the tool, before any model call. */
export function runToolRegistry(extraTools: readonly Tool[] = []): ToolRegistry {
	try {
		return new ToolRegistry([...builtInTools, ...extraTools]);
	} catch (error) {
		if (error instanceof SchemaError) throw new ConfigError(error.field, error.message, error.fix);
		throw error;
	}
}
