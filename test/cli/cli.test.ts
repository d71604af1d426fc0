import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli, type CliRun } from '../support/cli';
import { startScriptedServer, type Script } from '../../src/demo/scripted-server';

describe('agent-core run', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-cli-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	function writeJson(name: string, value: unknown): string {
		const path = join(folder, name);
		writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
		return path;
	}

	async function runWith(
		config: Record<string, unknown>,
		script: Script,
		provider: 'openai' | 'gemini' = 'openai',
	): Promise<CliRun> {
		server().setScript(script);
		const baseUrl = provider === 'gemini' ? server().geminiBaseUrl : server().openaiBaseUrl;
		return runCli([
			'run',
			'--config',
			writeJson('config.json', { model: 'scripted-model', ...config }),
			'--prompt',
			'go',
			'--provider',
			provider,
			'--base-url',
			baseUrl,
			'--api-key',
			'k',
		]);
	}

	const toolStep = action('json_transform', { data: [1], expression: 'length(@)' });
	const scenarios: Array<[string, Record<string, unknown>, Script]> = [
		['final', {}, final('done')],
		['max_steps', { max_steps: 2, allowed_tools: ['json_transform'] }, toolStep],
		// Different args each call: identical ones would be repeats that the loop breaker answers without running.
		[
			'max_tool_calls',
			{ max_tool_calls: 1, allowed_tools: ['json_transform'] },
			(request) => action('json_transform', { data: [request.callIndex], expression: 'length(@)' }),
		],
		['loop', { allowed_tools: ['json_transform'] }, toolStep],
		['timeout', { single_call_timeout: 0.2 }, { text: final('late'), delayMs: 1500 }],
		['token_budget', { total_token_budget: 1, allowed_tools: ['json_transform'] }, toolStep],
		['llm_error', {}, { status: 400, errorMessage: 'model does not exist' }],
		['parse_error', {}, 'plain prose, twice'],
		[
			'tool_error',
			{ allowed_tools: ['json_transform'] },
			action('http_request', { url: 'http://127.0.0.1:9/' }),
		],
		[
			'output_invalid',
			{
				output_schema: {
					type: 'object',
					properties: { total: { type: 'number' } },
					required: ['total'],
				},
			},
			final('about twelve'),
		],
	];

	describe.each(['openai', 'gemini'] as const)('with %s', (provider) => {
		it.each(scenarios)(
			'prints the run with finish_reason %s and exits 0',
			async (reason, config, script) => {
				const run = await runWith(config, script, provider);
				expect(run.stderr).toBe('');
				expect(run.code).toBe(0);
				const output = JSON.parse(run.stdout);
				expect(output.finish_reason).toBe(reason);
				expect(output.provider).toBe(provider);
				expect(Array.isArray(output.trace)).toBe(true);
			},
		);
	});

	it('prints final_output with an output_schema in the config file', async () => {
		const run = await runWith(
			{
				output_schema: {
					type: 'object',
					properties: { total: { type: 'number' } },
					required: ['total'],
				},
			},
			JSON.stringify({ type: 'final', answer: { total: 12.5 } }),
		);
		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({
			finish_reason: 'final',
			final_output: { total: 12.5 },
			final_answer: '{"total":12.5}',
		});
	});

	it('reads the conversation from --messages-json and the key from OPENAI_API_KEY', async () => {
		server().setScript(final('second answer'));
		const messages = writeJson('messages.json', [
			{ role: 'user', content: 'first' },
			{ role: 'assistant', content: 'first answer' },
			{ role: 'user', content: 'second' },
		]);
		const run = await runCli(
			[
				'run',
				'--config',
				writeJson('c.json', { model: 'm' }),
				'--messages-json',
				messages,
				'--base-url',
				server().openaiBaseUrl,
			],
			{
				OPENAI_API_KEY: 'from-env',
			},
		);
		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout).messages).toEqual([
			{ role: 'user', content: 'second' },
			{ role: 'assistant', content: 'second answer' },
		]);
		expect(server().requests[0].headers.authorization).toBe('Bearer from-env');
		expect(server().requests[0].messages.map((message) => message.role)).toEqual([
			'system',
			'user',
			'assistant',
			'user',
		]);
	});

	it.each([
		[{ model: 'm', max_steps: 0 }, 'agent-core: max_steps must be an integer from 1 to 1000'],
		[
			{ model: 'm', allowed_tools: ['rm_rf'] },
			'agent-core: allowed_tools names unknown tool "rm_rf"',
		],
		[{ model: 'm', maxSteps: 3 }, 'agent-core: unknown config key "maxSteps"'],
		[
			{ model: 'm', tool_settings: { http_request: { allowed_methods: ['TRACE'] } } },
			'agent-core: tool_settings.http_request',
		],
		[
			{ model: 'm', output_schema: { type: 'money' } },
			'agent-core: output_schema is not a valid JSON Schema',
		],
	])('rejects config %j with one line naming the key and exit 2', async (config, line) => {
		const run = await runCli([
			'run',
			'--config',
			writeJson('bad.json', config),
			'--prompt',
			'x',
			'--api-key',
			'k',
			'--base-url',
			server().openaiBaseUrl,
		]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe('');
		expect(run.stderr.trim().split('\n')).toHaveLength(1);
		expect(run.stderr).toContain(line);
		expect(server().requests).toHaveLength(0);
	});

	it.each([
		[['run', '--prompt', 'x'], '--config FILE is required'],
		[
			['run', '--config', '/nonexistent/config.json', '--prompt', 'x', '--api-key', 'k'],
			'--config: cannot read /nonexistent/config.json (ENOENT)',
		],
		[['run', '--config', 'CONFIG', '--api-key', 'k'], 'give --prompt TEXT or --messages-json FILE'],
		[
			['run', '--config', 'CONFIG', '--prompt', 'x'],
			'no API key: pass --api-key KEY or set OPENAI_API_KEY',
		],
		[
			['run', '--config', 'CONFIG', '--prompt', 'x', '--provider', 'claude', '--api-key', 'k'],
			'--provider must be "openai" or "gemini"',
		],
		[
			['run', '--config', 'CONFIG', '--messages-json', 'BROKEN', '--api-key', 'k'],
			'--messages-json: ',
		],
		[['walk'], 'unknown command "walk"'],
	])('rejects bad command lines %j with a clear message', async (args, message) => {
		const config = writeJson('ok.json', { model: 'm' });
		const broken = writeJson('broken.json', '[{"role":');
		const run = await runCli(
			args.map((arg) => (arg === 'CONFIG' ? config : arg === 'BROKEN' ? broken : arg)),
		);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(message);
	});

	it('continues on the --fallback-* model when the primary fails, and keeps both keys out of the output', async () => {
		const fallbackServer = await startScriptedServer({
			script: [final('answered by the fallback')],
		});
		try {
			server().setScript({ status: 500, errorMessage: 'primary is down' });
			const args = [
				'run',
				'--config',
				writeJson('c.json', { model: 'gpt-4o-mini' }),
				'--prompt',
				'q',
				'--base-url',
				server().openaiBaseUrl,
			];
			const fallback = [
				'--fallback-provider',
				'gemini',
				'--fallback-model',
				'gemini-2.5-flash',
				'--fallback-base-url',
				fallbackServer.geminiBaseUrl,
			];
			const run = await runCli([...args, ...fallback], {
				OPENAI_API_KEY: 'primary-secret-key',
				GEMINI_API_KEY: 'fallback-secret-key',
			});
			expect(run.code).toBe(0);
			const output = JSON.parse(run.stdout);
			expect(output).toMatchObject({
				finish_reason: 'final',
				final_answer: 'answered by the fallback',
				provider: 'gemini',
				model: 'gemini-2.5-flash',
			});
			expect(output.trace[0].notices[0]).toContain('primary is down');
			expect(fallbackServer.requests[0].headers['x-goog-api-key']).toBe('fallback-secret-key');
			expect(run.stdout).not.toMatch(/primary-secret-key|fallback-secret-key/);
		} finally {
			await fallbackServer.close();
		}
	});

	it.each([
		[['--fallback-provider', 'gemini'], '--fallback-provider needs --fallback-model ID'],
		[
			['--fallback-model', 'm2', '--fallback-provider', 'claude'],
			'--fallback-provider must be "openai" or "gemini"',
		],
		[
			['--fallback-model', 'm2', '--fallback-provider', 'gemini'],
			'no API key for the fallback: pass --fallback-api-key KEY or set GEMINI_API_KEY',
		],
	])('rejects fallback flags %j with a message naming the flag', async (flags, message) => {
		const run = await runCli([
			'run',
			'--config',
			writeJson('ok.json', { model: 'm' }),
			'--prompt',
			'x',
			'--api-key',
			'k',
			...flags,
		]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(message);
		expect(server().requests).toHaveLength(0);
	});

	it.each([[['--help']], [['-h']], [['help']], [['run', '--help']]])(
		'prints the help on %j and exits 0',
		async (args) => {
			const run = await runCli(args);
			expect(run.code).toBe(0);
			expect(run.stdout).toContain('usage: agent-core run --config FILE');
			expect(run.stdout).toContain('prompt_examples');
			expect(run.stdout).toContain('Exit status: 0 when the run ended');
			expect(server().requests).toHaveLength(0);
		},
	);

	it('rejects messages_json that does not end with a user message, naming the field', async () => {
		const messages = writeJson('ends-assistant.json', [
			{ role: 'user', content: 'q' },
			{ role: 'assistant', content: 'a' },
		]);
		const run = await runCli([
			'run',
			'--config',
			writeJson('c2.json', { model: 'm' }),
			'--messages-json',
			messages,
			'--api-key',
			'k',
		]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain('messages_json must end with a user message');
	});
});
