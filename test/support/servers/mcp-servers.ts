// MCP servers for tests, all on loopback: the reference server-everything (a child process, behind a recording proxy) and small ones written here with the SDK's server classes.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
	CallToolRequestSchema,
	ListToolsRequestSchema,
	type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { freeLoopbackPort } from '../redis';

/** One HTTP request an MCP client sent, as a server or the proxy saw it: the JSON-RPC method and, for tools/call, the tool. */
export interface SeenRequest {
	httpMethod: string;
	/** The JSON-RPC id of a request, for a test that answers it itself. */
	id?: unknown;
	method?: string;
	tool?: string;
	arguments?: unknown;
	headers: http.IncomingHttpHeaders;
}

export interface RunningMcpServer {
	/** The streamable HTTP endpoint, `http://127.0.0.1:PORT/mcp`. */
	url: string;
	seen: SeenRequest[];
	/** The tools/call requests seen, by tool. */
	calls(tool?: string): SeenRequest[];
	close(): Promise<void>;
}

function readBody(request: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

function seenOf(request: http.IncomingMessage, body: string): SeenRequest {
	let message: { id?: unknown; method?: string; params?: { name?: string; arguments?: unknown } } =
		{};
	try {
		message = body ? JSON.parse(body) : {};
	} catch {
		// Not JSON: recorded by its HTTP method only.
	}
	return {
		httpMethod: request.method ?? '',
		id: message.id,
		method: message.method,
		tool: message.params?.name,
		arguments: message.params?.arguments,
		headers: request.headers,
	};
}

async function listen(server: http.Server): Promise<number> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return (server.address() as AddressInfo).port;
}

function closeServer(server: http.Server): Promise<void> {
	server.closeAllConnections();
	return new Promise((resolve) => server.close(() => resolve()));
}

const EVERYTHING = join(
	__dirname,
	'..',
	'..',
	'..',
	'node_modules',
	'@modelcontextprotocol',
	'server-everything',
	'dist',
	'index.js',
);

/**
 * `@modelcontextprotocol/server-everything` over streamable HTTP, started on a free port with `env` added to a bare
 * environment (it listens on every interface; it is reached on 127.0.0.1), behind a loopback proxy that records each
 * request (so a test can say which tools were called) and passes the answer through as it streams.
 */
export async function startEverything(env: Record<string, string> = {}): Promise<RunningMcpServer> {
	const port = await freeLoopbackPort();
	const child: ChildProcess = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
		env: { PATH: process.env.PATH ?? '', PORT: String(port), ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	await new Promise<void>((resolve, reject) => {
		let output = '';
		const timer = setTimeout(
			() => reject(new Error(`server-everything did not start: ${output}`)),
			20_000,
		);
		const read = (chunk: Buffer) => {
			output += chunk.toString();
			if (output.includes(`listening on port ${port}`)) {
				clearTimeout(timer);
				resolve();
			}
		};
		child.stdout!.on('data', read);
		child.stderr!.on('data', read);
		child.once('exit', (code) =>
			reject(new Error(`server-everything exited (${code}): ${output}`)),
		);
	});
	const seen: SeenRequest[] = [];
	const proxy = http.createServer(async (request, response) => {
		const body = await readBody(request);
		seen.push(seenOf(request, body));
		const upstream = http.request(
			{
				host: '127.0.0.1',
				port,
				path: request.url,
				method: request.method,
				headers: request.headers,
			},
			(answer) => {
				response.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(response);
			},
		);
		upstream.on('error', () => response.destroy());
		upstream.end(body);
	});
	const proxyPort = await listen(proxy);
	return {
		url: `http://127.0.0.1:${proxyPort}/mcp`,
		seen,
		calls: (tool) =>
			seen.filter(
				(entry) => entry.method === 'tools/call' && (tool === undefined || entry.tool === tool),
			),
		async close() {
			await closeServer(proxy);
			if (child.exitCode === null) {
				const exited = new Promise((resolve) => child.once('exit', resolve));
				child.kill('SIGKILL');
				await exited;
			}
		},
	};
}

/** A tool of a test server: what tools/list says of it, and what a call returns (or throws). */
export interface TestTool {
	name: string;
	description?: string;
	inputSchema?: Record<string, unknown>;
	annotations?: Record<string, unknown>;
	call?(
		args: Record<string, unknown>,
		request: SeenRequest,
		signal: AbortSignal,
	): Promise<CallToolResult> | CallToolResult;
}

/**
 * A small MCP server written with the SDK's own server classes (stateless streamable HTTP: each request gets a new
 * server), offering `tools()` as they are at each tools/list, so a test can change a definition between two runs.
 * `before` may answer a request itself (a 503, a redirect) instead of the server.
 */
export async function startTestMcpServer(
	tools: () => TestTool[],
	before?: (request: SeenRequest, response: http.ServerResponse) => boolean,
): Promise<RunningMcpServer> {
	const seen: SeenRequest[] = [];
	const server = http.createServer(async (request, response) => {
		const body = await readBody(request);
		const entry = seenOf(request, body);
		seen.push(entry);
		if (before?.(entry, response)) return;
		const mcp = new Server(
			{ name: 'agent-core-test', version: '1' },
			{ capabilities: { tools: {} } },
		);
		mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
			tools: tools().map((tool) => ({
				name: tool.name,
				description: tool.description,
				inputSchema: tool.inputSchema ?? { type: 'object', properties: {} },
				...(tool.annotations ? { annotations: tool.annotations } : {}),
			})),
		}));
		mcp.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
			const tool = tools().find((candidate) => candidate.name === call.params.name);
			if (!tool?.call) throw new Error(`no tool ${call.params.name}`);
			return tool.call(call.params.arguments ?? {}, entry, extra.signal);
		});
		const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
		response.on('close', () => {
			void transport.close();
			void mcp.close();
		});
		await mcp.connect(transport);
		await transport.handleRequest(request, response, body ? JSON.parse(body) : undefined);
	});
	const port = await listen(server);
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		seen,
		calls: (tool) =>
			seen.filter(
				(entry) => entry.method === 'tools/call' && (tool === undefined || entry.tool === tool),
			),
		close: () => closeServer(server),
	};
}

/** A text result. */
export const text = (value: string): CallToolResult => ({
	content: [{ type: 'text', text: value }],
});
