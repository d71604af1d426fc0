// Issue #50: guardrails and hooks tried on past audited runs — real runs stored in PostgreSQL, read back, verified,
// and checked without a model or a tool: what would have been denied, redacted or blocked, where, and which runs
// would have ended differently. Through the library and the built CLI.
import { runAgent } from '../../src/agent/run-agent';
import { closeAuditSinks } from '../../src/audit/postgres-sink';
import { replayGuardrails } from '../../src';
import type { RunAgentOptions } from '../../src/agent/base/run-options';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { postgresEnvironment, query, useTestDatabase } from '../support/postgres';
import { warmUpAuditedRun } from '../support/warm-up';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CARD = '4111 1111 1111 1111';
const EMAIL = 'bob@example.com';
const NO_CARDS = {
	name: 'no-cards',
	check: 'pii',
	kinds: ['credit_card'],
	on: ['tool_call', 'answer'],
	action: 'block',
};
const HIDE_EMAILS = {
	name: 'hide-emails',
	check: 'pii',
	kinds: ['email'],
	on: ['observation', 'answer'],
	action: 'redact',
};
const GUARDRAILS = [NO_CARDS, HIDE_EMAILS];
const actions = (...calls: [string, Record<string, unknown>][]) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

beforeAll(warmUpAuditedRun);

describe('trying guardrails on past audited runs', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());
	const started = new Date(Date.now() - 60_000).toISOString();

	/** A real audited run of `script` (json_transform allowed); its run id. */
	async function audited(
		script: string[],
		extra: { workflow?: string; config?: Record<string, unknown> } = {},
	): Promise<string> {
		server().setScript(script);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['json_transform'],
				max_parallel_calls: 4,
				...extra.config,
			} as RunAgentOptions['config'],
			prompt: 'look it up',
			audit: {
				postgres: database().url,
				waitMs: 5_000,
				...(extra.workflow ? { origin: { workflow_id: extra.workflow } } : {}),
			},
		});
		expect(result.audit).toMatchObject({ stored: true });
		return (result.audit as { run_id: string }).run_id;
	}
	/** A run that sent a card number to a tool, then answered. */
	const cardRun = (workflow?: string) =>
		audited(
			[action('json_transform', { data: [`card ${CARD}`], expression: 'length(@)' }), final('1')],
			{ workflow },
		);
	/** A run whose second call of a batch returned an e-mail address. */
	const emailRun = (workflow?: string) =>
		audited(
			[
				actions(
					['json_transform', { data: [1, 2], expression: 'length(@)' }],
					['json_transform', { data: [`mail ${EMAIL}`], expression: '[0]' }],
				),
				final('found it'),
			],
			{ workflow },
		);
	const cleanRun = (workflow?: string) =>
		audited([action('json_transform', { data: [1], expression: 'length(@)' }), final('one')], {
			workflow,
		});
	const guardrailsFile = (content: unknown) => {
		const path = join(mkdtempSync(join(tmpdir(), 'greplay-')), 'guardrails.json');
		writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
		return path;
	};
	const cli = (args: string[]) =>
		runCli(['audit', 'replay', '--postgres', database().url, ...args], postgresEnvironment());

	it('finds a card number in a recorded call: the run would have been blocked at before_tool', async () => {
		const id = await cardRun();
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: GUARDRAILS,
			run: id,
		});
		expect(report.unverified).toEqual([]);
		expect(report.runs).toHaveLength(1);
		const [run] = report.runs;
		expect(run).toMatchObject({
			run_id: id,
			recorded: { finish_reason: 'final', steps: 2 },
			ends_differently: true,
			would_end: {
				how: 'blocked',
				name: 'no-cards',
				by: 'guardrail',
				point: 'before_tool',
				step: 1,
				tool: 'json_transform',
			},
			decisions: [
				{
					name: 'no-cards',
					by: 'guardrail',
					point: 'before_tool',
					decision: 'block',
					step: 1,
					tool: 'json_transform',
				},
			],
		});
		// Checking stopped at the block: the run would have ended there.
		expect(run.checked).toMatchObject({ input: true, tool_calls: 1, observations: 0, answers: 0 });
		expect(report.total).toEqual({ runs: 1, tripped: 1, decisions: 1, ends_differently: [id] });
		expect(JSON.stringify(report)).not.toContain('4111');
	});

	it('redacts an e-mail address in a batch call’s observation, and the run ends as recorded', async () => {
		const id = await emailRun();
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: GUARDRAILS,
			run: id,
		});
		const [run] = report.runs;
		expect(run.ends_differently).toBe(false);
		expect(run.would_end).toBeUndefined();
		expect(run.decisions).toEqual([
			{
				name: 'hide-emails',
				by: 'guardrail',
				point: 'after_tool',
				decision: 'redact',
				step: 1,
				tool: 'json_transform',
				call: 2,
			},
		]);
		expect(run.checked).toMatchObject({ tool_calls: 2, observations: 2, answers: 1 });
		expect(JSON.stringify(report)).not.toContain(EMAIL);
	});

	it('a clean run is unchanged: nothing tripped', async () => {
		const id = await cleanRun();
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: GUARDRAILS,
			run: id,
		});
		expect(report.runs[0]).toMatchObject({ ends_differently: false, decisions: [] });
		expect(report.total).toEqual({ runs: 1, tripped: 0, decisions: 0, ends_differently: [] });
	});

	it('a deny_call guardrail: the call would not have run, and checking goes on, later finds marked', async () => {
		const id = await audited([
			action('json_transform', { data: [`card ${CARD}`], expression: 'length(@)' }),
			action('json_transform', { data: [`mail ${EMAIL}`], expression: '[0]' }),
			final('done'),
		]);
		const deny = { ...NO_CARDS, name: 'deny-cards', on: ['tool_call'], action: 'deny_call' };
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: [deny, HIDE_EMAILS],
			run: id,
		});
		const [run] = report.runs;
		expect(run.would_end).toMatchObject({ how: 'denied', name: 'deny-cards', step: 1 });
		expect(run.decisions).toEqual([
			expect.objectContaining({ name: 'deny-cards', decision: 'deny', step: 1 }),
			expect.objectContaining({
				name: 'hide-emails',
				decision: 'redact',
				step: 2,
				after_divergence: true,
			}),
		]);
		// The denied call's observation was never the model's: after_tool does not see it.
		expect(run.checked.observations).toBe(1);
	});

	it('a run the same guardrail already blocked does not end differently', async () => {
		const id = await audited(
			[action('json_transform', { data: [`card ${CARD}`], expression: 'length(@)' }), final('1')],
			{ config: { guardrails: [NO_CARDS] } },
		);
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: [NO_CARDS],
			run: id,
		});
		expect(report.runs[0]).toMatchObject({
			recorded: { finish_reason: 'guardrail' },
			ends_differently: false,
			decisions: [expect.objectContaining({ name: 'no-cards', decision: 'block', step: 1 })],
		});
	});

	it('library hooks are tried on the record too, and one that throws fails closed', async () => {
		const id = await cleanRun();
		const seen: string[] = [];
		const report = await replayGuardrails({
			postgres: database().url,
			hooks: [
				{
					name: 'watcher',
					beforeTool: (data) => void seen.push(`${data.point} ${data.tool} ${data.run_id}`),
					afterModel: () => undefined,
				},
				{
					name: 'broken',
					afterTool: () => {
						throw new Error('no database');
					},
				},
			],
			run: id,
		});
		expect(seen).toEqual([`before_tool json_transform ${id}`]);
		expect(report.tried).toEqual({ guardrails: 0, hooks: 2 });
		expect(report.runs[0]).toMatchObject({
			ends_differently: true,
			would_end: { how: 'blocked', name: 'broken', by: 'hook', point: 'after_tool', step: 1 },
			decisions: [
				expect.objectContaining({
					name: 'broken',
					by: 'hook',
					decision: 'block',
					reason: expect.stringContaining('no database'),
				}),
			],
		});
		expect(report.runs[0].checked.replies).toBe(1);
	});

	it('--since, --workflow and --limit select the runs, oldest first (library and CLI)', async () => {
		const card = await cardRun('wf-a');
		const email = await emailRun('wf-b');
		const clean = await cleanRun('wf-a');
		const ids = async (options: { workflow?: string; limit?: number }) =>
			(
				await replayGuardrails({
					postgres: database().url,
					guardrails: GUARDRAILS,
					since: started,
					...options,
				})
			).runs.map((run) => run.run_id);
		expect(await ids({})).toEqual([card, email, clean]);
		expect(await ids({ workflow: 'wf-a' })).toEqual([card, clean]);
		expect(await ids({ limit: 2 })).toEqual([card, email]);
		expect(await ids({ workflow: 'wf-a', limit: 1 })).toEqual([card]);
		expect(
			(
				await replayGuardrails({
					postgres: database().url,
					guardrails: GUARDRAILS,
					since: new Date(Date.now() + 3_600_000),
				})
			).runs,
		).toEqual([]);

		const file = guardrailsFile(GUARDRAILS);
		const json = await cli([
			'--guardrails',
			file,
			'--since',
			started,
			'--workflow',
			'wf-a',
			'--json',
		]);
		expect(json.stderr).toBe('');
		expect(json.code).toBe(0);
		const report = JSON.parse(json.stdout);
		expect(report.runs.map((run: { run_id: string }) => run.run_id)).toEqual([card, clean]);
		expect(report.total.ends_differently).toEqual([card]);

		const text = await cli(['--guardrails', file, '--since', started, '--limit', '2']);
		expect(text.code).toBe(0);
		expect(text.stdout).toContain(`run ${card} (workflow wf-a, `);
		expect(text.stdout).toContain(
			'ENDS DIFFERENTLY — would have ended "guardrail": guardrail "no-cards" blocks at before_tool, step 1 (json_transform)',
		);
		expect(text.stdout).toContain(
			'step 1 (json_transform, call 2), after_tool: guardrail "hide-emails" would redact',
		);
		expect(text.stdout).toContain(
			'2 run(s) checked against 2 guardrail(s), no model or tool called: 2 tripped (2 decision(s)), 1 would have ended differently',
		);
		expect(text.stdout).not.toContain(clean);
		expect(text.stdout + text.stderr).not.toMatch(/4111|bob@/);
	});

	it('a tampered row is named and nothing is checked: exit 3', async () => {
		const card = await cardRun();
		const clean = await cleanRun();
		await query(
			database().url,
			`UPDATE agent_core_audit_runs SET final_answer = 'forged' WHERE run_id = $1`,
			[clean],
		);
		const report = await replayGuardrails({
			postgres: database().url,
			guardrails: GUARDRAILS,
			since: started,
		});
		expect(report.runs).toEqual([]);
		expect(report.unverified).toEqual([
			{ run_id: clean, first_mismatch: expect.objectContaining({ part: 'final_answer' }) },
		]);
		const file = guardrailsFile(GUARDRAILS);
		const result = await cli(['--guardrails', file, '--since', started]);
		expect(result.code).toBe(3);
		expect(result.stderr).toContain(
			`run ${clean} (final_answer) does not verify, so no run was checked`,
		);
		expect(result.stdout).toContain(`run ${clean}: final_answer:`);
		expect(result.stdout).not.toContain(card);
		const json = await cli(['--guardrails', file, '--run', clean, '--json']);
		expect(json.code).toBe(3);
		expect(JSON.parse(json.stdout).unverified[0]).toMatchObject({ run_id: clean });
	});
});
