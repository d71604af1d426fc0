import { runAgent } from '../../src/agent/run-agent';
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import type { AuditRecord } from '../../src/audit/record';
import { recordDigest, recordHashes, sealRecord } from '../../src/audit/record-chain';
import { verifyRecord } from '../../src/audit/verify';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { postgresEnvironment, query, useTestDatabase } from '../support/postgres';
import { warmUpAuditedRun } from '../support/warm-up';
import { useEventLoopWatchdog } from '../support/watchdog';

const RUNS = 'agent_core_audit_runs';
const STEPS = 'agent_core_audit_steps';

/**
 * Issue #26: a hostile operator with write access to the audit database. Every stored field that says
 * what happened is covered by the record chain, so verify names the first one changed; a forger who
 * rewrote every hash is caught against the output's `audit.record_digest`; rows from before still verify.
 */
// Before the watchdog measures: a module's one-time load is not a stall caused by the input under test.
beforeAll(warmUpAuditedRun);

describe('audit verify against a hostile operator', () => {
	useEventLoopWatchdog('audit');
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	/** A stored two-step run with a session and an n8n origin; its output. */
	async function storedRun(answer = 'Transfer pending') {
		server().setScript([
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			final(answer),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['json_transform'] },
			prompt: 'may I transfer 10 EUR?',
			sessionId: 'session-7',
			audit: {
				postgres: database().url,
				origin: { workflow_id: 'wf-1', execution_id: '41', node_name: 'Agent Core' },
				waitMs: 5_000,
			},
		});
		expect(result.audit).toMatchObject({ stored: true });
		return result as typeof result & { audit: { run_id: string; record_digest: string } };
	}
	const read = async (runId: string) => (await auditSinkFor(database().url).read(runId))!;
	const verified = async (runId: string, digest?: string) =>
		verifyRecord(await read(runId), digest);

	it.each([
		['created_at', "created_at = created_at + interval '1 hour'"],
		['workflow_id', "workflow_id = 'wf-forged'"],
		['execution_id', "execution_id = '999'"],
		['node_name', "node_name = 'Other Node'"],
		['session_id', "session_id = 'session-forged'"],
		['model', "model = 'gpt-forged'"],
		['provider', "provider = 'gemini'"],
		['messages', `messages = jsonb_set(messages, '{0,content}', '"may I transfer 10,000 EUR?"')`],
		['finish_reason', "finish_reason = 'max_steps'"],
		['stop_detail', "stop_detail = 'stopped by the operator'"],
		['final_answer', "final_answer = 'Transfer approved: 10,000 EUR'"],
		['final_output', `final_output = '"Transfer approved: 10,000 EUR"'::jsonb`],
		['usage', `usage = jsonb_set(usage, '{total_tokens}', '1')`],
		['metrics', `metrics = jsonb_set(metrics, '{repairs}', '5')`],
		['elapsed_ms', 'elapsed_ms = elapsed_ms + 1'],
		['config', `config = jsonb_set(config, '{model}', '"another-model"')`],
		['config', `config = jsonb_set(config, '{max_steps}', '99')`],
		['tools', `tools = jsonb_set(tools, '{0,side_effects}', '"by_args"')`],
		['tool json_transform', `tools = jsonb_set(tools, '{0,schema,description}', '"widened"')`],
		['trace_digest', "trace_digest = repeat('a', 64)"],
		['record_digest', "record_digest = repeat('b', 64)"],
		['final_answer', `record_hashes = jsonb_set(record_hashes, '{final_answer}', '"00"')`],
		['chain_version', 'chain_version = 5'],
		// Written down to version 2 (sealed before runs stored their cost), the row would leave `cost` uncovered.
		['chain_version', 'chain_version = 2'],
		// Written down to version 3 (sealed before forks), the row would leave `forked_from` uncovered.
		['chain_version', 'chain_version = 3'],
		['cost', `cost = '{"total": 0.000001, "currency": "USD"}'::jsonb`],
		// A run that was no fork made to look like one of another run.
		['forked_from', `forked_from = '{"run_id": "another-run", "step": 2}'::jsonb`],
	])('a run row rewritten (%s: %s) fails verify naming that part', async (part, change) => {
		const result = await storedRun();
		expect(await verified(result.audit.run_id, result.audit.record_digest)).toMatchObject({
			ok: true,
			chain_version: 4,
			digest_covers: 'record',
		});
		await query(database().url, `UPDATE ${RUNS} SET ${change}`);
		const report = await verified(result.audit.run_id);
		expect(report.ok).toBe(false);
		expect(report.first_mismatch?.part).toBe(part);
	});

	it('each step’s raw model reply, and each step’s content, is named when rewritten', async () => {
		const result = await storedRun();
		for (const position of [0, 1]) {
			await query(database().url, `UPDATE ${STEPS} SET reply = reply || ' ' WHERE position = $1`, [
				position,
			]);
			expect((await verified(result.audit.run_id)).first_mismatch).toEqual({
				part: `step ${position + 1} reply`,
				detail: `the stored reply of step ${position + 1} does not match its recorded hash: it was changed after the run`,
			});
			await query(
				database().url,
				`UPDATE ${STEPS} SET reply = left(reply, -1) WHERE position = $1`,
				[position],
			);
		}
		expect((await verified(result.audit.run_id)).ok).toBe(true);
		await query(
			database().url,
			`UPDATE ${STEPS} SET extra = jsonb_set(extra, '{notices}', '["forged"]') WHERE position = 1`,
		);
		expect((await verified(result.audit.run_id)).first_mismatch?.part).toBe('step 2');
	});

	it('a run id swapped in the record is named', async () => {
		const result = await storedRun();
		expect(
			verifyRecord({ ...(await read(result.audit.run_id)), run_id: 'another-run' }).first_mismatch
				?.part,
		).toBe('run_id');
	});

	it.each([
		['the last step row deleted', `DELETE FROM ${STEPS} WHERE position = 1`],
		['the first step row deleted', `DELETE FROM ${STEPS} WHERE position = 0`],
		[
			'two step rows reordered',
			`UPDATE ${STEPS} SET position = 1 - position + 10; UPDATE ${STEPS} SET position = position - 10`,
		],
	])('%s: verify names the steps', async (_, change) => {
		const result = await storedRun();
		for (const statement of change.split('; ')) await query(database().url, statement);
		expect((await verified(result.audit.run_id)).first_mismatch?.part).toBe('steps');
	});

	it('two runs’ steps swapped (with their trace digests) are caught, each run naming its trace_digest', async () => {
		const first = await storedRun('first answer');
		const second = await storedRun('second answer');
		const [a, b] = [first.audit.run_id, second.audit.run_id];
		await query(
			database().url,
			`UPDATE ${STEPS} SET run_id = CASE WHEN run_id = $1 THEN $2 ELSE $1 END, position = position + 100`,
			[a, b],
		);
		await query(database().url, `UPDATE ${STEPS} SET position = position - 100`);
		expect((await verified(a)).first_mismatch?.part).toBe('trace_digest');
		await query(
			database().url,
			`UPDATE ${RUNS} SET trace_digest = CASE WHEN run_id = $1 THEN $3 ELSE $4 END WHERE run_id IN ($1, $2)`,
			[a, b, second.trace_digest, first.trace_digest],
		);
		expect((await verified(a)).first_mismatch?.part).toBe('trace_digest');
		expect((await verified(b)).first_mismatch?.part).toBe('trace_digest');
	});

	it('a forger who rewrites the answer, the question and every hash is caught against the output’s record_digest', async () => {
		const result = await storedRun();
		const original = await read(result.audit.run_id);
		const forged = sealRecord({
			...original,
			final_answer: 'Transfer approved: 10,000 EUR',
			messages: [
				{ role: 'user', content: 'may I transfer 10,000 EUR?' },
				...original.messages.slice(1),
			],
		});
		await query(
			database().url,
			`UPDATE ${RUNS} SET final_answer = $1, messages = $2::jsonb, record_hashes = $3::jsonb, record_digest = $4`,
			[
				forged.final_answer,
				JSON.stringify(forged.messages),
				JSON.stringify(forged.record_hashes),
				forged.record_digest,
			],
		);
		expect((await verified(result.audit.run_id)).ok).toBe(true);
		const report = await verified(result.audit.run_id, result.audit.record_digest);
		expect(report).toMatchObject({ ok: false, first_mismatch: { part: 'digest' } });
		// The trace_digest alone proves the config, tools and steps, not the run fields: the report says so.
		expect(await verified(result.audit.run_id, result.trace_digest)).toMatchObject({
			ok: true,
			digest_covers: 'trace',
		});
	});

	it('a forger who downgrades a row to chain version 1 is caught against the output’s record_digest', async () => {
		const result = await storedRun();
		await query(
			database().url,
			`UPDATE ${RUNS} SET final_answer = 'Transfer approved', chain_version = 1, record_hashes = NULL, record_digest = NULL`,
		);
		expect(await verified(result.audit.run_id)).toMatchObject({ ok: true, chain_version: 1 });
		expect(
			(await verified(result.audit.run_id, result.audit.record_digest)).first_mismatch?.part,
		).toBe('digest');
	});

	it('rows written before the record chain still verify as version 1, beside new version 2 rows', async () => {
		const old = await storedRun('old answer');
		// The table as it was before the record chain: no chain_version, record_hashes, record_digest, cost or forked_from.
		await query(
			database().url,
			`ALTER TABLE ${RUNS} DROP COLUMN chain_version, DROP COLUMN record_hashes, DROP COLUMN record_digest, DROP COLUMN cost, DROP COLUMN forked_from`,
		);
		await closeAuditSinks();
		expect(await verified(old.audit.run_id, old.trace_digest)).toMatchObject({
			ok: true,
			chain_version: 1,
			digest_covers: 'trace',
		});
		const fresh = await storedRun('new answer'); // the migration adds the columns back, old rows as version 1
		expect(await verified(old.audit.run_id, old.trace_digest)).toMatchObject({
			ok: true,
			chain_version: 1,
		});
		expect(await verified(fresh.audit.run_id, fresh.audit.record_digest)).toMatchObject({
			ok: true,
			chain_version: 4,
			digest_covers: 'record',
		});
		expect(
			await query(
				database().url,
				`SELECT final_answer, chain_version FROM ${RUNS} ORDER BY chain_version`,
			),
		).toEqual([
			{ final_answer: 'old answer', chain_version: 1 },
			{ final_answer: 'new answer', chain_version: 4 },
		]);
	});

	it('a row sealed as version 2, before runs stored their cost, still verifies, and its fields are still covered', async () => {
		const {
			cost: _cost,
			record_hashes: _hashes,
			record_digest: _digest,
			...fields
		} = await read((await storedRun()).audit.run_id);
		// What a version 2 writer stored: the same fields without cost, hashed by the version 2 list.
		const versionTwo = { ...fields, chain_version: 2 } as AuditRecord;
		const hashes = recordHashes(versionTwo);
		expect(hashes).not.toHaveProperty('cost');
		const stored = { ...versionTwo, record_hashes: hashes, record_digest: recordDigest(hashes) };
		expect(verifyRecord(stored, stored.record_digest)).toMatchObject({
			ok: true,
			chain_version: 2,
			digest_covers: 'record',
		});
		expect(
			verifyRecord({ ...stored, final_answer: 'Transfer approved' }).first_mismatch?.part,
		).toBe('final_answer');
	});

	it('a malformed record is a mismatch naming the part, never a throw', async () => {
		const record = await read((await storedRun()).audit.run_id);
		const cases: Array<[Partial<AuditRecord> | Record<string, unknown>, string]> = [
			[{ config: null }, 'config'],
			[{ tools: {} }, 'tools'],
			[{ tools: [{ name: 'x' }] }, 'tool 1'],
			[{ steps: [{ step: {}, link: 'x' }] }, 'step at position 0'],
			[{ steps: [{ link: 'x' }] }, 'step at position 0'],
			[{ steps: null }, 'steps'],
			[{ record_hashes: { replies: [] } }, 'record_hashes'],
			[{ record_digest: undefined }, 'record_digest'],
		];
		for (const [change, part] of cases) {
			const report = verifyRecord({ ...record, ...change } as AuditRecord);
			expect([report.ok, report.first_mismatch?.part]).toEqual([false, part]);
		}
	});

	describe('through the CLI', () => {
		const cli = (args: string[]) => runCli(args, postgresEnvironment());
		const verify = (runId: string, extra: string[] = []) =>
			cli(['audit', 'verify', '--postgres', database().url, '--run', runId, ...extra]);

		it.each([
			['config', "config = 'null'::jsonb"],
			['tools', "tools = '{}'::jsonb"],
			['final_answer', "final_answer = 'Transfer approved: 10,000 EUR'"],
			['messages', `messages = '[]'::jsonb`],
		])(
			'verify exits 3 naming %s when the row was rewritten or is malformed',
			async (part, change) => {
				const result = await storedRun();
				await query(database().url, `UPDATE ${RUNS} SET ${change}`);
				const finished = await verify(result.audit.run_id, [
					'--digest',
					result.audit.record_digest,
				]);
				expect(finished).toMatchObject({ code: 3, stderr: '' });
				expect(JSON.parse(finished.stdout).first_mismatch.part).toBe(part);
			},
		);

		it('replay of a malformed row exits 3 naming the part, with --unverified too', async () => {
			const result = await storedRun();
			await query(database().url, `UPDATE ${RUNS} SET tools = '{}'::jsonb`);
			const finished = await cli([
				'audit',
				'replay',
				'--postgres',
				database().url,
				'--run',
				result.audit.run_id,
			]);
			expect(finished.code).toBe(3);
			expect(JSON.parse(finished.stdout).runs).toMatchObject([
				{ run_id: result.audit.run_id, verified: false, first_mismatch: { part: 'tools' } },
			]);
			const anyway = await cli([
				'audit',
				'replay',
				'--postgres',
				database().url,
				'--run',
				result.audit.run_id,
				'--unverified',
			]);
			expect(anyway).toMatchObject({ code: 3, stderr: '' });
			expect(JSON.parse(anyway.stdout)).toMatchObject({
				same: false,
				first_mismatch: { part: 'tools' },
			});
		});

		it('replay of a row whose stored output_schema today’s checks refuse exits 3 naming output_schema, not a crash', async () => {
			const result = await storedRun();
			await query(
				database().url,
				`UPDATE ${RUNS} SET config = jsonb_set(config, '{output_schema}', $1::jsonb)`,
				[JSON.stringify({ type: 'string', pattern: '^(?=a)a+$' })],
			);
			// The edit itself makes the row fail verify; --unverified lets the replay reach today's schema checks.
			const finished = await cli([
				'audit',
				'replay',
				'--postgres',
				database().url,
				'--run',
				result.audit.run_id,
				'--unverified',
			]);
			expect(finished).toMatchObject({ code: 3, stderr: '' });
			const report = JSON.parse(finished.stdout);
			expect(report).toMatchObject({ same: false });
			expect(report.first_mismatch.part).toMatch(/output_schema/);
			expect(report.first_mismatch.detail).toMatch(/cannot be replayed/);
		});

		it('verify --digest takes the output’s record_digest and says what it proved; a digest that is not hex is exit 2', async () => {
			const result = await storedRun();
			const finished = await verify(result.audit.run_id, ['--digest', result.audit.record_digest]);
			expect(finished.code).toBe(0);
			expect(JSON.parse(finished.stdout)).toMatchObject({
				ok: true,
				chain_version: 4,
				digest_covers: 'record',
				recomputed_record_digest: result.audit.record_digest,
			});
			expect(await verify(result.audit.run_id, ['--digest', 'not-a-digest'])).toMatchObject({
				code: 2,
				stderr:
					'agent-core: --digest must be 64 hex digits (the output\'s audit.record_digest or trace_digest), not "not-a-digest"\n',
			});
		});
	});
});
