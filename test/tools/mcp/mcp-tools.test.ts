// MCP servers as governed tools (issue #32), in the library: server-everything (the reference server nobody here wrote) and small servers of our own, a scripted model.
import { runAgent } from '../../../src/agent/run-agent';
import { ConfigError } from '../../../src/settings/config';
import { McpServerError } from '../../../src/tools/mcp';
import { ToolRegistry } from '../../../src/tools/registry';
import { createChatModel } from '../../../src/providers/create-model';
import { action, final, useScriptedServer } from '../../support/agent';
import { startCanary, useLoopbackGuard } from '../../support/servers/http-servers';
import {
	startEverything,
	startTestMcpServer,
	text,
	type RunningMcpServer,
} from '../../support/servers/mcp-servers';

useLoopbackGuard();
const scripted = useScriptedServer();
/** The run's API key: a secret the run knows, so whatever a tool echoes of it is redacted. */
const API_KEY = 'sk-agent-core-test-0123456789abcdefghijklmnop';
const model = () =>
	createChatModel({
		provider: 'openai',
		apiKey: API_KEY,
		baseUrl: scripted().openaiBaseUrl,
		maxRetries: 0,
	});
const lastUserMessage = (index: number) =>
	[...scripted().requests[index].messages].reverse().find((message) => message.role === 'user')
		?.content ?? '';

let everything: RunningMcpServer;
const SHAPED_KEY = 'sk-ant-api03-ZZZZ1111yyyy2222xxxx3333wwww4444vvvv5555';
beforeAll(async () => {
	// A provider key in the server's environment, as a careless deployment would have it: get-env returns it.
	everything = await startEverything({
		OPENAI_API_KEY: API_KEY,
		ANTHROPIC_API_KEY: SHAPED_KEY,
		MCP_TEST_MARKER: 'visible-marker-4711',
	});
}, 30_000);
afterAll(() => everything.close());
beforeEach(() => everything.seen.splice(0));

const server = (extra: Record<string, unknown> = {}) => ({
	name: 'everything',
	url: everything.url,
	allow_private_network: true,
	...extra,
});

describe('server-everything over streamable HTTP', () => {
	it('offers its tools as everything.<tool> and feeds a call and its text result back to the model', async () => {
		scripted().setScript([action('everything.echo', { message: 'hello over MCP' }), final('done')]);
		const result = await runAgent({
			model: model(),
			config: { model: 'gpt-4o-mini', allowed_tools: ['everything.echo'], mcp_servers: [server()] },
			prompt: 'Echo it.',
		});
		expect(result.finish_reason).toBe('final');
		expect(lastUserMessage(1)).toContain('Echo: hello over MCP');
		expect(everything.calls('echo').map((call) => call.arguments)).toEqual([
			{ message: 'hello over MCP' },
		]);
		// The model was told of the tool by its description and schema.
		expect(JSON.stringify(scripted().requests[0].messages)).toContain('everything.echo');
		const [record] = result.trace[0].mcp_tools!;
		expect(record).toMatchObject({
			tool: 'everything.echo',
			pin: 'unpinned',
			read_only: false,
			annotations: { readOnlyHint: true },
		});
		expect(record.fingerprint).toMatch(/^[0-9a-f]{64}$/);
		expect(result.trace[0].notices!.join('\n')).toContain('not pinned');
	});

	it('opens the server once per run, for all its calls, and ends the session when the run ends', async () => {
		scripted().setScript([
			action('everything.echo', { message: 'one' }),
			action('everything.get-sum', { a: 2, b: 3 }),
			final('done'),
		]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.*'],
				mcp_servers: [server({ tools: ['echo', 'get-sum'] })],
			},
			prompt: 'Go.',
		});
		expect(result.finish_reason).toBe('final');
		expect(lastUserMessage(2)).toContain('The sum of 2 and 3 is 5');
		expect(everything.seen.filter((entry) => entry.method === 'initialize')).toHaveLength(1);
		expect(everything.seen.filter((entry) => entry.httpMethod === 'DELETE')).toHaveLength(1);
		expect(result.trace[0].mcp_tools!.map((record) => record.tool)).toEqual([
			'everything.echo',
			'everything.get-sum',
		]);
	});

	it('closes the session when the run is cancelled in the middle of a call', async () => {
		scripted().setScript([
			action('everything.trigger-long-running-operation', { duration: 20, steps: 2 }),
			final('never'),
		]);
		const controller = new AbortController();
		// Cancelled once the call reached the server, however long opening took.
		const cancel = setInterval(
			() => everything.calls('trigger-long-running-operation').length > 0 && controller.abort(),
			20,
		);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.trigger-long-running-operation'],
				mcp_servers: [server()],
			},
			prompt: 'Wait.',
			signal: controller.signal,
		});
		clearInterval(cancel);
		expect(result.finish_reason).toBe('cancelled');
		expect(everything.calls('trigger-long-running-operation')).toHaveLength(1);
		expect(everything.seen.filter((entry) => entry.httpMethod === 'DELETE')).toHaveLength(1);
	});

	it('compiles MCP tools into the protocol schema of json_schema mode like any tool', async () => {
		scripted().setScript([action('everything.get-sum', { a: 1, b: 2 }), final('3')]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				json_mode: 'json_schema',
				allowed_tools: ['everything.get-sum'],
				mcp_servers: [server()],
			},
			prompt: 'Add.',
		});
		expect(result.finish_reason).toBe('final');
		expect(JSON.stringify(scripted().requests[0].body.response_format)).toContain(
			'everything.get-sum',
		);
		expect(lastUserMessage(1)).toContain('The sum of 1 and 2 is 3');
	});

	it('gives structured content to the model as JSON text', async () => {
		scripted().setScript([
			action('everything.get-structured-content', { location: 'Chicago' }),
			final('done'),
		]);
		await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.get-structured-content'],
				mcp_servers: [server()],
			},
			prompt: 'Weather?',
		});
		expect(lastUserMessage(1)).toMatch(
			/structuredContent: \{"temperature":\d+,"conditions":"[^"]+","humidity":\d+\}/,
		);
	});

	it('gives an image to the model as a file beside the observation, never its bytes in the text (issue #40)', async () => {
		scripted().setScript([action('everything.get-tiny-image', {}), final('done')]);
		await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.get-tiny-image'],
				mcp_servers: [server()],
			},
			prompt: 'Image?',
		});
		expect(lastUserMessage(1)).toMatch(/\[image 1: image\/png, [\d,]+ bytes, returned as a file\]/);
		expect(lastUserMessage(1)).toContain('[the file this call returned follows this message');
		expect(lastUserMessage(1)).not.toContain('iVBORw0KGgo');
		expect(scripted().requests[1].files).toEqual([
			expect.objectContaining({ wire: 'image_url', type: 'image/png' }),
		]);
	});

	it('refuses arguments that fail the input schema before anything is sent: the server sees no call', async () => {
		scripted().setScript([action('everything.get-sum', { a: 'two', b: 3 }), final('could not')]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.get-sum'],
				mcp_servers: [server()],
			},
			prompt: 'Add.',
		});
		expect(result.trace[0].error).toMatchObject({ type: 'invalid_args' });
		expect(result.trace[0].error!.message).toContain('everything.get-sum args are invalid');
		expect(everything.calls()).toEqual([]);
	});

	it('never calls gzip-file-as-resource when allowed_tools leaves it out, even when the model asks for it', async () => {
		const canary = await startCanary();
		scripted().setScript([
			action('everything.gzip-file-as-resource', { name: 'x.gz', data: `${canary.url}/file` }),
			final('no'),
		]);
		const result = await runAgent({
			model: model(),
			config: { model: 'gpt-4o-mini', allowed_tools: ['everything.echo'], mcp_servers: [server()] },
			prompt: 'Zip it.',
		});
		expect(result.trace[0].error).toMatchObject({ type: 'tool_not_allowed' });
		expect(everything.calls()).toEqual([]);
		expect(canary.connections).toBe(0);
		// Nor is it offered under everything.* when the server's "tools" leaves it out.
		scripted().setScript([final('ok')]);
		const narrowed = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.*'],
				mcp_servers: [server({ tools: ['echo', 'get-env'] })],
			},
			prompt: 'Hi.',
		});
		expect(narrowed.trace[0].mcp_tools!.map((record) => record.tool)).toEqual([
			'everything.echo',
			'everything.get-env',
		]);
	});

	it("keeps provider keys in the server's environment (get-env) out of the model's requests and the output", async () => {
		scripted().setScript([action('everything.get-env', {}), final('I saw the environment')]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.get-env'],
				mcp_servers: [server()],
			},
			prompt: 'Show the environment.',
		});
		// The tool did run and its answer reached the model: the test could fail.
		expect(lastUserMessage(1)).toContain('visible-marker-4711');
		const sent = JSON.stringify(scripted().requests.map((request) => request.body));
		const output = JSON.stringify(result);
		for (const text of [sent, output]) {
			expect(text).not.toContain(API_KEY); // known to the run: redacted by value
			expect(text).not.toContain(SHAPED_KEY); // unknown, redacted by its shape
			expect(text).not.toContain('0123456789abcdefghijklmnop');
		}
		expect(lastUserMessage(1)).toContain('[REDACTED]');
	});

	it('shows the server annotations in the trace but counts a tool as side-effecting unless read_only names it', async () => {
		scripted().setScript([final('ok')]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.echo', 'everything.get-sum'],
				mcp_servers: [server({ read_only: ['get-sum'] })],
			},
			prompt: 'Hi.',
		});
		const records = Object.fromEntries(
			result.trace[0].mcp_tools!.map((record) => [record.tool, record]),
		);
		expect(records['everything.echo']).toMatchObject({
			read_only: false,
			annotations: { readOnlyHint: true, destructiveHint: false },
		});
		expect(records['everything.get-sum']).toMatchObject({ read_only: true });
	});
});

describe('refusals before any model call', () => {
	it('refuses a server on a private address without allow_private_network; the canary is never reached', async () => {
		const canary = await startCanary();
		scripted().setScript([final('never')]);
		const run = runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['local.anything'],
				mcp_servers: [{ name: 'local', url: `${canary.url}/mcp` }],
			},
			prompt: 'Hi.',
		});
		await expect(run).rejects.toThrow(McpServerError);
		await expect(run).rejects.toThrow(
			/MCP server "local" .* refused: 127\.0\.0\.1 is a loopback address/,
		);
		await run.catch((error: McpServerError) =>
			expect(error.fix).toContain('allow_private_network'),
		);
		expect(canary.connections).toBe(0);
		expect(scripted().requests).toHaveLength(0);
	});

	it('names a server that is not running and how to fix it', async () => {
		const gone = await startTestMcpServer(() => []);
		await gone.close();
		const run = runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['gone.tool'],
				mcp_servers: [{ name: 'gone', url: gone.url, allow_private_network: true }],
			},
			prompt: 'Hi.',
		});
		await expect(run).rejects.toThrow(
			/MCP server "gone" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) refused the connection/,
		);
		await run.catch((error: McpServerError) =>
			expect(error.fix).toBe('Check mcp_servers "gone" url and that the server is running.'),
		);
		expect(scripted().requests).toHaveLength(0);
	});

	it('refuses a tool that allowed_tools names and the server does not offer, listing what it offers', async () => {
		const run = runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['everything.nope'],
				mcp_servers: [server({ tools: ['echo'] })],
			},
			prompt: 'Hi.',
		});
		await expect(run).rejects.toThrow(
			'allowed_tools names everything.nope, which MCP server "everything" does not offer (it offers: echo)',
		);
	});

	it('checks the rest of the config before contacting any server', async () => {
		const run = runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				max_steps: 0,
				allowed_tools: ['everything.echo'],
				mcp_servers: [server()],
			},
			prompt: 'Hi.',
		});
		await expect(run).rejects.toThrow('max_steps must be an integer from 1 to 1000');
		expect(everything.seen).toEqual([]);
	});

	it('never contacts a server none of whose tools is allowed', async () => {
		scripted().setScript([final('ok')]);
		const result = await runAgent({
			model: model(),
			config: { model: 'gpt-4o-mini', allowed_tools: [], mcp_servers: [server()] },
			prompt: 'Hi.',
		});
		expect(result.finish_reason).toBe('final');
		expect(everything.seen).toEqual([]);
	});

	it.each([
		[
			{ name: 'Everything', url: 'http://127.0.0.1/mcp' },
			'mcp_servers[0].name must be 1 to 24 characters of a-z',
		],
		[
			{ name: 'a'.repeat(25), url: 'http://127.0.0.1/mcp' },
			'mcp_servers[0].name must be 1 to 24 characters',
		],
		[
			{ name: 'x', url: 'ftp://127.0.0.1/mcp' },
			'mcp_servers[0].url must be an http:// or https:// URL',
		],
		[
			{
				name: 'x',
				url: 'http://mcp.example.com/mcp',
				headers: { Authorization: 'Bearer abcdefgh' },
			},
			'mcp_servers[0].url is plain http, and headers are sent only over https',
		],
		[
			{ name: 'x', url: 'https://mcp.example.com/mcp', tool: ['a'] },
			'mcp_servers[0]: unknown property "tool"',
		],
		[
			{ name: 'x', url: 'https://mcp.example.com/mcp', pins: { a: 'abc' } },
			'mcp_servers[0].pins.a: must match pattern',
		],
		[
			{ name: 'x', url: 'https://mcp.example.com/mcp', headers: { 'Mcp-Session-Id': 'abcdef' } },
			'mcp_servers[0].headers.Mcp-Session-Id is set by the MCP transport itself',
		],
	])('refuses a bad mcp_servers entry naming the field (%#)', async (entry, message) => {
		const run = runAgent({
			model: model(),
			config: { model: 'gpt-4o-mini', allowed_tools: ['x.a'], mcp_servers: [entry] } as never,
			prompt: 'Hi.',
		});
		await expect(run).rejects.toThrow(ConfigError);
		await expect(run).rejects.toThrow(message);
	});

	it('leaves out a tool with an empty name (it would be offered as "<server>."), with a notice, and offers the others', async () => {
		const nameless = await startTestMcpServer(() => [
			{ name: '', call: () => text('nameless') },
			{ name: 'named', call: () => text('named') },
		]);
		try {
			scripted().setScript([final('ok')]);
			const result = await runAgent({
				model: model(),
				config: {
					model: 'gpt-4o-mini',
					allowed_tools: ['odd.*'],
					mcp_servers: [{ name: 'odd', url: nameless.url, allow_private_network: true }],
				},
				prompt: 'Hi.',
			});
			expect(result.trace[0].mcp_tools!.map((record) => record.tool)).toEqual(['odd.named']);
			expect(result.trace[0].notices).toContain(
				'odd. is left out: its name is empty, so it would be offered as "odd.", not a tool name the engine takes',
			);
			expect(JSON.stringify(scripted().requests[0].messages)).not.toMatch(/odd\.(?![a-z])/);
		} finally {
			await nameless.close();
		}
	});

	it("keeps server names short enough for the registry's tool-name limit, which is 64 characters", () => {
		const tool = (name: string) => ({
			name,
			description: 'x',
			parameters: { type: 'object' },
			execute: async () => 'x',
		});
		expect(() => new ToolRegistry([tool(`a${'b'.repeat(63)}`)])).not.toThrow();
		expect(() => new ToolRegistry([tool(`a${'b'.repeat(64)}`)])).toThrow(/is invalid/);
	});
});

describe('results and failures the model sees', () => {
	let small: RunningMcpServer;
	afterEach(() => small?.close());

	it('turns isError results and JSON-RPC errors into tool errors the model reads, never a crash', async () => {
		small = await startTestMcpServer(() => [
			{
				name: 'fails',
				call: () => ({ isError: true, content: [{ type: 'text', text: 'the database is down' }] }),
			},
			{
				name: 'throws',
				call: () => {
					throw new Error('internal trouble');
				},
			},
		]);
		scripted().setScript([
			action('small.fails', {}),
			action('small.throws', {}),
			final('both failed'),
		]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['small.*'],
				mcp_servers: [{ name: 'small', url: small.url, allow_private_network: true }],
			},
			prompt: 'Try.',
		});
		expect(result.trace[0].error!.message).toBe(
			'small.fails failed: the tool reported an error: the database is down',
		);
		expect(lastUserMessage(1)).toContain('the database is down');
		expect(result.trace[1].error!.message).toMatch(
			/^small\.throws failed: the MCP server answered with an error: .*internal trouble/,
		);
		expect(result.finish_reason).toBe('tool_error');
	});

	it('ends a call that hangs at the server timeout, as a tool error the model reads', async () => {
		small = await startTestMcpServer(() => [
			{
				name: 'hangs',
				call: (_args, _request, signal) =>
					new Promise((_, reject) =>
						signal.addEventListener('abort', () => reject(new Error('aborted'))),
					),
			},
		]);
		scripted().setScript([action('small.hangs', {}), final('it hung')]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['small.hangs'],
				mcp_servers: [{ name: 'small', url: small.url, allow_private_network: true, timeout: 1 }],
			},
			prompt: 'Try.',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].error).toEqual({
			type: 'tool_error',
			message:
				'small.hangs failed: the MCP server did not answer within 1 s (mcp_servers "small" timeout)',
		});
		expect(lastUserMessage(1)).toContain('did not answer within 1 s');
	});

	it('caps a 10 MB result at 1,000,000 characters before the observation cut, and fails one over 16 MB', async () => {
		small = await startTestMcpServer(() => [
			{ name: 'ten', call: () => text('x'.repeat(10 * 1024 * 1024)) },
			{ name: 'twenty', call: () => text('y'.repeat(20 * 1024 * 1024)) },
		]);
		scripted().setScript([action('small.ten', {}), action('small.twenty', {}), final('big')]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['small.*'],
				mcp_servers: [{ name: 'small', url: small.url, allow_private_network: true }],
				observation_max_len: 0,
			},
			prompt: 'Big.',
		});
		const observation = result.trace[0].observation!;
		expect(
			observation.startsWith(
				'[the result was cut to its first 1000000 of 10485760 characters]\nxxxx',
			),
		).toBe(true);
		expect(observation.length).toBe(
			1_000_000 + '[the result was cut to its first 1000000 of 10485760 characters]\n'.length,
		);
		expect(result.trace[1].error!.message).toMatch(
			/^small\.twenty failed: the MCP server answered more than 16777216 bytes/,
		);
	});
});
