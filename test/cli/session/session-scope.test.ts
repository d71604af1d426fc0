// `agent-core run --session` and `session list | fork | rewind` take the Conversation Scope (issue #48): --context-scope, --workflow-id.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { final, useScriptedServer } from '../../support/agent';
import { runCli, type CliRun } from '../../support/cli';
import { deleteKeysByPrefix, getTestRedis, type TestRedis } from '../../support/redis';

const parsed = (run: CliRun) => JSON.parse(run.stdout) as Record<string, any>;
const inWorkflow = (id: string) => ['--context-scope', 'workflow', '--workflow-id', id];
const KEY = ['--api-key', 'k', '--base-url', 'http://127.0.0.1:9'];

describe('the CLI’s session commands in a Conversation Scope', () => {
	const server = useScriptedServer();
	let redis: TestRedis;
	let client: Redis;
	let config: string;
	let folder: string;

	beforeAll(async () => {
		redis = await getTestRedis();
		client = new Redis(redis.url);
		folder = mkdtempSync(join(tmpdir(), 'agent-core-session-scope-'));
		config = join(folder, 'config.json');
		writeFileSync(config, JSON.stringify({ model: 'm' }));
	});
	afterAll(async () => {
		await deleteKeysByPrefix(client, '{agent_core:ctx:scope-cli-');
		await deleteKeysByPrefix(client, '{agent_core:ctx:{wf}');
		client.disconnect();
		await redis.stop();
		rmSync(folder, { recursive: true, force: true });
	});

	const run = (session: string, prompt: string, extra: string[] = []) =>
		runCli([
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
			'--redis-url',
			redis.url,
			...extra,
		]);
	const sessionCli = (...args: string[]) => runCli(['session', ...args, '--redis-url', redis.url]);
	const liveTurns = async (session: string, extra: string[] = []) => {
		const listed = await sessionCli('list', '--session', session, ...extra);
		if (/has no stored conversation/.test(listed.stderr)) return 0;
		expect(listed.stderr).toBe('');
		return (parsed(listed).turns as Array<{ state: string }>).filter((t) => t.state === 'live')
			.length;
	};

	it('a run in one workflow’s scope is listed there only, not in another workflow’s nor the shared one', async () => {
		const session = `scope-cli-${randomUUID()}`;
		server().setScript([final('one'), final('two')]);
		expect((await run(session, 'first', inWorkflow('W1'))).code).toBe(0);
		expect(await liveTurns(session, inWorkflow('W1'))).toBe(1);
		expect(await liveTurns(session, inWorkflow('W2'))).toBe(0);
		expect(await liveTurns(session)).toBe(0);
		expect(await liveTurns(session, ['--context-scope', 'shared'])).toBe(0);
		// The shared conversation of the same id is another one, and a workflow scope does not see it.
		expect((await run(session, 'shared one')).code).toBe(0);
		expect(await liveTurns(session)).toBe(1);
		expect(await liveTurns(session, inWorkflow('W1'))).toBe(1);
	});

	it('fork and rewind act inside the scope given: the fork lands in the same workflow', async () => {
		const session = `scope-cli-${randomUUID()}`;
		const fork = `scope-cli-${randomUUID()}`;
		server().setScript([final('one'), final('two')]);
		await run(session, 'first', inWorkflow('W1'));
		await run(session, 'second', inWorkflow('W1'));
		const forked = await sessionCli(
			'fork',
			'--session',
			session,
			'--to-session',
			fork,
			'--turn',
			'1',
			...inWorkflow('W1'),
		);
		expect(forked.code).toBe(0);
		expect(await liveTurns(fork, inWorkflow('W1'))).toBe(1);
		expect(await liveTurns(fork)).toBe(0);
		// The same session in the shared scope has no turns to fork or rewind.
		const shared = await sessionCli('rewind', '--session', session, '--turn', '1');
		expect(shared.code).toBe(2);
		const rewound = await sessionCli(
			'rewind',
			'--session',
			session,
			'--turn',
			'1',
			...inWorkflow('W1'),
		);
		expect(rewound.code).toBe(0);
		expect(await liveTurns(session, inWorkflow('W1'))).toBe(1);
	});

	it('a workflow scope without --workflow-id is refused naming context_scope’s flag and the fix', async () => {
		for (const command of [
			['session', 'list', '--session', 'scope-cli-x', '--redis-url', redis.url],
			[
				'run',
				'--config',
				config,
				'--prompt',
				'hi',
				...KEY,
				'--session',
				'scope-cli-x',
				'--redis-url',
				redis.url,
			],
		]) {
			const refused = await runCli([...command, '--context-scope', 'workflow']);
			expect(refused.code).toBe(2);
			expect(refused.stderr).toMatch(/context_scope "workflow" .* no workflow id was given/);
			expect(refused.stderr).toMatch(
				/fix: Give the workflow id .*--workflow-id ID.*--context-scope to "shared"/,
			);
		}
	});

	it('refuses a scope it does not know, a workflow id without a workflow scope, and the flags without --session', async () => {
		const bad = await sessionCli('list', '--session', 'scope-cli-x', '--context-scope', 'global');
		expect(bad).toMatchObject({ code: 2 });
		expect(bad.stderr).toMatch(/--context-scope must be "shared" or "workflow", not "global"/);
		const orphan = await sessionCli('list', '--session', 'scope-cli-x', '--workflow-id', 'W1');
		expect(orphan.stderr).toMatch(/--workflow-id belongs to --context-scope workflow/);
		const noSession = await runCli([
			'run',
			'--config',
			config,
			'--prompt',
			'hi',
			...KEY,
			...inWorkflow('W1'),
		]);
		expect(noSession.stderr).toMatch(/--context-scope needs --session ID/);
	});

	it('a shared session id spelled like a workflow’s key is refused, never read', async () => {
		const session = `scope-cli-${randomUUID()}`;
		server().setScript([final('secret kept')]);
		await run(session, 'my secret', inWorkflow('W1'));
		const forged = await sessionCli('list', '--session', `{wf}2:W1:${session}`);
		expect(forged.code).toBe(2);
		expect(forged.stderr).toMatch(/shared session ID may not start with "\{wf\}"/);
		expect(forged.stdout).toBe('');
	});
});
