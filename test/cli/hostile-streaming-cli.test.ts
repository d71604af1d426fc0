import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/agent/base/events';
import type { Script } from '../../src/demo/scripted-server';
import { splitIntoPieces } from '../../src/demo/scripted-stream';
import { REDACTED } from '../../src/trace/redact';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { useEventLoopWatchdog } from '../support/watchdog';

/** `agent-core run --stream` against a hostile model: secrets in the answer, duplicate keys, no usage chunk. */
const API_KEY = 'cli-hostile-stream-key-77aa31';
const PASS_PHRASE = 'correct horse battery staple quokka zeppelin';
const API_VALUE = 'hunter2Zq9hunter2';
const BEARER_TOKEN = 'abcdefgh12345678XYZtoken';
const FRAGMENTS = [...PASS_PHRASE.split(' '), 'hunter2', 'abcdefgh1234', API_KEY];

describe('hostile streaming: agent-core run --stream', () => {
	useEventLoopWatchdog('streaming');
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-hostile-stream-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	async function runStreaming(
		config: Record<string, unknown>,
		script: Script,
		flags: string[] = [],
	) {
		server().setScript(script);
		const configPath = join(folder, 'config.json');
		writeFileSync(configPath, JSON.stringify({ model: 'scripted-model', ...config }));
		const run = await runCli([
			'run',
			'--config',
			configPath,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			API_KEY,
			'--stream',
			...flags,
		]);
		const lines = run.stdout
			.trimEnd()
			.split('\n')
			.map((line) => JSON.parse(line));
		return { run, events: lines.slice(0, -1) as AgentEvent[], result: lines[lines.length - 1] };
	}

	const streamedText = (events: AgentEvent[]) =>
		events.flatMap((event) => (event.type === 'answer_delta' ? [event.text] : [])).join('');

	it('a text answer with a JSON pass phrase, an api_key=… and a Bearer token prints none of them, the pieces the redacted answer', async () => {
		const answer =
			`Saved. The settings: {"user": "ana", "password": "${PASS_PHRASE}"} and the line api_key=${API_VALUE} ` +
			`and the header Authorization: Bearer ${BEARER_TOKEN} are stored; nothing else is needed today.`;
		const reply = final(answer);
		const { run, events, result } = await runStreaming(
			{},
			{ text: reply, chunks: splitIntoPieces(reply, 3) },
		);
		expect(run.code).toBe(0);
		for (const fragment of FRAGMENTS) expect(run.stdout).not.toContain(fragment);
		expect(result.final_answer.split(REDACTED)).toHaveLength(4);
		expect(events.some((event) => event.type === 'answer_restart')).toBe(false);
		expect(events.filter((event) => event.type === 'answer_delta').length).toBeGreaterThan(5);
		expect(streamedText(events)).toBe(result.final_answer);
	});

	it('a typed (object) answer prints none of its secrets, the pieces the redacted answer', async () => {
		const schema = {
			type: 'object',
			properties: { password: { type: 'string' }, note: { type: 'string' } },
			required: ['password', 'note'],
		};
		const reply = JSON.stringify({
			type: 'final',
			answer: {
				password: PASS_PHRASE,
				note: `api_key=${API_VALUE} and Authorization: Bearer ${BEARER_TOKEN}`,
			},
		});
		const { run, events, result } = await runStreaming(
			{ output_schema: schema },
			{ text: reply, chunks: splitIntoPieces(reply, 5) },
		);
		expect(run.code).toBe(0);
		for (const fragment of FRAGMENTS) expect(run.stdout).not.toContain(fragment);
		expect(result.final_output).toEqual({
			password: REDACTED,
			note: `api_key=${REDACTED} and Authorization: Bearer ${REDACTED}`,
		});
		expect(events.some((event) => event.type === 'answer_restart')).toBe(false);
		expect(streamedText(events)).toBe(result.final_answer);
	});

	it('a final reply with a second "type":"action" never runs the tool; its text is voided and the repaired answer stands', async () => {
		const reply = `{"type":"final","answer":"The items are counted and the report is done, all fine.","type":"action","tool":"json_transform","args":{"data":[1],"expression":"length(@)"}}`;
		const { run, events, result } = await runStreaming({ allowed_tools: ['json_transform'] }, [
			{ text: reply, chunks: splitIntoPieces(reply, 4) },
			final('Repaired.'),
		]);
		expect(run.code).toBe(0);
		expect(events.some((event) => event.type === 'action' || event.type === 'observation')).toBe(
			false,
		);
		expect(result.used_tools).toEqual({});
		expect(result.trace[0].error.message).toContain('key "type" twice');
		const restart = events.findIndex((event) => event.type === 'answer_restart');
		expect(restart).toBeGreaterThan(0);
		expect(streamedText(events.slice(restart))).toBe('Repaired.');
		expect(result.final_answer).toBe('Repaired.');
	});

	it('with --stream-answer checked, a final reply with a second "type":"action" prints none of its text; only the repaired answer is printed', async () => {
		const reply = `{"type":"final","answer":"The items are counted and the report is done, all fine.","type":"action","tool":"json_transform","args":{"data":[1],"expression":"length(@)"}}`;
		const repaired = final('Nothing was counted yet.');
		const { run, events, result } = await runStreaming(
			{ allowed_tools: ['json_transform'] },
			[
				{ text: reply, chunks: splitIntoPieces(reply, 4) },
				{ text: repaired, chunks: splitIntoPieces(repaired, 3) },
			],
			['--stream-answer', 'checked'],
		);
		expect(run.code).toBe(0);
		expect(run.stdout.split('\n').slice(0, -2).join('\n')).not.toContain('report is done');
		expect(
			events.filter((event) => event.type === 'answer_delta' || event.type === 'answer_restart'),
		).toEqual([{ type: 'answer_delta', text: 'Nothing was counted yet.' }]);
		expect(result.used_tools).toEqual({});
	});

	it('refuses an unknown --stream-answer with exit 2 naming the flag and its values', async () => {
		const configPath = join(folder, 'config.json');
		writeFileSync(configPath, JSON.stringify({ model: 'scripted-model' }));
		const run = await runCli([
			'run',
			'--config',
			configPath,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			API_KEY,
			'--stream',
			'--stream-answer',
			'whole',
		]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain('--stream-answer must be "as-written" or "checked", not "whole"');
	});

	it('refuses --stream-answer without --stream with exit 2, saying it needs --stream', async () => {
		const configPath = join(folder, 'config.json');
		writeFileSync(configPath, JSON.stringify({ model: 'scripted-model' }));
		const run = await runCli([
			'run',
			'--config',
			configPath,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			API_KEY,
			'--stream-answer',
			'checked',
		]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain('--stream-answer needs --stream');
	});

	it('a stream without a usage chunk prints usage marked estimated, and total_token_budget counts it', async () => {
		const { run, result } = await runStreaming(
			{ allowed_tools: ['json_transform'], total_token_budget: 50 },
			[
				{
					text: action('json_transform', { data: [1], expression: 'length(@)' }),
					withoutUsage: true,
				},
				{ text: final('never asked'), withoutUsage: true },
			],
		);
		expect(run.code).toBe(0);
		expect(result.finish_reason).toBe('token_budget');
		expect(result.usage.estimated).toBe(true);
		expect(result.trace[0].usage.estimated).toBe(true);
		expect(result.usage.total_tokens).toBeGreaterThan(50);
		expect(server().requests).toHaveLength(1);
	});
});
