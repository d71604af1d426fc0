import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli, type CliRun } from '../support/cli';
import type { Script } from '../../src/demo/scripted-server';

/**
 * The four attacks of issue #12 as the adversary ran them: through the `agent-core` command line, each
 * must end within its configured limits with a named finish reason, print its output and exit. Margins
 * are generous (a hang is the failure, not a slow second); the old code took from 15 s to days.
 */
describe('hostile replies through the command line', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-hostile-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	async function run(
		config: Record<string, unknown>,
		script: Script,
	): Promise<CliRun & { seconds: number; output: any }> {
		server().setScript(script);
		const path = join(folder, 'config.json');
		writeFileSync(path, JSON.stringify({ model: 'scripted-model', ...config }));
		const started = Date.now();
		const result = await runCli([
			'run',
			'--config',
			path,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'sk-hostile-test-key-0123456789',
		]);
		const seconds = (Date.now() - started) / 1000;
		let output: any;
		try {
			output = JSON.parse(result.stdout);
		} catch {
			output = undefined;
		}
		return { ...result, seconds, output };
	}

	it('a 600-byte JMESPath expression that would run for days ends at single_call_timeout, and the process exits', async () => {
		const side = (name: string) => `${name}${'|[@,@]'.repeat(40)}`;
		const expression = `[${side('a')}, ${side('b')}] | @[0] == @[1]`;
		const result = await run(
			{ allowed_tools: ['json_transform'], single_call_timeout: 1, timeout: 2, max_steps: 2 },
			[action('json_transform', { data: { a: [1], b: [1] }, expression }), final('gave up')],
		);
		expect(result.code).toBe(0);
		expect(result.output.trace[0].error.type).toBe('tool_timeout');
		expect(['final', 'timeout', 'tool_error']).toContain(result.output.finish_reason);
		expect(result.seconds).toBeLessThan(2 + 8);
	});

	it('a final answer of "-eyJ" × 20,000 is redacted in linear time: the process exits promptly', async () => {
		const answer = '-eyJ'.repeat(20_000);
		const result = await run({}, final(answer));
		expect(result.code).toBe(0);
		expect(result.output).toMatchObject({ finish_reason: 'final', final_answer: answer });
		expect(result.seconds).toBeLessThan(10);
	});

	it('arguments nested 5,000 levels deep: a protocol error, and the output is printed', async () => {
		const deep = `{"type":"action","tool":"json_transform","args":{"data":${'['.repeat(5000)}1${']'.repeat(5000)},"expression":"@"}}`;
		const result = await run({ allowed_tools: ['json_transform'] }, [deep, final('flat')]);
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		expect(result.output.finish_reason).toBe('final');
		expect(result.output.trace[0].error.message).toMatch(/more than 64 levels deep/);
	});

	it("a provider's Retry-After: 50, past the call's deadline, is not waited for: llm_error at once, and the process exits", async () => {
		const result = await run(
			{ single_call_timeout: 1, timeout: 2 },
			{ status: 429, errorMessage: 'slow down', headers: { 'retry-after': '50' } },
		);
		expect(result.code).toBe(0);
		// Since issue #27 a wait that would end after the deadline is not begun; the 429 says why.
		expect(result.output).toMatchObject({
			finish_reason: 'llm_error',
			stop_detail: expect.stringContaining("after this call's deadline"),
		});
		expect(result.seconds).toBeLessThan(2 + 8);
	});

	it('the API key never appears in the output, even when the model echoes it base64-encoded', async () => {
		const encoded = Buffer.from('user:sk-hostile-test-key-0123456789').toString('base64');
		const result = await run(
			{},
			final(`Authorization: Basic ${encoded} and raw sk-hostile-test-key-0123456789`),
		);
		expect(result.stdout).not.toContain('sk-hostile-test-key-0123456789');
		expect(result.stdout).not.toContain(encoded);
	});
});
