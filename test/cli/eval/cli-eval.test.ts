// `agent-core eval` as a CI job runs it: the built CLI against the scripted model server (OpenAI wire format).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScriptedRequest } from '../../../src/demo/scripted-server';
import { action, final, useScriptedServer } from '../../support/agent';
import { runCli } from '../../support/cli';

/** The case a request belongs to: the `#word` its user messages carry. */
const caseKey = (request: ScriptedRequest): string =>
	/#(\w+)/.exec(
		request.messages
			.filter((message) => message.role === 'user')
			.map((message) => message.content)
			.join(' '),
	)?.[1] ?? '';
/** After the first call, the conversation holds the model's action and what came of it. */
const firstCall = (request: ScriptedRequest): boolean => request.messages.length <= 2;

/** What the scripted model answers for each kind of case. */
function reply(request: ScriptedRequest) {
	switch (caseKey(request)) {
		case 'sum':
			return firstCall(request)
				? action('json_transform', { data: [1, 2, 3], expression: 'sum(@)' })
				: final('6');
		case 'refused':
			return firstCall(request)
				? action('http_request', { url: 'http://127.0.0.1:9/' })
				: final('could not fetch it');
		case 'json':
			return final('{"total":12}');
		case 'prose':
			return 'plain prose, no JSON';
		case 'aaa':
			return final(`${'a'.repeat(5000)}!`);
		case 'down':
			return { status: 400, errorMessage: 'the model is not available' };
		default:
			return final('Paris');
	}
}

const PRICED = {
	model: 'scripted-model',
	allowed_tools: ['json_transform'],
	prices: { 'scripted-model': { input_per_million: 1, output_per_million: 2 } },
};

describe('agent-core eval', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-eval-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	function write(name: string, content: unknown): string {
		const path = join(folder, name);
		writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
		return path;
	}
	const jsonl = (name: string, cases: unknown[]) =>
		write(name, cases.map((entry) => JSON.stringify(entry)).join('\n'));
	const readResults = (path: string) =>
		readFileSync(path, 'utf8')
			.trim()
			.split('\n')
			.map((line) => JSON.parse(line));

	function evaluate(dataset: string, extra: string[] = [], config: unknown = PRICED) {
		return runCli([
			'eval',
			'--dataset',
			dataset,
			'--config',
			write('config.json', config),
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'test-key-eval-123',
			...extra,
		]);
	}

	const MIXED = [
		{ id: 'exact', input: 'capital of France? #capital', expected: { answer: 'Paris' } },
		{ id: 'exact-wrong', input: 'capital of Italy? #capital', expected: { answer: 'Rome' } },
		{ id: 'contains', input: '#capital', expected: { contains: ['Par', 'is'] } },
		{ id: 'regex-wrong', input: '#capital', expected: { regex: '^Rome$' } },
		{
			id: 'tools',
			input: 'add them #sum',
			expected: { tools: ['json_transform'], answer: '6', max_steps: 2 },
		},
		{ id: 'not-tools', input: 'add them #sum', expected: { not_tools: 'json_transform' } },
		{ id: 'tool-error', input: 'fetch it #refused', expected: { no_tool_errors: true } },
		{ id: 'schema', input: '#json', expected: { schema: { type: 'object', required: ['total'] } } },
		{
			id: 'schema-wrong',
			input: '#json',
			expected: { schema: { type: 'object', required: ['count'] } },
		},
		{ id: 'finish-default', input: '#prose' },
		{ id: 'finish-allowed', input: '#prose', expected: { finish_reason: ['parse_error'] } },
		{ id: 'tokens', input: '#capital', expected: { max_tokens: 1 } },
		{ id: 'cost', input: '#capital', expected: { max_cost: 1 } },
		{ id: 'pathological', input: '#aaa', expected: { regex: '(a+)+$' } },
		{
			id: 'conversation',
			input: [
				{ role: 'user', content: 'hello' },
				{ role: 'assistant', content: 'hi' },
				{ role: 'user', content: 'capital? #capital' },
			],
			expected: { answer: 'Paris' },
		},
		{ id: 'provider-error', input: '#down', expected: { contains: 'x' } },
	];
	const EXPECTED_PASS: Record<string, boolean> = {
		exact: true,
		'exact-wrong': false,
		contains: true,
		'regex-wrong': false,
		tools: true,
		'not-tools': false,
		'tool-error': false,
		schema: true,
		'schema-wrong': false,
		'finish-default': false,
		'finish-allowed': true,
		tokens: false,
		cost: true,
		pathological: false,
		conversation: true,
		'provider-error': false,
	};

	it('judges every gate kind per case, writes one result line per case in dataset order, and exits 3 when a case fails', async () => {
		server().setScript(reply);
		const results = join(folder, 'mixed-results.jsonl');
		const run = await evaluate(jsonl('mixed.jsonl', MIXED), [
			'--results',
			results,
			'--concurrency',
			'4',
		]);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(3);
		const lines = readResults(results);
		expect(lines.map((line) => line.id)).toEqual(MIXED.map((entry) => entry.id));
		expect(Object.fromEntries(lines.map((line) => [line.id, line.passed]))).toEqual(EXPECTED_PASS);
		const byId = Object.fromEntries(lines.map((line) => [line.id, line]));
		expect(byId.exact).toMatchObject({
			line: 1,
			finish_reason: 'final',
			steps: 1,
			answer: 'Paris',
			tool_errors: 0,
			gates: { answer: { passed: true }, finish_reason: { passed: true } },
		});
		expect(byId.exact.tokens).toBeGreaterThan(0);
		expect(byId.exact.cost).toBeGreaterThan(0);
		expect(byId.exact.elapsed_ms).toEqual(expect.any(Number));
		expect(byId['exact-wrong'].gates.answer).toEqual({
			passed: false,
			reason: 'expected the answer "Rome", got "Paris"',
		});
		expect(byId.tools).toMatchObject({
			steps: 2,
			tools_called: { json_transform: 1 },
			gates: { tools: { passed: true }, answer: { passed: true }, max_steps: { passed: true } },
		});
		expect(byId['not-tools'].gates.not_tools).toEqual({
			passed: false,
			reason: 'json_transform was called at step 1 and ran',
		});
		expect(byId['tool-error']).toMatchObject({
			tool_errors: 1,
			gates: {
				no_tool_errors: {
					passed: false,
					reason: expect.stringContaining('step 1 tool_not_allowed'),
				},
			},
		});
		expect(byId['schema-wrong'].gates.schema.reason).toBe(
			'the answer does not match the schema: answer: missing required property "count"',
		);
		expect(byId['finish-default']).toMatchObject({
			finish_reason: 'parse_error',
			gates: {
				finish_reason: {
					passed: false,
					reason: expect.stringMatching(/^finish_reason parse_error .*, expected final$/),
				},
			},
		});
		expect(byId.tokens.gates.max_tokens.reason).toMatch(/^\d+ tokens, at most 1 allowed$/);
		expect(byId.pathological.gates.regex).toMatchObject({
			passed: false,
			reason: expect.stringContaining('does not match "(a+)+$"'),
		});
		expect(byId['provider-error']).toMatchObject({
			finish_reason: 'llm_error',
			gates: {
				contains: {
					passed: false,
					reason: expect.stringMatching(
						/^no answer: the run ended llm_error \(model call failed: 400/,
					),
				},
			},
		});
		// The summary table: counts per gate, the implicit threshold, totals, the failed cases with their reasons.
		expect(run.stdout).toMatch(/^agent-core eval: 16 cases, 7 passed, 9 failed\n/);
		expect(run.stdout).toMatch(/\nanswer +3 +1\n/);
		expect(run.stdout).toMatch(/\nfinish_reason +14 +2\n/);
		expect(run.stdout).toMatch(/\nevery case passes +16 +7 +NO\n/);
		expect(run.stdout).toContain(
			'  exact-wrong (line 2) answer: expected the answer "Rome", got "Paris"',
		);
		expect(run.stdout).toMatch(/\nFAIL: a threshold does not hold \(exit 3\)\n$/);
	});

	it('exits 0 when every case passes, and when the thresholds over the set hold though some cases fail', async () => {
		server().setScript(reply);
		const passing = jsonl(
			'passing.jsonl',
			MIXED.filter((entry) => EXPECTED_PASS[entry.id]),
		);
		const run = await evaluate(passing);
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/\nPASS: every threshold holds \(exit 0\)\n$/);

		const gates = write('gates.json', {
			every_case: { no_tool_errors: true },
			thresholds: { pass_rate: 0.5, max_total_cost: 1, max_tool_errors: 0 },
		});
		const half = jsonl('half.jsonl', [MIXED[0], MIXED[1]]);
		const held = await evaluate(half, ['--gates', gates]);
		expect(held.code).toBe(0);
		expect(held.stdout).toMatch(/\npass_rate +≥ 0\.5 +0\.5 +yes\n/);
		const strict = write('strict.json', { thresholds: { pass_rate: 0.9 } });
		expect((await evaluate(half, ['--gates', strict])).code).toBe(3);
	});

	it('fails a cost gate and a cost threshold when the model has no price, saying why', async () => {
		server().setScript(reply);
		const results = join(folder, 'unpriced.jsonl');
		const run = await evaluate(
			jsonl('unpriced-data.jsonl', [{ id: 'u', input: '#capital', expected: { max_cost: 5 } }]),
			[
				'--results',
				results,
				'--gates',
				write('cost-gates.json', { thresholds: { max_total_cost: 5 } }),
			],
			{ model: 'scripted-model' },
		);
		expect(run.code).toBe(3);
		const [line] = readResults(results);
		expect(line.cost).toBeNull();
		expect(line.gates.max_cost).toMatchObject({
			passed: false,
			reason: expect.stringContaining('the cost is unknown, so max_cost cannot hold: '),
		});
		expect(run.stdout).toMatch(
			/\nmax_total_cost +≤ 5 USD +0 USD \(1 case without a known cost\) +NO\n/,
		);
	});

	it('never has more than --concurrency cases asking the model at once', async () => {
		let inFlight = 0;
		let most = 0;
		let started = 0;
		const total = 7;
		let waiting: Array<() => void> = [];
		// Each call is held until the bound's worth of calls is in flight (or every case has started), so the
		// cases overlap as much as the CLI lets them, with no timer involved.
		server().setScript(async () => {
			inFlight++;
			started++;
			most = Math.max(most, inFlight);
			if (inFlight >= 3 || started === total) {
				for (const release of waiting.splice(0)) release();
			} else {
				await new Promise<void>((resolve) => waiting.push(resolve));
			}
			// Held a moment longer, so that a CLI that let more cases run at once would show them here.
			await new Promise((resolve) => setTimeout(resolve, 50));
			inFlight--;
			return final('Paris');
		});
		const cases = Array.from({ length: total }, (_, index) => ({
			id: `c${index}`,
			input: '#capital',
			expected: { answer: 'Paris' },
		}));
		const run = await evaluate(jsonl('bound.jsonl', cases), ['--concurrency', '3']);
		expect(run.code).toBe(0);
		expect(server().requests).toHaveLength(total);
		expect(most).toBe(3);
	});

	it('records a case whose run throws (the Redis of its shared budget is down) as failed with its error, never a crash', async () => {
		server().setScript(reply);
		const results = join(folder, 'thrown.jsonl');
		const config = {
			model: 'scripted-model',
			shared_budget: { scope: 'eval', tokens: 1000, period_seconds: 60 },
		};
		const run = await evaluate(
			jsonl('thrown-data.jsonl', [
				{ id: 't1', input: '#capital' },
				{ id: 't2', input: '#capital' },
			]),
			['--results', results, '--redis-url', 'redis://127.0.0.1:1'],
			config,
		);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(3);
		const lines = readResults(results);
		expect(lines.map((line) => line.id)).toEqual(['t1', 't2']);
		for (const line of lines) {
			expect(line).toMatchObject({
				passed: false,
				finish_reason: null,
				error: expect.stringContaining('127.0.0.1:1 is unreachable'),
				gates: { run: { passed: false, reason: expect.stringMatching(/^the run failed: /) } },
			});
		}
		expect(run.stdout).toMatch(/\nrun +0 +2\n/);
	});

	it('redacts the answers it writes, as every output is', async () => {
		server().setScript(
			final('the key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 and test-key-eval-123'),
		);
		const results = join(folder, 'secret.jsonl');
		await evaluate(
			jsonl('secret-data.jsonl', [{ id: 's', input: '#secret', expected: { contains: 'key' } }]),
			['--results', results],
		);
		const text = readFileSync(results, 'utf8');
		expect(text).not.toContain('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789');
		expect(text).not.toContain('test-key-eval-123');
		expect(readResults(results)[0].answer).toContain('[REDACTED]');
	});

	describe('refuses before any model call, exit 2', () => {
		it.each([
			[
				'a line that is not JSON, by its number',
				['{"input":"#capital"}', '', '{"input": "x"'],
				/line 3: not valid JSON/,
			],
			[
				'a line without input',
				['{"input":"#capital"}', '{"id":"b","expected":{"answer":"Paris"}}'],
				/line 2: input is missing/,
			],
			[
				'an unknown field',
				['{"input":"#capital","expect":{}}'],
				/line 1: "expect" is not a field of a case/,
			],
			[
				'an unknown gate',
				['{"input":"#capital","expected":{"regexp":"P"}}'],
				/line 1: expected\.regexp is not a gate/,
			],
			[
				'a pattern RE2 cannot run (a back-reference)',
				['{"input":"#capital"}', '{"input":"#capital","expected":{"regex":"(a)\\\\1"}}'],
				/line 2: expected\.regex uses a back-reference, which the linear-time pattern engine \(RE2\) cannot run/,
			],
			[
				'a conversation that does not end with the user',
				['{"input":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}'],
				/line 1: input must end with a user message/,
			],
			[
				'a message with a bad role',
				['{"input":[{"role":"robot","content":"hi"}]}'],
				/line 1: input\[0\]\.role must be "system", "user" or "assistant"/,
			],
			[
				'a repeated id',
				['{"id":"a","input":"#capital"}', '{"id":"a","input":"#capital"}'],
				/line 2: id "a" is already the id of line 1/,
			],
		])('%s', async (_, lines, message) => {
			server().setScript(reply);
			const run = await evaluate(write('bad.jsonl', lines.join('\n')));
			expect(run.code).toBe(2);
			expect(run.stderr).toMatch(/^agent-core: --dataset \S+bad\.jsonl line \d+: /);
			expect(run.stderr).toMatch(message);
			expect(server().requests).toHaveLength(0);
		});

		it.each([
			[
				'--concurrency 0',
				['--concurrency', '0'],
				/--concurrency must be how many cases run at once: a whole number from 1 to 32 .*, not "0"/,
			],
			[
				'--concurrency 33',
				['--concurrency', '33'],
				/--concurrency must be how many cases run at once: a whole number from 1 to 32 .*, not "33"/,
			],
			['an unknown flag', ['--prompt', 'x'], /Unknown option '--prompt'/],
			[
				'a bad gates file',
				['--gates', '<gates>'],
				/--gates \S+: every_case\.max_steps must be a whole number/,
			],
		])('%s', async (_, extra, message) => {
			server().setScript(reply);
			const gates = write('bad-gates.json', { every_case: { max_steps: -1 } });
			const run = await evaluate(
				jsonl('fine.jsonl', [{ input: '#capital' }]),
				extra.map((flag) => (flag === '<gates>' ? gates : flag)),
			);
			expect(run.code).toBe(2);
			expect(run.stderr).toMatch(message);
			expect(server().requests).toHaveLength(0);
		});

		it('a config with MCP servers that its first run refuses: the set stops before any model call', async () => {
			const config = {
				model: 'scripted-model',
				max_steps: 0,
				mcp_servers: [{ name: 'docs', url: 'http://127.0.0.1:9/mcp', allow_private_network: true }],
				allowed_tools: ['docs.search'],
			};
			const run = await evaluate(
				jsonl('fine3.jsonl', [{ input: '#capital' }, { input: '#capital' }]),
				[],
				config,
			);
			expect(run.code).toBe(2);
			expect(run.stderr).toMatch(/^agent-core: max_steps must be an integer from 1 to 1000\n/);
			expect(run.stdout).toBe('');
			expect(server().requests).toHaveLength(0);
		});

		const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
		/** exit 2 with one line on stderr, no stack, no summary, and the model never asked. */
		const refusedCleanly = (
			run: { code: number | null; stdout: string; stderr: string },
			message: RegExp,
		) => {
			expect({ code: run.code, stdout: run.stdout, lines: run.stderr.split('\n').length }).toEqual({
				code: 2,
				stdout: '',
				lines: 2,
			});
			expect(run.stderr).toMatch(message);
			expect(run.stderr).not.toMatch(/\n\s+at |Maximum call stack/);
			expect(server().requests).toHaveLength(0);
		};

		it.each([5_000, 100_000])(
			'an expected.answer nested %d levels deep, by its line, before the first case is asked',
			async (levels) => {
				server().setScript(reply);
				const dataset = write(
					`deep-${levels}.jsonl`,
					`{"input":"#capital"}\n{"input":"#capital","expected":{"answer":${nested(levels)}}}\n`,
				);
				refusedCleanly(
					await evaluate(dataset),
					/^agent-core: --dataset \S+ line 2: expected\.answer nests objects or arrays more than 64 levels deep .*: flatten it\n$/,
				);
			},
		);

		it.each([
			[
				'the input',
				`{"input":[{"role":"user","content":"#capital","x":${nested(100)}}]}`,
				/line 1: input\[0\] nests/,
			],
			[
				'a schema gate',
				`{"input":"#capital","expected":{"schema":{"not":${'{"not":'.repeat(3000)}{}${'}'.repeat(3000)}}}}`,
				/line 1: expected\.schema nests/,
			],
			[
				'a tools gate',
				`{"input":"#capital","expected":{"tools":${nested(200)}}}`,
				/line 1: expected\.tools nests/,
			],
			['the id', `{"id":${nested(80)},"input":"#capital"}`, /line 1: id\[0\] nests/],
		])('a case nested too deep in %s, naming the part', async (_, line, message) => {
			server().setScript(reply);
			refusedCleanly(await evaluate(write('deep-part.jsonl', `${line}\n`)), message);
		});

		it('a gates file whose every_case nests too deep, naming it', async () => {
			server().setScript(reply);
			const gates = write('deep-gates.json', `{"every_case":{"answer":${nested(5000)}}}`);
			refusedCleanly(
				await evaluate(jsonl('fine4.jsonl', [{ input: '#capital' }]), ['--gates', gates]),
				/^agent-core: --gates \S+: every_case\.answer nests objects or arrays more than 64 levels deep/,
			);
		});

		it('a line over 4 MiB (a 50 MB line, and /dev/zero, which never ends a line) by its number, without reading the rest', async () => {
			server().setScript(reply);
			const huge = write(
				'huge.jsonl',
				`{"input":"#capital"}\n{"input":"${'a'.repeat(50 * 1024 * 1024)}"}\n`,
			);
			refusedCleanly(
				await evaluate(huge),
				/^agent-core: --dataset \S+ line 2: longer than 4194304 bytes, the most a case may hold: shorten its input, or split it into several cases\n$/,
			);
			refusedCleanly(
				await evaluate('/dev/zero'),
				/^agent-core: --dataset \/dev\/zero line 1: longer than 4194304 bytes/,
			);
		});

		it.each([
			[
				'a line that is not UTF-8',
				Buffer.concat([
					Buffer.from('{"input":"#capital"}\n{"input":"'),
					Buffer.from([0xc3, 0x28]),
					Buffer.from('"}\n'),
				]),
				/line 2: not UTF-8 text: save the dataset as UTF-8\n$/,
			],
			[
				'a byte order mark inside the file (two files joined)',
				'{"input":"#capital"}\n\uFEFF{"input":"#capital"}\n',
				/line 2: starts with a byte order mark/,
			],
			[
				'a line that is not JSON, with the fix',
				'{"input":"#capital"}\n\n\ninput: hi\n',
				/line 4: not valid JSON \(.*\): write one case a line, e.g. \{"input": "What is 2\+2\?"\}\n$/,
			],
			['a directory', undefined, /^agent-core: --dataset: cannot read \S+ \(EISDIR\)\n$/],
		])('%s, by its line and with the fix', async (_, content, message) => {
			server().setScript(reply);
			const path = join(folder, 'odd.jsonl');
			if (content !== undefined) writeFileSync(path, content);
			refusedCleanly(await evaluate(content === undefined ? folder : path), message);
		});

		it('accepts a leading byte order mark, CRLF line ends, blank and white-space lines, and a case exactly 64 levels deep', async () => {
			server().setScript(reply);
			const deepest = `{"input":"#capital","expected":{"answer":${nested(62)},"finish_reason":"final"}}`;
			const dataset = write(
				'windows.jsonl',
				`\uFEFF{"id":"a","input":"#capital","expected":{"answer":"Paris"}}\r\n\r\n   \r\n${deepest}\r\n`,
			);
			const run = await evaluate(dataset, ['--results', join(folder, 'windows-results.jsonl')]);
			expect(run.stderr).toBe('');
			expect(
				readResults(join(folder, 'windows-results.jsonl')).map((record) => [
					record.id,
					record.line,
				]),
			).toEqual([
				['a', 1],
				['line 4', 4],
			]);
			expect(server().requests).toHaveLength(2);
		});

		it('a config the engine refuses, naming the key', async () => {
			const run = await evaluate(jsonl('fine2.jsonl', [{ input: '#capital' }]), [], {
				model: 'scripted-model',
				max_step: 3,
			});
			expect(run.code).toBe(2);
			expect(run.stderr).toMatch(/max_step/);
			expect(server().requests).toHaveLength(0);
		});
	});
});
