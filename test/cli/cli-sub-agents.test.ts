// Sub-agents through the CLI (issue #52): a named agent in --config answers through the parent; a call inside it that
// needs a person pauses the parent, and `resume --approve`, `--deny` and `--edit` carry the decision down.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, final, lastUserMessage, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';

useLoopbackGuard();

describe('agent-core run / resume with sub-agents', () => {
	const server = useScriptedServer();
	const SECRET = { AGENT_CORE_STATE_SECRET: 'cli-sub-agents-secret-0123456789' };
	let folder: string;
	let target: TestServer;
	beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-sub-agents-'))));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));
	beforeEach(async () => {
		target = await startServer((request, response) => sendJson(response, { seen: request.url }));
	});

	const write = (name: string, value: unknown) => {
		const path = join(folder, name);
		writeFileSync(path, JSON.stringify(value));
		return path;
	};
	const configFile = (child: Record<string, unknown>) =>
		write('config.json', {
			model: 'm',
			allowed_tools: ['fetcher'],
			agents: {
				fetcher: {
					description: 'Fetches pages',
					config: {
						allowed_tools: ['http_request'],
						tool_settings: { http_request: PRIVATE_ALLOWED },
						...child,
					},
				},
			},
		});
	const provider = () => ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];

	it("answers through the parent: the sub-agent's call reaches the target, its steps are under the parent's", async () => {
		server().setScript([
			action('fetcher', { task: 'fetch /a' }),
			action('http_request', { url: `${target.url}/a` }),
			final('page a says hi'),
			final('It says hi.'),
		]);
		const run = await runCli([
			'run',
			'--config',
			configFile({}),
			'--prompt',
			'what does /a say?',
			...provider(),
		]);
		expect(run.code).toBe(0);
		const output = JSON.parse(run.stdout);
		expect(output).toMatchObject({ finish_reason: 'final', final_answer: 'It says hi.' });
		expect(output.trace[0].sub_run).toMatchObject({ agent: 'fetcher', finish_reason: 'final' });
		expect(target.requests.map((request) => request.url)).toEqual(['/a']);
	});

	it('a call inside the sub-agent that needs approval pauses the parent; resume --approve runs it once', async () => {
		const config = configFile({ approval_required: ['http_request'] });
		const { paused, state } = await pausedAtB(config);
		expect(paused).toMatchObject({
			finish_reason: 'awaiting_approval',
			pending_action: { tool: 'fetcher › http_request' },
		});
		expect(target.requests).toHaveLength(0);
		server().setScript([final('got b'), final('Fetched b.')]);
		const resumed = await runCli(
			['resume', '--config', config, '--state', state, '--approve', ...provider()],
			SECRET,
		);
		expect(JSON.parse(resumed.stdout)).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Fetched b.',
		});
		expect(target.requests.map((request) => request.url)).toEqual(['/b']);
	});

	/** A parent paused at the sub-agent's call to `${target}/b`: its output, and its state written to a file. */
	async function pausedAtB(config: string) {
		server().setScript([
			action('fetcher', { task: 'fetch /b' }),
			action('http_request', { url: `${target.url}/b` }),
		]);
		const run = await runCli(
			['run', '--config', config, '--prompt', 'fetch b', ...provider()],
			SECRET,
		);
		const paused = JSON.parse(run.stdout);
		return { paused, state: write('state.json', paused.run_state) };
	}

	it('resume --deny reaches the sub-agent: the call never runs, its model reads the reason, then the parent answers', async () => {
		const config = configFile({ approval_required: ['http_request'] });
		const { state } = await pausedAtB(config);
		server().setScript([final('not fetched: refused'), final('The fetch was refused.')]);
		const resumed = await runCli(
			['resume', '--config', config, '--state', state, '--deny', 'not that page', ...provider()],
			SECRET,
		);
		const output = JSON.parse(resumed.stdout);
		expect(output).toMatchObject({
			finish_reason: 'final',
			final_answer: 'The fetch was refused.',
		});
		expect(output.trace[0].sub_run).toMatchObject({ agent: 'fetcher', finish_reason: 'final' });
		expect(target.requests).toHaveLength(0);
		// The sub-agent's model (the call before the parent's last) read the person's reason.
		expect(JSON.stringify(server().requests.at(-2)!.messages)).toContain('not that page');
		expect(lastUserMessage(server(), server().requests.length - 1)).toContain(
			'not fetched: refused',
		);
	});

	it('resume --edit runs the call inside the sub-agent with the new arguments, once, then the parent answers', async () => {
		const config = configFile({ approval_required: ['http_request'] });
		const { state } = await pausedAtB(config);
		server().setScript([final('got c'), final('Fetched c instead.')]);
		const edit = JSON.stringify({ url: `${target.url}/c` });
		const resumed = await runCli(
			['resume', '--config', config, '--state', state, '--edit', edit, ...provider()],
			SECRET,
		);
		expect(JSON.parse(resumed.stdout)).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Fetched c instead.',
		});
		expect(target.requests.map((request) => request.url)).toEqual(['/c']);
	});
});
