// Issue #52: a sub-agent's run is its own audit row, naming the parent's run, step and call (chain version 6); the
// parent's step names it back (sub_run.run_id, trace_digest), and verify of the parent checks the link both ways.
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import type { AuditRecord } from '../../src/audit/record';
import { sealRecord } from '../../src/audit/record-chain';
import { verifyStoredRun } from '../../src/audit/sub-run-links';
import { verifyRecord } from '../../src/audit/verify';
import { resumeAgent } from '../../src/agent/resume';
import { runAgent } from '../../src/agent/run-agent';
import { nextLink } from '../../src/trace/digest';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { countingTool } from '../support/durable';
import { query, useTestDatabase } from '../support/postgres';
import { warmUpAuditedRun } from '../support/warm-up';
import { TWO_CALLS, ask, auditedSubAgentRun, subAgentConfig } from './sub-agent-run';

const RUNS = 'agent_core_audit_runs';

beforeAll(warmUpAuditedRun);

describe("a sub-agent's run in the audit record", () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	const read = async (runId: string) => (await auditSinkFor(database().url).read(runId))!;
	const verify = async (runId: string) =>
		verifyStoredRun(await read(runId), (id) => auditSinkFor(database().url).read(id));
	const run = (options: Parameters<typeof auditedSubAgentRun>[2] = {}) =>
		auditedSubAgentRun(server(), database().url, options);

	/** What a forger with write access stores: the record changed, every link and hash rewritten to agree with it. */
	async function storeForged(original: AuditRecord, change: (record: AuditRecord) => void) {
		const record = { ...structuredClone(original), created_at: original.created_at };
		change(record);
		let link = record.chain_base;
		for (const entry of record.steps) entry.link = link = nextLink(link, entry.step);
		const forged = sealRecord({ ...record, trace_digest: link });
		await query(database().url, `DELETE FROM ${RUNS} WHERE run_id = $1`, [record.run_id]);
		await auditSinkFor(database().url).write(forged);
		return forged;
	}

	it("writes the child's own row naming the parent's run and step; the parent's step names it back; both verify", async () => {
		const result = await run();
		const sub = result.trace[0].sub_run!;
		expect(sub.run_id).toEqual(expect.any(String));
		expect(sub.run_id).not.toBe(result.audit.run_id);
		const child = await read(sub.run_id!);
		expect(child).toMatchObject({
			parent_run: { run_id: result.audit.run_id, step: 1 },
			chain_version: 6,
			trace_digest: sub.trace_digest,
			final_answer: 'the value is 7',
			finish_reason: 'final',
		});
		expect(child.parent_run).not.toHaveProperty('call');
		expect(child.steps.map((entry) => entry.step.action?.tool ?? entry.step.final?.answer)).toEqual(
			['lookup', 'the value is 7'],
		);
		// The parent's row is no sub-agent's: no parent_run, the version of what it holds.
		const parent = await read(result.audit.run_id);
		expect(parent.parent_run).toBeUndefined();
		expect(parent.chain_version).toBe(4);
		expect(parent.steps[0].step.sub_run).toEqual(sub);
		const report = await verify(result.audit.run_id);
		expect(report).toMatchObject({ ok: true, linked_runs: 1 });
		expect(verifyRecord(child).ok).toBe(true);
	});

	it("a batch's sub-agent calls each write a row naming its call number", async () => {
		const result = await run({
			script: TWO_CALLS,
			config: subAgentConfig({ max_parallel_calls: 2 }),
			sideEffects: true,
		});
		expect(result.final_answer).toBe('a is 1, b is 2.');
		const calls = result.trace[0].calls!;
		const children = await Promise.all(calls.map((call) => read(call.sub_run!.run_id!)));
		expect(children.map((child) => [child.parent_run, child.final_answer])).toEqual([
			[{ run_id: result.audit.run_id, step: 1, call: 1 }, 'a is 1'],
			[{ run_id: result.audit.run_id, step: 1, call: 2 }, 'b is 2'],
		]);
		expect(await verify(result.audit.run_id)).toMatchObject({ ok: true, linked_runs: 2 });
	});

	it("a sub-agent's sub-agent is linked the same way, and verify of the top run checks both levels", async () => {
		const result = await run({
			script: [ask('level 1'), ask('level 2'), final('two'), final('one'), final('top')],
			config: subAgentConfig({}, { allowed_tools: ['researcher'] }),
		});
		const level1 = result.trace[0].sub_run!;
		const level2 = level1.steps[0].sub_run!;
		expect((await read(level2.run_id!)).parent_run).toEqual({ run_id: level1.run_id, step: 1 });
		expect(await verify(result.audit.run_id)).toMatchObject({ ok: true, linked_runs: 2 });
		await query(database().url, `DELETE FROM ${RUNS} WHERE run_id = $1`, [level2.run_id]);
		const report = await verify(result.audit.run_id);
		expect([report.ok, report.first_mismatch?.part]).toEqual([false, 'step 1 sub_run']);
		expect(report.first_mismatch?.detail).toContain(
			`run ${level2.run_id} is not in the audit database`,
		);
	});

	it("the child's row deleted: verify of the parent fails naming the step", async () => {
		const result = await run();
		const childId = result.trace[0].sub_run!.run_id!;
		await query(database().url, `DELETE FROM ${RUNS} WHERE run_id = $1`, [childId]);
		const report = await verify(result.audit.run_id);
		expect(report).toMatchObject({
			ok: false,
			first_mismatch: {
				part: 'step 1 sub_run',
				detail: `the sub-agent researcher's run ${childId} is not in the audit database: its row was deleted, or never stored`,
			},
		});
		expect(report).not.toHaveProperty('linked_runs');
		// The parent's own chains still hold: only the link fails.
		expect(verifyRecord(await read(result.audit.run_id)).ok).toBe(true);
	});

	it("the child's row forged with another answer, every hash rewritten: its trace digest is not the parent's step's", async () => {
		const result = await run();
		const childId = result.trace[0].sub_run!.run_id!;
		const forged = await storeForged(await read(childId), (record) => {
			record.steps[1].step.final = { answer: 'the value is 8' };
			record.final_answer = 'the value is 8';
		});
		// The forged row verifies on its own: only the parent's link catches it.
		expect(verifyRecord(forged).ok).toBe(true);
		const report = await verify(result.audit.run_id);
		expect([report.ok, report.first_mismatch?.part]).toEqual([false, 'step 1 sub_run']);
		expect(report.first_mismatch?.detail).toContain(
			`has trace_digest ${forged.trace_digest}, not the ${result.trace[0].sub_run!.trace_digest}`,
		);
	});

	it.each([
		['another run', { run_id: 'another-run', step: 1 }],
		['another step', { step: 2 }],
		['a call of a batch', { call: 2 }],
	])(
		'the child row re-sealed naming %s as its parent: verify of the parent fails naming the step',
		async (_, change) => {
			const result = await run();
			const childId = result.trace[0].sub_run!.run_id!;
			await storeForged(await read(childId), (record) => {
				record.parent_run = { ...record.parent_run!, ...change };
			});
			const report = await verify(result.audit.run_id);
			expect([report.ok, report.first_mismatch?.part]).toEqual([false, 'step 1 sub_run']);
			expect(report.first_mismatch?.detail).toContain(
				`as the call it ran under, not run ${result.audit.run_id} step 1`,
			);
		},
	);

	it("the child's row edited in place: the child does not verify, and neither does the parent, naming the step", async () => {
		const result = await run();
		const childId = result.trace[0].sub_run!.run_id!;
		await query(database().url, `UPDATE ${RUNS} SET final_answer = 'forged' WHERE run_id = $1`, [
			childId,
		]);
		const report = await verify(result.audit.run_id);
		expect([report.ok, report.first_mismatch?.part]).toEqual([false, 'step 1 sub_run']);
		expect(report.first_mismatch?.detail).toContain('does not verify: final_answer:');
	});

	it("the child's link edited in its row (parent_run), or its link in the parent's step: each row's own chain fails", async () => {
		const result = await run();
		const childId = result.trace[0].sub_run!.run_id!;
		await query(
			database().url,
			`UPDATE ${RUNS} SET parent_run = jsonb_set(parent_run, '{step}', '2') WHERE run_id = $1`,
			[childId],
		);
		expect(verifyRecord(await read(childId)).first_mismatch?.part).toBe('parent_run');
		await query(
			database().url,
			`UPDATE agent_core_audit_steps SET extra = jsonb_set(extra, '{sub_run,run_id}', '"other"') WHERE run_id = $1`,
			[result.audit.run_id],
		);
		const report = await verify(result.audit.run_id);
		expect([report.ok, report.first_mismatch?.part]).toEqual([false, 'step 1']);
	});

	it('a parent_run added to a row of an older chain version is refused: no hash of its version covers it', async () => {
		const result = await run();
		await query(
			database().url,
			`UPDATE ${RUNS} SET parent_run = '{"run_id": "x", "step": 1}' WHERE run_id = $1`,
			[result.audit.run_id],
		);
		const report = verifyRecord(await read(result.audit.run_id));
		expect([report.ok, report.first_mismatch?.part]).toEqual([false, 'parent_run']);
		expect(report.first_mismatch?.detail).toContain('cannot name the run it ran under');
	});

	it('a parent that is not audited passes nothing down: its sub_run names no row', async () => {
		server().setScript([ask('x'), final('child'), final('parent')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: subAgentConfig(),
			extraTools: [countingTool('lookup', false).tool],
			prompt: 'go',
		});
		expect(result.trace[0].sub_run).toMatchObject({ finish_reason: 'final' });
		expect(result.trace[0].sub_run).not.toHaveProperty('run_id');
		expect(result.audit).toBeUndefined();
	});

	it("a sub-agent that paused for a person: the resumed parent's row links the resumed child's row, which names it", async () => {
		const lookup = countingTool('lookup', true);
		const common = {
			model: modelFor(server()),
			config: subAgentConfig({}, { approval_required: ['lookup'] }),
			extraTools: [lookup.tool],
			stateSecret: 'sub-agent-audit-secret-0123456789',
			audit: { postgres: database().url, waitMs: 5_000 },
		};
		server().setScript([ask('find the value'), action('lookup', { value: 7 })]);
		const paused = await runAgent({ ...common, prompt: 'what is the value?' });
		expect(paused.finish_reason).toBe('awaiting_approval');
		server().setScript([final('the value is 7'), final('Researcher says 7.')]);
		const result = await resumeAgent({
			...common,
			runState: paused.run_state,
			decision: { approve: true },
		});
		expect([result.finish_reason, lookup.runs]).toEqual(['final', [{ value: 7 }]]);
		const sub = result.trace[0].sub_run!;
		const child = await read(sub.run_id!);
		expect(child).toMatchObject({
			parent_run: { run_id: result.audit!.run_id, step: 1 },
			finish_reason: 'final',
			trace_digest: sub.trace_digest,
		});
		expect(await verify(result.audit!.run_id)).toMatchObject({ ok: true, linked_runs: 1 });
		// The paused parent's row verifies too; its sub-agent's paused row names it.
		expect(await verify(paused.audit!.run_id)).toMatchObject({ ok: true });
		const [pausedChild] = await query<{ run_id: string }>(
			database().url,
			`SELECT run_id FROM ${RUNS} WHERE parent_run->>'run_id' = $1`,
			[paused.audit!.run_id],
		);
		expect((await read(pausedChild.run_id)).finish_reason).toBe('awaiting_approval');
	});
});
