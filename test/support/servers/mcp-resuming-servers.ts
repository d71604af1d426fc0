// MCP servers on loopback that end a tool call's event stream before its result: one built with the SDK's own classes and an event store, one speaking the wire by hand for hostile answers.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
	CallToolRequestSchema,
	ListToolsRequestSchema,
	type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';

/** One HTTP request the server saw: its method, the JSON-RPC method of a POST, and its headers. */
export interface ResumingSeen {
	httpMethod: string;
	method?: string;
	headers: http.IncomingHttpHeaders;
}

export interface ResumingServer {
	url: string;
	seen: ResumingSeen[];
	/** The GETs that resumed a stream (they carried Last-Event-ID). */
	resumptions(): ResumingSeen[];
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

async function serve(
	handler: (
		request: http.IncomingMessage,
		response: http.ServerResponse,
		body: string,
		seen: ResumingSeen[],
	) => Promise<void> | void,
): Promise<ResumingServer> {
	const seen: ResumingSeen[] = [];
	const server = http.createServer(async (request, response) => {
		const body = await readBody(request);
		const method = body ? (JSON.parse(body) as { method?: string }).method : undefined;
		seen.push({
			httpMethod: request.method ?? '',
			...(method ? { method } : {}),
			headers: request.headers,
		});
		await handler(request, response, body, seen);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
		seen,
		resumptions: () =>
			seen.filter(
				(entry) => entry.httpMethod === 'GET' && entry.headers['last-event-id'] !== undefined,
			),
		close: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

/**
 * A stateful server written with the SDK's Server and StreamableHTTPServerTransport, with the SDK's example event
 * store: its one tool, `slow`, ends the call's event stream (after the priming event with `retryMs`) before it
 * answers `result`, so the answer reaches the client only when it resumes with Last-Event-ID.
 */
export async function startSdkResumingServer(
	result: CallToolResult,
	retryMs = 100,
): Promise<ResumingServer> {
	const mcp = new Server(
		{ name: 'agent-core-resuming', version: '1' },
		{ capabilities: { tools: {} } },
	);
	mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
		tools: [{ name: 'slow', inputSchema: { type: 'object', properties: {} } }],
	}));
	mcp.setRequestHandler(CallToolRequestSchema, async (_call, extra) => {
		extra.closeSSEStream?.();
		// The result is stored for replay whatever the state of the stream; a turn lets the client see its stream end.
		await new Promise((resolve) => setImmediate(resolve));
		return result;
	});
	const transport = new StreamableHTTPServerTransport({
		sessionIdGenerator: randomUUID,
		eventStore: new InMemoryEventStore(),
		retryInterval: retryMs,
	});
	await mcp.connect(transport);
	const server = await serve((request, response, body) =>
		transport.handleRequest(request, response, body ? JSON.parse(body) : undefined),
	);
	return { ...server, close: async () => (await server.close(), await mcp.close()) };
}

/** An HTTP error the hand-written server answers instead of JSON-RPC. */
export interface HttpRefusal {
	code: number;
	headers?: Record<string, string>;
}

/** What the hand-written server does with a GET that resumes the call (`resumption` counts from 1). */
export type Resume = (response: http.ServerResponse, callId: unknown, resumption: number) => void;

/** The call's result as one SSE event with an id, and the stream ended. */
export const answerWith =
	(result: CallToolResult): Resume =>
	(response, callId, resumption) => {
		response.writeHead(200, { 'content-type': 'text/event-stream' });
		response.end(
			`id: resumed-${resumption}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: callId, result })}\n\n`,
		);
	};

/** Another event id and the stream ended again, never the result. */
export const endAgain: Resume = (response, _callId, resumption) => {
	response.writeHead(200, { 'content-type': 'text/event-stream' });
	response.end(`id: resumed-${resumption}\ndata: \n\n`);
};

/**
 * A server speaking streamable HTTP by hand (MCP 2025-11-25): JSON answers to initialize and tools/list (one tool,
 * `wait`), 405 to the client's own GET stream, and to tools/call an event
 * stream of one priming event (`id`, then `retry: <retry>`) ended before the result; `resume` answers the GETs
 * that carry Last-Event-ID. `status` may answer every POST with an HTTP error instead (a 401, say), `callStatus`
 * only the tools/call.
 */
export async function startWireServer(options: {
	retry?: string;
	resume?: Resume;
	status?: HttpRefusal;
	callStatus?: HttpRefusal;
}): Promise<ResumingServer> {
	let callId: unknown;
	let resumption = 0;
	const json = (response: http.ServerResponse, id: unknown, result: unknown) => {
		response.writeHead(200, {
			'content-type': 'application/json',
			'mcp-session-id': 'wire-session',
		});
		response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
	};
	return serve((request, response, body) => {
		const message =
			request.method === 'POST'
				? (JSON.parse(body) as { id?: unknown; method: string })
				: undefined;
		const refusal =
			options.status ?? (message?.method === 'tools/call' ? options.callStatus : undefined);
		if (refusal && message) {
			response.writeHead(refusal.code, { 'content-type': 'text/plain', ...refusal.headers });
			response.end('no entry');
			return;
		}
		if (request.method === 'GET') {
			if (request.headers['last-event-id'] === undefined || !options.resume) {
				response.writeHead(405).end();
				return;
			}
			options.resume(response, callId, ++resumption);
			return;
		}
		if (!message) {
			response.writeHead(200).end();
			return;
		}
		if (message.id === undefined) {
			response.writeHead(202).end();
		} else if (message.method === 'initialize') {
			json(response, message.id, {
				protocolVersion: '2025-11-25',
				capabilities: { tools: {} },
				serverInfo: { name: 'wire', version: '1' },
			});
		} else if (message.method === 'tools/list') {
			json(response, message.id, {
				tools: [{ name: 'wait', inputSchema: { type: 'object', properties: {} } }],
			});
		} else if (message.method === 'tools/call') {
			callId = message.id;
			response.writeHead(200, {
				'content-type': 'text/event-stream',
				'mcp-session-id': 'wire-session',
			});
			response.end(`id: primed\nretry: ${options.retry ?? '100'}\ndata: \n\n`);
		} else {
			json(response, message.id, {});
		}
	});
}
