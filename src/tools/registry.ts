import { feishuBotTool } from './feishu-bot';
import { httpRequestTool } from './http-request';
import { jsonTransformTool } from './json-transform';
import { redisContextTool } from './redis-context';
import type { Tool } from './tool';
import { loadOnce } from '../core/load-once';

/** The validator, loaded when the first registry is made: the node panels list the built-in tools without one. */
const validation = loadOnce(
	() => require('../validation/validate') as typeof import('../validation/validate'),
);

/** The tools that ship with the package, by name. */
export const builtInTools: readonly Tool[] = [
	httpRequestTool,
	jsonTransformTool,
	redisContextTool,
	feishuBotTool,
];

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** A set of tools with unique names and valid schemas; what the whitelist is checked against. */
export class ToolRegistry {
	private readonly tools = new Map<string, Tool>();

	constructor(tools: readonly Tool[] = builtInTools) {
		for (const tool of tools) this.add(tool);
	}

	add(tool: Tool): void {
		if (!TOOL_NAME.test(tool.name)) {
			throw new Error(
				`tool name "${tool.name}" is invalid: use letters, digits, "_", "-" or ".", starting with a letter or "_"`,
			);
		}
		if (this.tools.has(tool.name))
			throw new Error(`tool name "${tool.name}" is used twice; tool names must be unique`);
		// Throws SchemaError (invalid, past a limit, a pattern RE2 cannot run) naming the tool.
		validation().assertValidSchema(tool.parameters, `the args schema of tool "${tool.name}"`);
		if (tool.settingsSchema)
			validation().assertValidSchema(
				tool.settingsSchema,
				`the settings schema of tool "${tool.name}"`,
			);
		this.tools.set(tool.name, tool);
	}

	get(name: string): Tool | undefined {
		return this.tools.get(name);
	}

	names(): string[] {
		return [...this.tools.keys()];
	}
}
