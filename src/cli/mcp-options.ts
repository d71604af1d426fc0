// The CLI's part in MCP servers: the config names them, and --redis-url keeps their tools' pins.
import { RedisMcpPins, type McpPinStore } from '../tools/mcp';

/** Whether the config names MCP servers (the config itself is checked by the run). */
export function hasMcpServers(config: unknown): boolean {
	const servers =
		typeof config === 'object' && config !== null
			? (config as { mcp_servers?: unknown }).mcp_servers
			: undefined;
	return Array.isArray(servers) && servers.length > 0;
}

/**
 * With MCP servers and `--redis-url`: the pins of their tools' definitions kept in that Redis (trust on first use,
 * shared by every process that uses it), without a session or a budget being needed for it. Without `--redis-url`,
 * only `mcp_servers[].pins` pin, and the other tools run unpinned (the trace says so).
 */
export function mcpPinOptions(
	redisUrl: string | undefined,
	config: unknown,
): { mcpPins?: McpPinStore } {
	return redisUrl !== undefined && hasMcpServers(config)
		? { mcpPins: new RedisMcpPins({ connection: { url: redisUrl } }) }
		: {};
}
