import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { final, useScriptedServer } from '../../support/agent';
import { runCli } from '../../support/cli';
import { deleteKeysByPrefix, getTestRedis, type TestRedis } from '../../support/redis';
import { startTcpProxy } from '../../support/servers/tcp-proxy';

describe('agent-core run --session: one conversation across runs', () => {
	const server = useScriptedServer();
	let redis: TestRedis;
	let client: Redis;
	let folder: string;
	let config: string;
	const session = `cli-${randomUUID()}`;

	beforeAll(async () => {
		redis = await getTestRedis();
		client = new Redis(redis.url);
		folder = mkdtempSync(join(tmpdir(), 'agent-core-session-'));
		config = join(folder, 'config.json');
		writeFileSync(config, JSON.stringify({ model: 'm' }));
	});
	afterAll(async () => {
		await deleteKeysByPrefix(client, `{agent_core:ctx:${session}`);
		client.disconnect();
		await redis.stop();
		rmSync(folder, { recursive: true, force: true });
	});

	const sessionArgs = (prompt: string, extra: string[] = []) => [
		'run',
		'--config',
		config,
		'--prompt',
		prompt,
		'--base-url',
		server().openaiBaseUrl,
		'--api-key',
		'k',
		'--session',
		session,
		...extra,
	];

	it('prepares before and persists after each run, so the second run sees the first turn', async () => {
		server().setScript((request) =>
			final(
				request.messages.slice(0, -1).some((message) => message.content.includes('My name is Ada'))
					? 'Your name is Ada.'
					: 'Nice to meet you.',
			),
		);
		const first = await runCli(
			sessionArgs('My name is Ada', ['--context', 'redis', '--redis-url', redis.url]),
		);
		expect(first.stderr).toBe('');
		expect(JSON.parse(first.stdout)).toMatchObject({
			final_answer: 'Nice to meet you.',
			session_id: session,
			context: { history_turns: 0, stored_turns: 1 },
		});

		const second = await runCli(
			sessionArgs('What is my name?', ['--context', 'redis', '--redis-url', redis.url]),
		);
		expect(JSON.parse(second.stdout)).toMatchObject({
			final_answer: 'Your name is Ada.',
			context: { history_turns: 1, stored_turns: 2 },
		});
		const roles = server().requests[1].messages.map(
			(message) => `${message.role}:${message.content.slice(0, 20)}`,
		);
		expect(roles.slice(1)).toEqual([
			'user:My name is Ada',
			'assistant:{"type":"final","ans',
			'user:What is my name?',
		]);
	});

	it('says clearly when Redis is not there, within seconds', async () => {
		const started = Date.now();
		const run = await runCli(
			sessionArgs('hi', ['--context', 'redis', '--redis-url', 'redis://127.0.0.1:1']),
		);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/^agent-core: Redis at 127\.0\.0\.1:1 is unreachable/);
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it("prints the run's output when Redis is lost before its turn is stored: context says so, and stderr too", async () => {
		const proxy = await startTcpProxy({ port: Number(new URL(redis.url).port) || 6379 });
		try {
			server().setScript(final('Stored nowhere.'));
			// The connection is cut as the turn is written: the bytes carrying the answer never reach Redis.
			proxy.cutWhen('Stored nowhere.', 5);
			const run = await runCli(
				sessionArgs('hello', [
					'--context',
					'redis',
					'--redis-url',
					`redis://127.0.0.1:${proxy.port}`,
				]),
			);
			expect(run.code).toBe(0);
			expect(JSON.parse(run.stdout)).toMatchObject({
				final_answer: 'Stored nowhere.',
				finish_reason: 'final',
				context: {
					history_turns: expect.any(Number),
					stored: false,
					notice: expect.stringMatching(
						/^this turn was not stored in the session \(.*Redis.*\); the next run of --session .* will not see it$/,
					),
				},
			});
			expect(run.stderr).toMatch(/^agent-core: this turn was not stored in the session/);
			expect(proxy.cuts).toBeGreaterThan(0);
		} finally {
			await proxy.close();
		}
	});

	it.each([
		[['--messages-json', 'x.json'], 'give --prompt TEXT, not --messages-json'],
		[['--context', 'file'], '--context must be "memory" or "redis"'],
	])('rejects %j', async (extra, message) => {
		const run = await runCli(sessionArgs('hi', extra));
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(message);
	});

	it('runs with the in-memory store for a single process', async () => {
		server().setScript(final('ok'));
		const run = await runCli(sessionArgs('hi', ['--context', 'memory']));
		expect(JSON.parse(run.stdout)).toMatchObject({
			finish_reason: 'final',
			context: { history_turns: 0, stored_turns: 1 },
		});
	});
});
