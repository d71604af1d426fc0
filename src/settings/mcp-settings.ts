// The settings of MCP servers as governed tools (issue #32): a row of the settings table (settings.ts spreads it in), declared once here.
import { loadOnce } from '../core/load-once';
import type { McpServerConfig } from '../tools/mcp';
import type { Check } from './setting-checks';
import type { Setting } from './setting-types';

/** The MCP wing, loaded when a config with mcp_servers is first checked: the panels read this table without it. */
const mcp = loadOnce(() => require('../tools/mcp') as typeof import('../tools/mcp'));

// The schema goes with the check, so that a refused number (a timeout of 1e999) is told the schema's bounds.
const mcpServers = Object.defineProperty(
	(value: unknown, key: string) => mcp().mcpServersProblem(value, key),
	'schema',
	{
		get: () => mcp().MCP_SERVERS_SCHEMA,
		enumerable: true,
	},
) as Check<McpServerConfig[]>;

export const MCP_SETTINGS = {
	/** MCP servers (streamable HTTP) whose tools are offered as `<name>.<tool>` when `allowed_tools` names them; see src/tools/mcp. */
	mcp_servers: {
		check: mcpServers,
		meaning:
			'`[{name, url, headers?, timeout?, tools?, allow_private_network?, read_only?, pins?}]`: MCP servers ' +
			'(streamable HTTP) whose tools are offered as `<name>.<tool>` when `allowed_tools` names them (or ' +
			'`<name>.*`); their definitions are pinned (see *MCP tools*)',
	},
} satisfies Record<string, Setting>;
