import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointKey, DEFAULT_CHECKPOINT_PREFIX } from '../../src/run-state/checkpoint-store';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli, type CliRun } from '../support/cli';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';
import { useTestRedis } from '../support/redis';

useLoopbackGuard();

const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

/** Issue #30 through the CLI: `run --run-key KEY` checkpoints in Redis; the same command after a crash goes on where the run was. */
describe('agent-core run --run-key', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	const SECRET = { AGENT_CORE_STATE_SECRET: 'cli-durable-secret-0123456789' };
	let folder: string;
	let config: string;
	let orders: TestServer;
	const runKeys: string[] = [];
	const newRunKey = () => {
		const key = `cli-durable-${randomUUID()}`;
		runKeys.push(key);
		return key;
	};

	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-durable-'));
		config = join(folder, 'config.json');
		writeFileSync(
			config,
			JSON.stringify({
				model: 'm',
				allowed_tools: ['http_request'],
				tool_settings: { http_request: PRIVATE_ALLOWED },
			}),
		);
	});
	beforeEach(async () => {
		orders = await startServer((request, response) =>
			sendJson(response, { order: 1, key: request.headers['idempotency-key'] ?? null }),
		);
	});
	afterEach(async () => {
		// The CLI keeps checkpoints under the default prefix: each test's are deleted after it.
		for (const key of runKeys.splice(0))
			await redis.admin.del(checkpointKey(DEFAULT_CHECKPOINT_PREFIX, key));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	const args = (runKey: string, extra: string[] = []) => [
		'run',
		'--config',
		config,
		'--prompt',
		'Order one book.',
		'--base-url',
		server().openaiBaseUrl,
		'--api-key',
		'k',
		'--redis-url',
		redis.url,
		'--run-key',
		runKey,
		...extra,
	];

	/** The CLI killed with SIGKILL as soon as the model is asked for step `killAt`: a worker dying mid-run. */
	function runUntilKilled(
		cliArgs: string[],
		killAt: number,
	): Promise<CliRun & { signal: NodeJS.Signals | null }> {
		return new Promise((resolve) => {
			const child = spawn(process.execPath, [CLI, ...cliArgs], {
				env: { PATH: process.env.PATH ?? '', ...SECRET },
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			let stdout = '';
			let stderr = '';
			child.stdout.on('data', (chunk) => (stdout += chunk));
			child.stderr.on('data', (chunk) => (stderr += chunk));
			server().setScript((request) => {
				if (request.callIndex + 1 === killAt) {
					child.kill('SIGKILL');
					return { delayMs: 5_000, text: final('never answered') };
				}
				return action('http_request', {
					url: `${orders.url}/orders`,
					method: 'POST',
					body: { item: 'book' },
				});
			});
			child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
		});
	}

	it('a run killed while it waits on the model after a POST goes on when run again: the POST is not sent again, the model is asked only for the next step', async () => {
		const runKey = newRunKey();
		const killed = await runUntilKilled(args(runKey), 2);
		expect(killed.signal).toBe('SIGKILL');
		expect(orders.requests.map((request) => request.method)).toEqual(['POST']);
		expect(server().requests).toHaveLength(2);

		server().setScript([final('Ordered one book.')]);
		const again = await runCli(args(runKey), SECRET);
		expect(again.stderr).toBe('');
		expect(again.code).toBe(0);
		const result = JSON.parse(again.stdout);
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Ordered one book.',
			used_tools: { http_request: { count: 1 } },
		});
		expect(result.trace.map((step: { step: number }) => step.step)).toEqual([1, 2]);
		expect(orders.requests).toHaveLength(1);
		expect(orders.requests[0].headers['idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
		// One model call for the rest of the run, carrying the whole conversation.
		expect(server().requests).toHaveLength(3);
		expect(
			server()
				.requests[2].messages.slice(1)
				.map((message) => message.role),
		).toEqual(['user', 'assistant', 'user']);
	});

	it('the same command after the run finished prints the same result without asking the model', async () => {
		const runKey = newRunKey();
		server().setScript([final('Done.')]);
		const first = await runCli(args(runKey), SECRET);
		expect(first.code).toBe(0);
		const second = await runCli(args(runKey), SECRET);
		expect(second.code).toBe(0);
		expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
		expect(server().requests).toHaveLength(1);
	});

	it('refuses --run-key without AGENT_CORE_STATE_SECRET before any model call, saying how to set one', async () => {
		server().setScript([final('never')]);
		const refused = await runCli(args(newRunKey()));
		expect(refused.code).toBe(2);
		expect(refused.stderr).toMatch(
			/^agent-core: a durable run's checkpoints are sealed and signed like a paused run's state: they need a signing key of at least 16 characters/,
		);
		expect(refused.stderr).toContain('AGENT_CORE_STATE_SECRET');
		expect(server().requests).toHaveLength(0);
	});

	it('refuses another config under the same run key, naming it (exit 2)', async () => {
		const runKey = newRunKey();
		server().setScript([final('Done.')]);
		expect((await runCli(args(runKey), SECRET)).code).toBe(0);
		const other = join(folder, 'other.json');
		writeFileSync(other, JSON.stringify({ model: 'm', max_steps: 4 }));
		const refused = await runCli(['run', '--config', other, ...args(runKey).slice(3)], SECRET);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain(
			`agent-core: run key "${runKey}" has a checkpoint of a run with another configuration`,
		);
	});

	it.each([[['--run-key', ''], '--run-key needs a key']])('rejects %j', async (extra, message) => {
		const refused = await runCli(
			[
				'run',
				'--config',
				config,
				'--prompt',
				'hi',
				'--api-key',
				'k',
				'--redis-url',
				redis.url,
				...extra,
			],
			SECRET,
		);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain(message);
	});

	it('--run-key belongs to run, not resume', async () => {
		const refused = await runCli(
			[
				'resume',
				'--config',
				config,
				'--state',
				join(folder, 'state.json'),
				'--approve',
				'--run-key',
				'x',
			],
			SECRET,
		);
		expect(refused).toMatchObject({
			code: 2,
			stderr: expect.stringContaining('--run-key belongs to agent-core run'),
		});
	});
});
