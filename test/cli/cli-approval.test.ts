import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';
import { deleteKeysByPrefix, useTestRedis } from '../support/redis';

useLoopbackGuard();

/** Issue #18 through the CLI: `run` pauses, `resume` continues once, with AGENT_CORE_STATE_SECRET. */
describe('agent-core run / resume with approval', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	const SECRET = { AGENT_CORE_STATE_SECRET: 'cli-approval-secret-0123456789' };
	let folder: string;
	let payments: TestServer;
	beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-approval-'))));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));
	beforeEach(async () => {
		payments = await startServer((_, response) => sendJson(response, { charged: true }));
	});

	const write = (name: string, value: unknown) => {
		const path = join(folder, name);
		writeFileSync(path, JSON.stringify(value));
		return path;
	};
	const configFile = () =>
		write('config.json', {
			model: 'm',
			allowed_tools: ['http_request'],
			approval_required: ['http_request'],
			tool_settings: { http_request: PRIVATE_ALLOWED },
		});
	const provider = () => ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];

	async function pause(): Promise<string> {
		server().setScript([action('http_request', { url: `${payments.url}/charge`, method: 'POST' })]);
		const run = await runCli(
			['run', '--config', configFile(), '--prompt', 'Charge it.', ...provider()],
			SECRET,
		);
		expect(run.code).toBe(0);
		const output = JSON.parse(run.stdout);
		expect(output).toMatchObject({
			finish_reason: 'awaiting_approval',
			pending_action: { tool: 'http_request' },
		});
		expect(payments.requests).toHaveLength(0);
		return write('state.json', output.run_state);
	}

	it('resume --approve runs the call once and finishes; the same state resumed again is refused (Redis)', async () => {
		const state = await pause();
		server().setScript([final('Charged.'), final('again')]);
		const redisFlag = ['--redis-url', redis.url];
		const resumed = await runCli(
			[
				'resume',
				'--config',
				configFile(),
				'--state',
				state,
				'--approve',
				...provider(),
				...redisFlag,
			],
			SECRET,
		);
		expect(resumed).toMatchObject({ code: 0, stderr: '' });
		expect(JSON.parse(resumed.stdout)).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Charged.',
		});
		expect(payments.requests).toHaveLength(1);
		const replay = await runCli(
			[
				'resume',
				'--config',
				configFile(),
				'--state',
				state,
				'--approve',
				...provider(),
				...redisFlag,
			],
			SECRET,
		);
		expect(replay).toMatchObject({
			code: 2,
			stdout: '',
			stderr:
				'agent-core: run_state was already used to resume this run; a paused run resumes once\n',
		});
		expect(payments.requests).toHaveLength(1);
		await deleteKeysByPrefix(redis.admin, 'agent_core:run_state:');
	});

	it('resume --deny never reaches the target; without --redis-url it says the state is not recorded', async () => {
		const state = await pause();
		server().setScript([final('Not charged.')]);
		const resumed = await runCli(
			[
				'resume',
				'--config',
				configFile(),
				'--state',
				state,
				'--deny',
				'already paid',
				...provider(),
			],
			SECRET,
		);
		expect(resumed.code).toBe(0);
		expect(resumed.stderr).toBe(
			'agent-core: no --redis-url: this run state is not recorded as used, so it could be resumed again\n',
		);
		expect(JSON.parse(resumed.stdout).finish_reason).toBe('final');
		expect(payments.requests).toHaveLength(0);
	});

	it.each([
		[
			['--approve', '--deny', 'no'],
			'agent-core: resume needs exactly one of --approve, --deny REASON, --edit ARGS_JSON, --decisions JSON',
		],
		[['--edit', '{oops'], /^agent-core: --edit: not valid JSON/],
		[
			['--approve', '--prompt', 'x'],
			'agent-core: --prompt does not go with resume: the paused run holds its conversation',
		],
	])('refuses resume %j with one line and exit 2', async (flags, message) => {
		const state = write('any-state.json', { v: 1, payload: {}, signature: '00' });
		const refused = await runCli(
			['resume', '--config', configFile(), '--state', state, ...(flags as string[]), ...provider()],
			SECRET,
		);
		expect(refused.code).toBe(2);
		expect(refused.stderr.trim()).toEqual(
			typeof message === 'string' ? message : expect.stringMatching(message),
		);
	});

	it('resume --approve sends the secret-bearing call as the model asked for it; stdout, stderr and the state file show it redacted', async () => {
		const secrets = { apiKey: 'live-key-7Qm2Zp9Xc4Lk', token: 'tok_3f9a8b7c6d5e4f' };
		server().setScript([
			action('http_request', {
				url: `${payments.url}/charge?api_key=${secrets.apiKey}`,
				method: 'POST',
				body: { amount: 42, token: secrets.token },
			}),
		]);
		const run = await runCli(
			['run', '--config', configFile(), '--prompt', 'Charge it.', ...provider()],
			SECRET,
		);
		expect(run.code).toBe(0);
		const output = JSON.parse(run.stdout);
		expect(output.pending_action.args).toEqual({
			url: `${payments.url}/charge?api_key=[REDACTED]`,
			method: 'POST',
			body: { amount: 42, token: '[REDACTED]' },
		});
		const state = write('secret-state.json', output.run_state);
		server().setScript([final('Charged.')]);
		const resumed = await runCli(
			['resume', '--config', configFile(), '--state', state, '--approve', ...provider()],
			SECRET,
		);
		expect(resumed.code).toBe(0);
		expect(payments.requests.map((request) => [request.url, JSON.parse(request.body)])).toEqual([
			[`/charge?api_key=${secrets.apiKey}`, { amount: 42, token: secrets.token }],
		]);
		const written = [
			run.stdout,
			run.stderr,
			resumed.stdout,
			resumed.stderr,
			readFileSync(state, 'utf8'),
		].join('\n');
		for (const secret of Object.values(secrets)) expect(written).not.toContain(secret);
	});

	it.each([
		['16 spaces', ' '.repeat(16), '(this one has 16 characters, 1 of them different)'],
		['15 characters', 'abcdefghijklmno', '(this one has 15 characters, 15 of them different)'],
	])(
		'refuses a signing key of %s with exit 2 and the fix, before any model call',
		async (_case, key, detail) => {
			const run = await runCli(
				['run', '--config', configFile(), '--prompt', 'Charge it.', ...provider()],
				{ AGENT_CORE_STATE_SECRET: key },
			);
			expect(run.code).toBe(2);
			expect(run.stderr).toContain(detail);
			expect(run.stderr).toContain('generate one with `openssl rand -hex 32`');
			expect(server().requests).toHaveLength(0);
		},
	);

	it('refuses to run a config with approval_required without AGENT_CORE_STATE_SECRET, before any model call', async () => {
		const run = await runCli([
			'run',
			'--config',
			configFile(),
			'--prompt',
			'Charge it.',
			...provider(),
		]);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(
			/^agent-core: pausing for approval needs a signing key of at least 16 characters/,
		);
		expect(server().requests).toHaveLength(0);
	});
});
