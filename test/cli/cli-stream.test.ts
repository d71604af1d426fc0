import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/agent/base/events';
import type { Script } from '../../src/demo/scripted-server';
import { splitIntoPieces } from '../../src/demo/scripted-stream';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';

const API_KEY = 'cli-stream-key-3c9a1f7e5d';

describe('agent-core run --stream', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-cli-stream-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	async function runStreaming(
		config: Record<string, unknown>,
		script: Script,
		extraArgs: string[] = [],
	) {
		server().setScript(script);
		const configPath = join(folder, 'config.json');
		writeFileSync(configPath, JSON.stringify({ model: 'scripted-model', ...config }));
		return runCli([
			'run',
			'--config',
			configPath,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			API_KEY,
			...extraArgs,
		]);
	}

	it('prints one JSON event per line as the run goes, then the result as the compact last line', async () => {
		const run = await runStreaming(
			{ allowed_tools: ['json_transform'] },
			[
				action('json_transform', { data: [1, 2], expression: 'length(@)' }),
				final('There are 2 items.'),
			],
			['--stream'],
		);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		const lines = run.stdout.trimEnd().split('\n');
		const parsed = lines.map((line) => JSON.parse(line));
		const events = parsed.slice(0, -1) as AgentEvent[];
		const result = parsed[parsed.length - 1];
		// The answer goes out word by word (each word once the whitespace after it has arrived).
		const deltas = events.filter((event) => event.type === 'answer_delta');
		expect(events.map((event) => event.type)).toEqual([
			'step_start',
			'action',
			'observation',
			'step_start',
			...deltas.map(() => 'answer_delta'),
			'done',
		]);
		expect(events[1]).toEqual({
			type: 'action',
			step: 1,
			tool: 'json_transform',
			summary: 'json_transform {"data":[1,2],"expression":"length(@)"}',
		});
		expect(events[2]).toEqual({
			type: 'observation',
			step: 1,
			tool: 'json_transform',
			ok: true,
			summary: '2',
		});
		expect(deltas.map((event) => (event as { text: string }).text).join('')).toBe(
			'There are 2 items.',
		);
		expect(events[events.length - 1]).toEqual({ type: 'done', finish_reason: 'final' });
		expect(result).toMatchObject({ final_answer: 'There are 2 items.', finish_reason: 'final' });
		expect(lines[lines.length - 1]).toBe(JSON.stringify(result));
	});

	it('keeps the API key out of every line, the model echoing it included', async () => {
		const run = await runStreaming(
			{ allowed_tools: ['json_transform'] },
			[
				action('json_transform', { data: { key: API_KEY }, expression: 'key' }),
				final(`The key is ${API_KEY}, and nothing else needs saying here at all.`),
			],
			['--stream'],
		);
		expect(run.code).toBe(0);
		expect(run.stdout).not.toContain(API_KEY);
		const events = run.stdout
			.trimEnd()
			.split('\n')
			.map((line) => JSON.parse(line));
		const answer = events
			.filter((event) => event.type === 'answer_delta')
			.map((event) => event.text)
			.join('');
		expect(answer).toBe(events[events.length - 1].final_answer);
		expect(answer).toContain('[REDACTED]');
	});

	it('prints a long answer as several answer_delta lines while the model streams it', async () => {
		const answer = 'A longer answer, so that it comes in several lines: '.repeat(4).trim();
		const run = await runStreaming(
			{},
			{ text: final(answer), chunks: splitIntoPieces(final(answer), 5) },
			['--stream'],
		);
		expect(run.code).toBe(0);
		const parsed = run.stdout
			.trimEnd()
			.split('\n')
			.map((line) => JSON.parse(line));
		const deltas = parsed.filter((line) => line.type === 'answer_delta');
		expect(deltas.length).toBeGreaterThan(2);
		expect(deltas.map((line) => line.text).join('')).toBe(answer);
		expect(server().requests[0].streamed).toBe(true);
	});

	it('ends the stream with done and the result on a run that stops at a limit', async () => {
		const run = await runStreaming({}, 'plain prose, twice', ['--stream']);
		expect(run.code).toBe(0);
		const parsed = run.stdout
			.trimEnd()
			.split('\n')
			.map((line) => JSON.parse(line));
		expect(parsed.map((line) => line.type ?? 'result')).toEqual([
			'step_start',
			'step_start',
			'done',
			'result',
		]);
		expect(parsed[2]).toEqual({ type: 'done', finish_reason: 'parse_error' });
		expect(parsed[3].finish_reason).toBe('parse_error');
	});

	it('without --stream prints only the indented result, as before', async () => {
		const run = await runStreaming({}, final('Paris'));
		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({ final_answer: 'Paris' });
		expect(run.stdout.startsWith('{\n  "final_answer"')).toBe(true);
		expect(server().requests[0].body).not.toHaveProperty('stream');
	});

	it('documents --stream in --help', async () => {
		const run = await runCli(['run', '--help']);
		expect(run.stdout).toContain('--stream');
		expect(run.stdout).toContain('NDJSON');
	});
});
