// Issue #50: trying guardrails on past runs against hostile input — a guardrails file that is wrong or not JSON, an
// unknown run, and stored rows holding a huge string or deeply nested args (checked in linear time, never a stack
// overflow; a row nested deeper than any run writes is named as not verifying).
import { runAgent } from '../../src/agent/run-agent';
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import type { AuditRecord } from '../../src/audit/record';
import { sealRecord } from '../../src/audit/record-chain';
import { nextLink } from '../../src/trace/digest';
import { replayGuardrails } from '../../src';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { postgresEnvironment, query, useTestDatabase } from '../support/postgres';
import { warmUpAuditedRun } from '../support/warm-up';
import { useEventLoopWatchdog } from '../support/watchdog';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CARD = '4111 1111 1111 1111';
const NO_CARDS = {
	name: 'no-cards',
	check: 'pii',
	kinds: ['credit_card'],
	on: ['tool_call'],
	action: 'block',
};
/** Every built-in check, redacting at every point it takes: the walk goes through every text of the run. */
const EVERY_CHECK = [
	{
		name: 'pii',
		check: 'pii',
		on: ['input', 'tool_call', 'observation', 'answer'],
		action: 'redact',
	},
	{
		name: 'secrets',
		check: 'secrets',
		on: ['tool_call', 'observation', 'answer'],
		action: 'redact',
	},
	{
		name: 'urls',
		check: 'urls',
		allowed_hosts: ['api.example.com'],
		on: ['tool_call', 'observation'],
		action: 'redact',
	},
	{
		name: 'pattern',
		check: 'pattern',
		pattern: 'internal only',
		on: ['observation'],
		action: 'redact',
	},
	{
		name: 'keywords',
		check: 'keywords',
		keywords: ['confidential'],
		on: ['tool_call', 'observation'],
		action: 'redact',
	},
];

/** Deeper than a hook's copy of the args can go, within what a stored row's hashes can be recomputed over. */
const DEPTH = 4_000;

beforeAll(warmUpAuditedRun);

describe('trying guardrails on past runs against hostile input', () => {
	useEventLoopWatchdog('guardrail replay');
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	async function audited(): Promise<string> {
		server().setScript([
			action('json_transform', { data: [1], expression: 'length(@)' }),
			final('one'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['json_transform'] },
			prompt: 'count',
			audit: { postgres: database().url, waitMs: 5_000 },
		});
		expect(result.audit).toMatchObject({ stored: true });
		return (result.audit as { run_id: string }).run_id;
	}
	/**
	 * A forger with write access who changes step 1 and rewrites every hash to match, as a new run: the row
	 * verifies (no output's digest is at hand), so the guardrails must read whatever it holds.
	 */
	async function forged(id: string, change: (record: AuditRecord) => void): Promise<string> {
		const sink = auditSinkFor(database().url);
		const record = (await sink.read(id))!;
		change(record);
		let link = record.chain_base;
		for (const entry of record.steps) entry.link = link = nextLink(link, entry.step);
		const sealed = sealRecord({ ...record, run_id: `${id}-forged`, trace_digest: link });
		await sink.write(sealed);
		return sealed.run_id;
	}
	const file = (content: string) => {
		const path = join(mkdtempSync(join(tmpdir(), 'greplay-')), 'guardrails.json');
		writeFileSync(path, content);
		return path;
	};
	const cli = (args: string[]) =>
		runCli(['audit', 'replay', '--postgres', database().url, ...args], postgresEnvironment());

	it('a huge string in the recorded args and observation is checked by every check, in linear time', async () => {
		const big = 'word '.repeat(600_000); // 3 MB
		const id = await forged(await audited(), (record) => {
			const step = record.steps[0].step;
			step.action = {
				tool: 'json_transform',
				args: { data: [`${big}${CARD}`], expression: 'length(@)' },
			};
			step.observation = `${big}mail bob@example.com https://evil.example.org/x`;
		});
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: EVERY_CHECK,
			run: id,
		});
		expect(report.unverified).toEqual([]);
		const [run] = report.runs;
		expect(run.decisions).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ name: 'pii', point: 'before_tool', decision: 'redact', step: 1 }),
				expect.objectContaining({ name: 'pii', point: 'after_tool', decision: 'redact', step: 1 }),
				expect.objectContaining({ name: 'urls', point: 'after_tool', decision: 'redact', step: 1 }),
			]),
		);
		expect(run.ends_differently).toBe(false);
		expect(JSON.stringify(report).length).toBeLessThan(10_000);
	});

	it('deeply nested recorded args are walked without recursion: the card at the bottom is found', async () => {
		let data: unknown = [`card ${CARD}`];
		for (let depth = 0; depth < DEPTH; depth++) data = { a: data };
		const id = await forged(await audited(), (record) => {
			record.steps[0].step.action = {
				tool: 'json_transform',
				args: { data, expression: 'length(@)' },
			};
		});
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: [NO_CARDS],
			run: id,
		});
		expect(report.unverified).toEqual([]);
		expect(report.runs[0]).toMatchObject({
			ends_differently: true,
			would_end: { how: 'blocked', name: 'no-cards', point: 'before_tool', step: 1 },
		});
		// A hook is handed a copy of the args; args nested past what can be copied fail it closed, as in a run.
		const hooked = await replayGuardrails({
			postgres: database().url,
			hooks: [{ name: 'reader', beforeTool: () => undefined }],
			run: id,
		});
		expect(hooked.runs[0]).toMatchObject({
			would_end: { how: 'blocked', name: 'reader', by: 'hook', point: 'before_tool' },
			decisions: [
				expect.objectContaining({
					reason: expect.stringContaining('reader failed at before_tool'),
				}),
			],
		});
	});

	it('a row nested deeper than any run writes is named as not verifying: exit 3, no stack overflow', async () => {
		const id = await audited();
		const depth = 12_000;
		const deep = `${'{"a":'.repeat(depth)}"card ${CARD}"${'}'.repeat(depth)}`;
		await query(
			database().url,
			`UPDATE agent_core_audit_steps SET action = jsonb_set(action, '{args,data}', $1::jsonb) WHERE position = 0`,
			[deep],
		);
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: [NO_CARDS],
			run: id,
		});
		expect(report.runs).toEqual([]);
		expect(report.unverified).toEqual([
			{ run_id: id, first_mismatch: expect.objectContaining({ part: 'record' }) },
		]);
		const result = await cli(['--guardrails', file(JSON.stringify([NO_CARDS])), '--run', id]);
		expect(result.code).toBe(3);
		expect(result.stderr).toContain(`run ${id} (record) does not verify`);
	});

	it('a guardrails file with a bad entry is refused naming the entry and field, before the database is read', async () => {
		const bad = [NO_CARDS, { ...NO_CARDS, name: 'second', kinds: ['credit_cards'] }];
		const result = await cli(['--guardrails', file(JSON.stringify(bad)), '--run', 'any']);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain('entry [1].kinds[0]');
		expect(result.stderr).toContain('credit_card');
		expect(result.stdout).toBe('');
		await expect(
			replayGuardrails({ postgres: database().url, guardrails: bad, run: 'any' }),
		).rejects.toMatchObject({ name: 'ConfigError', field: 'guardrails[1].kinds[0]' });
		const deny = await cli([
			'--guardrails',
			file(JSON.stringify([{ ...NO_CARDS, on: ['answer'], action: 'deny_call' }])),
			'--run',
			'any',
		]);
		expect(deny.code).toBe(2);
		expect(deny.stderr).toContain('entry [0]');
	});

	it('a guardrails file that is not JSON, or not a list, is refused clearly', async () => {
		const notJson = await cli(['--guardrails', file('[{"name": "no-cards",'), '--run', 'any']);
		expect(notJson.code).toBe(2);
		expect(notJson.stderr).toMatch(/--guardrails: .*guardrails\.json is not valid JSON/);
		const object = await cli(['--guardrails', file(JSON.stringify(NO_CARDS)), '--run', 'any']);
		expect(object.code).toBe(2);
		expect(object.stderr).toContain('must be a list of guardrails');
		const missing = await cli(['--guardrails', '/nonexistent/guardrails.json', '--run', 'any']);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain('--guardrails: cannot read');
	});

	it('--run of an unknown id, and flags that do not fit, are clear errors', async () => {
		await audited();
		const guardrails = file(JSON.stringify([NO_CARDS]));
		const unknown = await cli(['--guardrails', guardrails, '--run', 'no-such-run']);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toContain('--run: no run "no-such-run" in the audit database');
		await expect(
			replayGuardrails({ postgres: database().url, guardrails: [NO_CARDS], run: 'no-such-run' }),
		).rejects.toMatchObject({ name: 'InputError', field: 'run' });
		const both = await cli(['--guardrails', guardrails, '--run', 'x', '--since', '2026-01-01']);
		expect(both.code).toBe(2);
		const withModel = await cli(['--guardrails', guardrails, '--run', 'x', '--model', 'gpt']);
		expect(withModel.stderr).toContain('--guardrails cannot take a candidate flag');
		const json = await cli(['--run', 'x', '--json']);
		expect(json.stderr).toContain('--json belongs to audit replay --guardrails');
		await expect(replayGuardrails({ postgres: database().url, run: 'x' })).rejects.toMatchObject({
			field: 'guardrails',
		});
	});
});
