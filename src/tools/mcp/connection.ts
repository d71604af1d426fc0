// One run's connection to one MCP server: the official SDK's client over streamable HTTP, through our guarded fetch.
import type { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadOnce } from '../../core/load-once';
import { classifyAddress } from '../http-request/address-policy';
import { resolveWithSystem, type ConnectionPolicy } from '../http-request/connection-policy';
import { DEFAULT_MCP_TIMEOUT_SECONDS, shownUrl, type McpServerConfig } from './config';
import { McpServerError, transportErrorIn, type TransportProblem } from './errors';
import { MAX_RECONNECTION_DELAY_MS } from './event-stream';
import type { McpToolDefinition } from './fingerprint';
import { guardedFetch, type GuardedFetch } from './guarded-fetch';
import { checkedCallResult, lenientCallResultSchema } from './lenient-result';

/** The result schema callTool takes: the lenient one reads a superset of what the SDK's type says. */
type LenientSchema = Parameters<SdkClient['callTool']>[1];

/** The SDK on first use: requiring it costs about half a second, which a run without MCP servers never pays. */
const sdk = loadOnce(() => {
	const transport =
		require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
	return {
		Client: (
			require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js')
		).Client,
		Transport: transport.StreamableHTTPClientTransport,
		HttpError: transport.StreamableHTTPError,
	};
});

/** Bytes of one answer the transport reads (the SDK holds a whole message before it parses it); the observation's own cap is far lower. */
export const MAX_MCP_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Tools listed per server at most, over at most this many pages. */
const MAX_LISTED_TOOLS = 1_000;
const MAX_LIST_PAGES = 50;
/**
 * Times an operation's answer is asked for again after its event stream ended first (MCP 2025-11-25 transports,
 * "Resumability and Redelivery": the client resumes with a GET carrying `Last-Event-ID`, after the server's `retry`).
 */
export const MAX_RECONNECTIONS = 3;
/** The wait before a reconnection when the server gave no `retry:` hint (doubled after a failed one, to the cap). */
const FIRST_RECONNECTION_DELAY_MS = 250;
/** How long closing waits for the server to end the session (DELETE) before it drops the connection anyway. */
const CLOSE_WAIT_MS = 1_000;

/** The production resolver and address policy (http_request's); tests may declare a loopback address public. */
export const DEFAULT_MCP_POLICY: ConnectionPolicy = {
	resolveHost: resolveWithSystem,
	classifyAddress,
};

/**
 * Output schemas are the server's: compiling them with the SDK's own ajv (backtracking regular expressions) would
 * let a hostile server stall the run. The engine reads structured content as data for the model, so it is not held
 * to them; input schemas are checked by the engine's own validator, before anything is sent.
 */
const UNCHECKED_OUTPUT = {
	getValidator: () => (input: unknown) => ({
		valid: true as const,
		data: input as never,
		errorMessage: undefined,
	}),
};

/** Per server: its SDK client, opened once per run and reused by every call, closed when the run ends. */
export class McpConnection {
	private deadlineAt = 0;
	/** Fails the operation under way at once: an answer our transport cut (see GuardedFetchOptions.onCut). */
	private failCurrent?: (error: Error) => void;

	private constructor(
		readonly server: McpServerConfig,
		private readonly client: SdkClient,
		private readonly transport: StreamableHTTPClientTransport,
		private readonly fetch: GuardedFetch,
	) {}

	/** Milliseconds for connecting and listing, and for each call. */
	get timeoutMs(): number {
		return (this.server.timeout ?? DEFAULT_MCP_TIMEOUT_SECONDS) * 1000;
	}

	/**
	 * Connects (initialize) and lists the server's tools, within its timeout. Any failure closes what was opened and
	 * throws McpServerError naming the server, what happened and the fix.
	 */
	static async open(
		server: McpServerConfig,
		options: {
			at: string;
			readOnly: ReadonlySet<string>;
			policy?: ConnectionPolicy;
			signal?: AbortSignal;
		},
	): Promise<{ connection: McpConnection; definitions: McpToolDefinition[] }> {
		const { Client, Transport } = sdk();
		let connection: McpConnection | undefined;
		const fetch = guardedFetch({
			server,
			at: options.at,
			policy: options.policy ?? DEFAULT_MCP_POLICY,
			maxResponseBytes: MAX_MCP_RESPONSE_BYTES,
			deadline: () =>
				connection?.deadlineAt ??
				Date.now() + (server.timeout ?? DEFAULT_MCP_TIMEOUT_SECONDS) * 1000,
			mayRepeat: (body) => mayRepeat(body, options.readOnly),
			maxReconnections: MAX_RECONNECTIONS,
			onCut: (error) => connection?.failCurrent?.(error),
		});
		// Every reconnection goes through the guarded fetch, which counts them per operation and caps the server's hint;
		// the SDK may try once more than the count allows, so that the refusal of the last one fails the call at once.
		const reconnectionOptions = {
			maxRetries: MAX_RECONNECTIONS + 1,
			initialReconnectionDelay: FIRST_RECONNECTION_DELAY_MS,
			maxReconnectionDelay: MAX_RECONNECTION_DELAY_MS,
			reconnectionDelayGrowFactor: 2,
		};
		const transport = new Transport(new URL(server.url), {
			fetch: fetch.fetch,
			reconnectionOptions,
		});
		const client = new Client(
			{ name: 'n8n-agent-core', version: '1' },
			{ capabilities: {}, jsonSchemaValidator: UNCHECKED_OUTPUT },
		);
		connection = new McpConnection(server, client, transport, fetch);
		connection.deadlineAt = Date.now() + connection.timeoutMs;
		const opening = connection;
		try {
			await opening.failing((signal) =>
				client.connect(transport, {
					signal: anySignal(signal, options.signal),
					timeout: opening.timeoutMs,
				}),
			);
			const definitions: McpToolDefinition[] = [];
			let cursor: string | undefined;
			for (let page = 0; page < MAX_LIST_PAGES && definitions.length < MAX_LISTED_TOOLS; page++) {
				const remaining = Math.max(1, opening.deadlineAt - Date.now());
				const listed = await opening.failing((signal) =>
					client.listTools(cursor === undefined ? undefined : { cursor }, {
						signal: anySignal(signal, options.signal),
						timeout: remaining,
					}),
				);
				for (const tool of listed.tools) {
					// A tool that only runs as a task (call now, fetch later) cannot be called in one step.
					if (tool.execution?.taskSupport === 'required') continue;
					definitions.push({
						name: tool.name,
						...(tool.description === undefined ? {} : { description: tool.description }),
						inputSchema: tool.inputSchema as Record<string, unknown>,
						...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
					});
				}
				cursor = listed.nextCursor;
				if (!cursor) break;
			}
			return { connection, definitions: definitions.slice(0, MAX_LISTED_TOOLS) };
		} catch (error) {
			await connection.close();
			throw openingError(server, error);
		}
	}

	/** Calls the tool (the server's own name) within the server's timeout and `signal`; the SDK's errors are thrown as they are. */
	async callTool(
		name: string,
		args: Record<string, unknown>,
		signal: AbortSignal,
	): Promise<CallToolResult> {
		this.deadlineAt = Date.now() + this.timeoutMs;
		this.fetch.startOperation();
		try {
			// Content items are checked one by one: one bad image must not cost the model the result's text.
			const result = await this.failing((own) =>
				this.client.callTool(
					{ name, arguments: args },
					lenientCallResultSchema() as unknown as LenientSchema,
					{
						signal: anySignal(own, signal),
						timeout: this.timeoutMs,
					},
				),
			);
			return checkedCallResult(result as Parameters<typeof checkedCallResult>[0]);
		} catch (error) {
			throw callError(this.server, error, this.timeoutMs);
		}
	}

	/** Runs one SDK request, failed (and its request stopped) the moment the transport cuts an answer. */
	private async failing<T>(request: (signal: AbortSignal) => Promise<T>): Promise<T> {
		const own = new AbortController();
		const cut = new Promise<never>((_, reject) => {
			this.failCurrent = (error) => {
				own.abort(error);
				reject(error);
			};
		});
		try {
			return await Promise.race([request(own.signal), cut]);
		} finally {
			this.failCurrent = undefined;
		}
	}

	/** Ends the session (DELETE, waited for at most a second) and drops the connection; never throws. */
	async close(): Promise<void> {
		this.deadlineAt = Date.now() + CLOSE_WAIT_MS;
		let timer: NodeJS.Timeout | undefined;
		const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
		try {
			await Promise.race([this.transport.terminateSession().catch(() => undefined), waited]);
			await this.client.close().catch(() => undefined);
		} finally {
			clearTimeout(timer);
			this.fetch.close();
		}
	}
}

/** Whether a POST may be sent again after it may have reached the server: anything but a call of a tool with side effects. */
function mayRepeat(body: string, readOnly: ReadonlySet<string>): boolean {
	try {
		const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } };
		return (
			message.method !== 'tools/call' ||
			(typeof message.params?.name === 'string' && readOnly.has(message.params.name))
		);
	} catch {
		return false;
	}
}

const FIXES: Record<TransportProblem | 'protocol', (name: string) => string> = {
	refused: (name) =>
		`Use a public address, or set "allow_private_network": true on mcp_servers "${name}" if the server is on your own network.`,
	tls: () =>
		'Give the server a certificate from a trusted authority, or trust its authority with NODE_EXTRA_CA_CERTS=/path/to/ca.pem.',
	unreachable: (name) => `Check mcp_servers "${name}" url and that the server is running.`,
	reset: (name) => `Check mcp_servers "${name}" url and that the server is running.`,
	too_large: (name) =>
		`Narrow what mcp_servers "${name}" offers with "tools", or ask the server's operator.`,
	timeout: (name) =>
		`Raise mcp_servers "${name}" timeout (seconds), or check that the server answers.`,
	origin: (name) =>
		`Put the URL the server redirects to in mcp_servers "${name}" url, if you trust it.`,
	unauthorized: (name) => `Set the token mcp_servers "${name}" wants in its headers.`,
	forbidden: (name) => `Set a token with the rights mcp_servers "${name}" asks for in its headers.`,
	protocol: (name) =>
		`Check that mcp_servers "${name}" url is the server's streamable HTTP endpoint (often ending in /mcp).`,
};

function openingError(server: McpServerConfig, error: unknown): McpServerError {
	if (error instanceof McpServerError) return error;
	const transport = transportErrorIn(error);
	const problem: TransportProblem | 'protocol' =
		transport?.problem ?? (isTimeout(error) ? 'timeout' : 'protocol');
	const what = transport
		? transport.message
		: `MCP server "${server.name}" (${shownUrl(server)}) could not be used: ${describe(error)}`;
	return new McpServerError(
		server.name,
		what,
		transport?.fix ?? FIXES[problem](server.name),
		error,
	);
}

/** A failed call, as the model reads it (the engine prefixes the tool's name and redacts it). */
function callError(server: McpServerConfig, error: unknown, timeoutMs: number): Error {
	const transport = transportErrorIn(error);
	if (transport)
		return new Error(transport.message.replace(/^MCP server "[^"]*" \([^)]*\)/, 'the MCP server'));
	if (isTimeout(error))
		return new Error(
			`the MCP server did not answer within ${timeoutMs / 1000} s (mcp_servers "${server.name}" timeout)`,
		);
	const status = error instanceof sdk().HttpError ? error.code : undefined;
	if (status !== undefined && status >= 400)
		return new Error(`the MCP server answered HTTP ${status}: ${describe(error)}`);
	return new Error(`the MCP server answered with an error: ${describe(error)}`);
}

/** Aborted when either is (the second may be absent). */
function anySignal(own: AbortSignal, outer: AbortSignal | undefined): AbortSignal {
	return outer ? AbortSignal.any([own, outer]) : own;
}

function isTimeout(error: unknown): boolean {
	return (error as { code?: unknown })?.code === -32001;
}

function describe(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
