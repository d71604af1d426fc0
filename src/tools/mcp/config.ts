// The `mcp_servers` config key: its shape, its checks and its reading into McpServerConfig.
import { HEADER_NAME_PATTERN } from '../http-request/settings';
import { validateAgainst, type JsonSchema } from '../../validation/validate';

/** One MCP server as `mcp_servers` declares it (streamable HTTP only). */
export interface McpServerConfig {
	/** `[a-z_][a-z0-9_-]*`, at most MAX_SERVER_NAME_LENGTH characters: its tools are offered as `<name>.<tool>`. */
	name: string;
	/** The server's streamable HTTP endpoint, e.g. `https://mcp.example.com/mcp`. */
	url: string;
	/** Sent with every request to the server's origin only; secrets (redacted everywhere the run writes). */
	headers?: Record<string, string>;
	/**
	 * Seconds for connecting and listing the tools, and for each call; default 30. Given, it is the call limit of
	 * the server's tools in place of single_call_timeout (MCP tools take no `tool_settings`: this is their timeout).
	 */
	timeout?: number;
	/** Only these of the server's tools (its own names) are offered; absent: all it lists. */
	tools?: string[];
	/** Lets the URL reach loopback, private and link-local addresses (cloud metadata endpoints stay refused). */
	allow_private_network?: boolean;
	/** Tools (the server's own names) the operator declares free of side effects; every other counts as side-effecting. */
	read_only?: string[];
	/** Tool (the server's own name) → the SHA-256 fingerprint of the definition accepted for it. */
	pins?: Record<string, string>;
}

/** How long a server name may be: `<name>.<tool>` must fit the registry's 64 characters with room for the tool. */
export const MAX_SERVER_NAME_LENGTH = 24;
/** Tool names of the registry (registry.ts): a letter or `_`, then letters, digits, `_`, `.` or `-`, 64 characters in all. */
export const MAX_TOOL_NAME_LENGTH = 64;
const REGISTRY_TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const SERVER_NAME = new RegExp(`^[a-z_][a-z0-9_-]{0,${MAX_SERVER_NAME_LENGTH - 1}}$`);
/** A fingerprint as `pins` gives it: the 64 hex digits of a SHA-256 hash, lower case. */
export const FINGERPRINT_PATTERN = '^[0-9a-f]{64}$';
export const DEFAULT_MCP_TIMEOUT_SECONDS = 30;
const MAX_SERVERS = 32;

/** Headers the transport sets itself: a configured one would break the protocol or reach another virtual host. */
const MANAGED_HEADERS = new Set([
	'host',
	'content-length',
	'content-type',
	'accept',
	'transfer-encoding',
	'connection',
	'keep-alive',
	'upgrade',
	'te',
	'trailer',
	'expect',
	'mcp-session-id',
	'mcp-protocol-version',
	'last-event-id',
]);

const toolList: JsonSchema = {
	type: 'array',
	items: { type: 'string', minLength: 1, maxLength: 128 },
	maxItems: 1000,
};

export const MCP_SERVERS_SCHEMA: JsonSchema = {
	type: 'array',
	maxItems: MAX_SERVERS,
	items: {
		type: 'object',
		properties: {
			name: { type: 'string' },
			url: { type: 'string', minLength: 1, maxLength: 2048 },
			headers: {
				type: 'object',
				maxProperties: 32,
				propertyNames: { pattern: HEADER_NAME_PATTERN },
				additionalProperties: { type: 'string', maxLength: 8192, pattern: '^[^\\r\\n\\u0000]*$' },
			},
			timeout: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
			tools: toolList,
			allow_private_network: { type: 'boolean' },
			read_only: toolList,
			pins: {
				type: 'object',
				maxProperties: 1000,
				additionalProperties: { type: 'string', pattern: FINGERPRINT_PATTERN },
			},
		},
		required: ['name', 'url'],
		additionalProperties: false,
	},
};

export const MCP_SERVERS_EXAMPLE =
	'[{"name":"github","url":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer …"},"tools":["search_issues"],"read_only":["search_issues"]}]';

/** Whether `name` is a tool name the registry takes. */
export function fitsToolRegistry(name: string): boolean {
	return REGISTRY_TOOL_NAME.test(name);
}

/** The problem with `mcp_servers` as one sentence naming the bad field (`mcp_servers[0].name: …`), or undefined. */
export function mcpServersProblem(value: unknown, key = 'mcp_servers'): string | undefined {
	const result = validateAgainst(MCP_SERVERS_SCHEMA, value, key);
	if (!result.ok) return `${result.issues.join('; ')} (e.g. ${MCP_SERVERS_EXAMPLE})`;
	const names = new Set<string>();
	for (const [index, server] of (value as McpServerConfig[]).entries()) {
		const at = `${key}[${index}]`;
		if (!SERVER_NAME.test(server.name)) {
			return (
				`${at}.name must be 1 to ${MAX_SERVER_NAME_LENGTH} characters of a-z, 0-9, "_" and "-", starting with a letter or "_" ` +
				`(its tools are offered as "<name>.<tool>", at most ${MAX_TOOL_NAME_LENGTH} characters), not ${JSON.stringify(server.name)}`
			);
		}
		if (names.has(server.name))
			return `${at}.name "${server.name}" is used twice; give each server its own name`;
		names.add(server.name);
		const urlProblem = serverUrlProblem(server);
		if (urlProblem) return `${at}.url ${urlProblem}`;
		const managed = Object.keys(server.headers ?? {}).find((name) =>
			MANAGED_HEADERS.has(name.toLowerCase()),
		);
		if (managed) return `${at}.headers.${managed} is set by the MCP transport itself; remove it`;
	}
	return undefined;
}

function serverUrlProblem(server: McpServerConfig): string | undefined {
	let url: URL;
	try {
		url = new URL(server.url);
	} catch {
		return `${JSON.stringify(server.url)} is not an absolute URL; write it like https://mcp.example.com/mcp`;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		return `must be an http:// or https:// URL (streamable HTTP), not ${url.protocol.replace(':', '')}`;
	if (url.username || url.password)
		return 'contains a user name or password; send credentials in headers instead';
	// Secret headers cross the network only encrypted, unless the operator said the server is on their own network.
	if (
		url.protocol === 'http:' &&
		Object.keys(server.headers ?? {}).length > 0 &&
		server.allow_private_network !== true
	) {
		return (
			'is plain http, and headers are sent only over https ' +
			`(or, for a server on your own network, with allow_private_network: true); use https://${url.host}${url.pathname}`
		);
	}
	return undefined;
}

/** The server's URL as the transport uses it, and what error messages show of it (no query: it may hold a token). */
export function shownUrl(server: McpServerConfig): string {
	const url = new URL(server.url);
	return `${url.origin}${url.pathname}`;
}
