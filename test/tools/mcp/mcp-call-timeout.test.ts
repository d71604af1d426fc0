// Issue #42, per-tool timeouts for MCP tools: a server's `timeout` is its tools' call limit in place of
// single_call_timeout, longer or shorter, and the error names the setting that applied. MCP tools take no tool_settings.
import { runAgent } from '../../../src/agent/run-agent';
import { ConfigError } from '../../../src/settings/config';
import { createChatModel } from '../../../src/providers/create-model';
import { action, final, useScriptedServer } from '../../support/agent';
import { useLoopbackGuard } from '../../support/servers/http-servers';
import { startTestMcpServer, text, type RunningMcpServer } from '../../support/servers/mcp-servers';

useLoopbackGuard();
const scripted = useScriptedServer();
const model = () =>
	createChatModel({
		provider: 'openai',
		apiKey: 'sk-agent-core-test-0123456789abcdefghijklmnop',
		baseUrl: scripted().openaiBaseUrl,
		maxRetries: 0,
	});

let small: RunningMcpServer;
beforeAll(async () => {
	small = await startTestMcpServer(() => [
		{
			// Answers after a hold longer than the runs' single_call_timeout of 0.5 s.
			name: 'slow',
			call: () => new Promise((resolve) => setTimeout(() => resolve(text('late')), 1500)),
		},
		{
			name: 'hangs',
			call: (_args, _request, signal) =>
				new Promise((_, reject) =>
					signal.addEventListener('abort', () => reject(new Error('aborted'))),
				),
		},
	]);
});
afterAll(() => small.close());
beforeEach(() => small.seen.splice(0));

/** One call to `tool` of the server `small` given `timeout`, under single_call_timeout 0.5 s. */
async function callOnce(tool: string, timeout: number | undefined, extra = {}) {
	scripted().setScript([action(tool, {}), final('done')]);
	return runAgent({
		model: model(),
		config: {
			model: 'gpt-4o-mini',
			allowed_tools: ['small.*'],
			single_call_timeout: 0.5,
			mcp_servers: [{ name: 'small', url: small.url, allow_private_network: true, timeout }],
			...extra,
		},
		prompt: 'Go.',
	});
}

it("a server's longer timeout replaces single_call_timeout for its tools: the slow call completes", async () => {
	const result = await callOnce('small.slow', 30);
	expect(result.trace[0].error).toBeUndefined();
	expect(result.trace[0].observation).toContain('late');
});

it("a server's timeout applies even when single_call_timeout is shorter, and the error names the server's setting", async () => {
	const result = await callOnce('small.hangs', 1);
	expect(result.trace[0].error).toEqual({
		type: 'tool_error',
		message:
			'small.hangs failed: the MCP server did not answer within 1 s (mcp_servers "small" timeout)',
	});
});

it('without a server timeout, single_call_timeout ends the call and is the setting named', async () => {
	const result = await callOnce('small.hangs', undefined);
	expect(result.trace[0].error).toEqual({
		type: 'tool_timeout',
		message: 'small.hangs did not finish within single_call_timeout (0.5 s)',
	});
});

it('tool_settings naming an MCP tool is refused, pointing to the server timeout, before the server is contacted', async () => {
	const run = callOnce('small.slow', 30, { tool_settings: { 'small.slow': { timeout: 60 } } });
	await expect(run).rejects.toThrow(ConfigError);
	await expect(run).rejects.toThrow(
		'tool_settings names "small.slow", a tool of the MCP server "small"; MCP tools take no tool_settings',
	);
	await run.catch((error: ConfigError) =>
		expect(error.fix).toContain('set mcp_servers "small" timeout (seconds)'),
	);
	expect(small.seen).toEqual([]);
	expect(scripted().requests).toHaveLength(0);
});
