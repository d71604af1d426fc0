// Several tool calls in one reply (issue #42) through the CLI: max_parallel_calls and tool_settings.<tool>.timeout in --config.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { final, lastUserMessage, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
} from '../support/servers/http-servers';

useLoopbackGuard();

const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

describe('agent-core run with an "actions" reply', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-cli-parallel-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	async function run(config: Record<string, unknown>) {
		const path = join(folder, `config-${Math.random().toString(36).slice(2)}.json`);
		writeFileSync(path, JSON.stringify({ model: 'm', ...config }));
		const result = await runCli([
			'run',
			'--config',
			path,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
		]);
		return result;
	}

	const transform = (n: number) =>
		['json_transform', { data: { a: [n] }, expression: 'a[0]' }] as [
			string,
			Record<string, unknown>,
		];

	it('runs every call of the batch in one step and returns their observations in one message (default 4)', async () => {
		server().setScript([actions(transform(1), transform(2), transform(3)), final('1, 2, 3')]);
		const result = await run({ allowed_tools: ['json_transform'] });
		expect(result.stderr).toBe('');
		const output = JSON.parse(result.stdout);
		expect(output.finish_reason).toBe('final');
		expect(output.trace[0].calls.map((call: { observation: string }) => call.observation)).toEqual([
			'1',
			'2',
			'3',
		]);
		expect(output.used_tools.json_transform.count).toBe(3);
		expect(server().requests[0].messages[0].content).toContain(
			'{"type":"actions","calls":[≤4 {"tool","args"}]}',
		);
		expect(lastUserMessage(server(), 1)).toContain('\ncall 3 (json_transform):\n3\n');
	});

	it('max_tool_calls 2 with a batch of 3: two run and the run ends max_tool_calls', async () => {
		server().setScript([actions(transform(1), transform(2), transform(3))]);
		const output = JSON.parse(
			(await run({ allowed_tools: ['json_transform'], max_tool_calls: 2 })).stdout,
		);
		expect(output.finish_reason).toBe('max_tool_calls');
		expect(output.used_tools.json_transform.count).toBe(2);
		expect(output.trace[0].calls[2].observation).toContain('not run: max_tool_calls (2) reached');
	});

	it('max_parallel_calls 1 in the config file: "actions" is not offered and a reply using it is a protocol error', async () => {
		server().setScript([actions(transform(1)), final('one at a time')]);
		const output = JSON.parse(
			(await run({ allowed_tools: ['json_transform'], max_parallel_calls: 1 })).stdout,
		);
		expect(output.trace[0].error.type).toBe('parse_error');
		expect(output.trace[0].error.message).toContain('Send one action');
		expect(server().requests[0].messages[0].content).not.toContain('"actions"');
	});

	it('refuses max_parallel_calls outside 1–16 and a tool timeout that is not seconds, naming the field', async () => {
		const tooMany = await run({ allowed_tools: ['json_transform'], max_parallel_calls: 17 });
		expect(tooMany.code).not.toBe(0);
		expect(tooMany.stderr).toContain('max_parallel_calls');
		const badTimeout = await run({
			allowed_tools: ['json_transform'],
			tool_settings: { json_transform: { timeout: -1 } },
		});
		expect(badTimeout.code).not.toBe(0);
		expect(badTimeout.stderr).toContain(
			'tool_settings.json_transform.timeout must be a number of seconds',
		);
		expect(badTimeout.stderr).not.toMatch(/\n\s+at /);
	});

	it('a batch pauses before the call that needs approval; resume --decisions decides it by number', async () => {
		const payments = await startServer((_, response) => sendJson(response, { charged: true }));
		const env = { AGENT_CORE_STATE_SECRET: 'cli-parallel-secret-0123456789' };
		const config = join(folder, 'approval.json');
		writeFileSync(
			config,
			JSON.stringify({
				model: 'm',
				allowed_tools: ['json_transform', 'http_request'],
				approval_required: ['http_request'],
				tool_settings: { http_request: PRIVATE_ALLOWED },
			}),
		);
		const provider = ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];
		server().setScript([
			actions(transform(7), ['http_request', { url: `${payments.url}/charge`, method: 'POST' }]),
		]);
		const run = await runCli(['run', '--config', config, '--prompt', 'go', ...provider], env);
		const paused = JSON.parse(run.stdout);
		expect(paused.pending_action).toMatchObject({
			tool: 'http_request',
			call: 2,
			batch: [{ status: 'ran' }, { status: 'needs_approval' }],
		});
		const state = join(folder, 'state.json');
		writeFileSync(state, JSON.stringify(paused.run_state));
		const resume = (...decision: string[]) =>
			runCli(['resume', '--config', config, '--state', state, ...decision, ...provider], env);

		const broken = await resume('--decisions', '{"2": ');
		expect(broken.code).toBe(2);
		expect(broken.stderr).toContain('--decisions: not valid JSON');
		server().setScript([final('Not charged.')]);
		const resumed = await resume('--decisions', '{"2": {"deny": "not today"}}');
		expect(JSON.parse(resumed.stdout)).toMatchObject({ finish_reason: 'final' });
		expect(payments.requests).toHaveLength(0);
		expect(lastUserMessage(server(), 1)).toContain('Their reason: not today');
	});
});
