// Plan mode through the CLI (issue #51): `run` with mode "plan" runs a plan; with approve_plan it pauses on the
// plan, and `resume` approves, denies or edits it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';

useLoopbackGuard();

describe('agent-core run / resume in plan mode', () => {
	const server = useScriptedServer();
	const SECRET = { AGENT_CORE_STATE_SECRET: 'cli-plan-mode-secret-0123456789' };
	let folder: string;
	let notes: TestServer;
	beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-plan-'))));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));
	beforeEach(async () => {
		notes = await startServer((request, response) =>
			sendJson(response, { id: `note-${request.url?.split('/').pop()}` }),
		);
	});

	const write = (name: string, value: unknown) => {
		const path = join(folder, name);
		writeFileSync(path, JSON.stringify(value));
		return path;
	};
	const configFile = (extra: Record<string, unknown> = {}) =>
		write('config.json', {
			model: 'm',
			mode: 'plan',
			allowed_tools: ['http_request'],
			tool_settings: { http_request: PRIVATE_ALLOWED },
			...extra,
		});
	const provider = () => ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];
	const steps = () => [
		{ step: 1, description: 'read note 7', tool: 'http_request', args: { url: `${notes.url}/7` } },
		{
			step: 2,
			description: 'file it',
			tool: 'http_request',
			args: {
				url: `${notes.url}/file`,
				method: 'POST',
				body: { id: { $step: 1, pointer: '/id' } },
			},
		},
	];

	it('runs a plan whose second step reads the first: two model calls, the POST carries the value found', async () => {
		server().setScript([JSON.stringify({ type: 'plan', steps: steps() }), final('Filed.')]);
		const run = await runCli([
			'run',
			'--config',
			configFile(),
			'--prompt',
			'file note 7',
			...provider(),
		]);
		expect(run.code).toBe(0);
		const output = JSON.parse(run.stdout);
		expect(output).toMatchObject({ finish_reason: 'final', final_answer: 'Filed.' });
		expect(output.plan.steps.map((step: { status: string }) => step.status)).toEqual([
			'done',
			'done',
		]);
		expect(notes.requests.map((request) => [request.method, request.url, request.body])).toEqual([
			['GET', '/7', ''],
			['POST', '/file', '{"id":"note-7"}'],
		]);
		expect(server().requests).toHaveLength(2);
	});

	it("with approve_plan it pauses on the plan; resume --deny ends plan_rejected, --edit runs the person's plan", async () => {
		const config = configFile({ approve_plan: true });
		const pause = async () => {
			server().setScript([JSON.stringify({ type: 'plan', steps: steps() })]);
			const run = await runCli(
				['run', '--config', config, '--prompt', 'file note 7', ...provider()],
				SECRET,
			);
			expect(run.code).toBe(0);
			const output = JSON.parse(run.stdout);
			expect(output.finish_reason).toBe('awaiting_approval');
			expect(output.pending_plan.steps).toHaveLength(2);
			return write('state.json', output.run_state);
		};
		const denied = await runCli(
			[
				'resume',
				'--config',
				config,
				'--state',
				await pause(),
				'--deny',
				'wrong note',
				...provider(),
			],
			SECRET,
		);
		expect(JSON.parse(denied.stdout)).toMatchObject({
			finish_reason: 'plan_rejected',
			stop_detail: 'a person rejected the plan: wrong note',
		});
		expect(notes.requests).toHaveLength(0);

		const state = await pause();
		server().setScript([final('Read it.')]);
		const edit = JSON.stringify({ steps: [steps()[0]] });
		const edited = await runCli(
			['resume', '--config', config, '--state', state, '--edit', edit, ...provider()],
			SECRET,
		);
		expect(JSON.parse(edited.stdout)).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Read it.',
		});
		expect(notes.requests.map((request) => request.method)).toEqual(['GET']);
	});
});
