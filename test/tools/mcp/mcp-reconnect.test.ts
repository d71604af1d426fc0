// MCP tool calls whose event stream ends before the result (issue #38): resumed with Last-Event-ID through the guarded fetch, a bounded number of times, the server's wait capped.
import { runAgent } from '../../../src/agent/run-agent';
import { createChatModel } from '../../../src/providers/create-model';
import { MAX_RECONNECTIONS } from '../../../src/tools/mcp/connection';
import { cappedRetryHints } from '../../../src/tools/mcp/event-stream';
import { action, final, useScriptedServer } from '../../support/agent';
import { startCanary, useLoopbackGuard } from '../../support/servers/http-servers';
import {
	answerWith,
	endAgain,
	startSdkResumingServer,
	startWireServer,
	type ResumingServer,
} from '../../support/servers/mcp-resuming-servers';
import { text } from '../../support/servers/mcp-servers';

useLoopbackGuard();
const scripted = useScriptedServer();
const model = () =>
	createChatModel({
		provider: 'openai',
		apiKey: 'sk-reconnect-test-key-0123456789',
		baseUrl: scripted().openaiBaseUrl,
		maxRetries: 0,
	});
const SECRET = 'mcp-reconnect-header-secret-4242';

let server: ResumingServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** One run that calls `<name>.<tool>` once; the MCP timeout (10 s) is far inside the test's, so a hang fails by its error. */
const callOnce = (name: string, tool: string, extra: Record<string, unknown> = {}) => {
	scripted().setScript([action(`${name}.${tool}`, {}), final('done')]);
	const entry = { name, url: server!.url, allow_private_network: true, timeout: 10, ...extra };
	return runAgent({
		model: model(),
		config: { model: 'gpt-4o-mini', allowed_tools: [`${name}.${tool}`], mcp_servers: [entry] },
		prompt: 'Go.',
	});
};

describe('a call whose event stream ends before its result', () => {
	it('resumes it with Last-Event-ID and reads the result (a server of the SDK with an event store)', async () => {
		server = await startSdkResumingServer(text('finished after the stream was closed'));
		const result = await callOnce('sdk', 'slow');
		expect(result.trace[0].error).toBeUndefined();
		expect(result.trace[0].observation).toBe('finished after the stream was closed');
		expect(server.resumptions().length).toBeGreaterThanOrEqual(1);
	}, 30_000);

	it('gives a tool error, not a hang, when the server keeps ending the stream without the result: at most MAX_RECONNECTIONS resumptions', async () => {
		server = await startWireServer({ resume: endAgain });
		const result = await callOnce('wire', 'wait');
		expect(result.trace[0].error!.message).toMatch(
			/^wire\.wait failed: the MCP server ended its event stream \d+ times without the answer; it was not opened again/,
		);
		expect(server.resumptions()).toHaveLength(MAX_RECONNECTIONS);
		expect(result.finish_reason).toBe('final');
	}, 30_000);

	it('caps a hostile retry hint (retry: 3600000): the call is still resumed and answered within its MCP timeout', async () => {
		server = await startWireServer({
			retry: '3600000',
			resume: answerWith(text('answered despite the hint')),
		});
		const result = await callOnce('slowpoke', 'wait');
		expect(result.trace[0].error).toBeUndefined();
		expect(result.trace[0].observation).toBe('answered despite the hint');
		expect(server.resumptions()).toHaveLength(1);
	}, 30_000);

	it('resumes through the guarded fetch: the headers go with it, and a redirect elsewhere is refused at once; the canary is never reached', async () => {
		const canary = await startCanary();
		server = await startWireServer({
			resume: (response) => {
				response.writeHead(307, { location: `${canary.url}/mcp` });
				response.end();
			},
		});
		const result = await callOnce('moved', 'wait', { headers: { 'X-Api-Token': SECRET } });
		expect(result.trace[0].error!.message).toMatch(
			/^moved\.wait failed: the MCP server sent the resumption of its event stream to http:\/\/127\.0\.0\.1:\d+, another origin; it was not followed/,
		);
		expect(server.resumptions().map((request) => request.headers['x-api-token'])).toEqual([SECRET]);
		expect(canary.connections).toBe(0);
		expect(JSON.stringify(result)).not.toContain(SECRET);
	}, 30_000);
});

describe('the retry hint cap', () => {
	/** The stream as the transform passes it on, fed in the given chunks. */
	const through = async (chunks: string[]) => {
		const hints = cappedRetryHints(2000);
		const out: Buffer[] = [];
		hints.on('data', (chunk: Buffer) => out.push(chunk));
		const ended = new Promise((resolve) => hints.on('end', resolve));
		for (const chunk of chunks) hints.write(Buffer.from(chunk, 'utf8'));
		hints.end();
		await ended;
		return Buffer.concat(out).toString('utf8');
	};

	it('lowers a hint split across chunks and line ends of every kind, and keeps every other byte as it came', async () => {
		expect(await through(['id: 1\r\nret', 'ry: 36000', '00\r', '\ndata: é ✓\n\n'])).toBe(
			'id: 1\r\nretry: 2000\r\ndata: é ✓\n\n',
		);
		expect(await through(['retry:99999999999999999999\rdata: x\n\n'])).toBe(
			'retry:2000\rdata: x\n\n',
		);
		expect(await through(['retry: 100\n', 'data: retry: 5000\n', 'retry: 5s\n\n'])).toBe(
			'retry: 100\ndata: retry: 5000\nretry: 5s\n\n',
		);
		expect(await through(['retry: 4000'])).toBe('retry: 2000');
	});
});
