// Issue #51: a planned run's row holds its plan — the steps as approved, each step's status, who approved it and
// when — covered by the record chain; verify refuses a row whose trace ran a call its approved plan does not hold.
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import type { AuditRecord } from '../../src/audit/record';
import { sealRecord } from '../../src/audit/record-chain';
import { verifyRecord } from '../../src/audit/verify';
import { nextLink } from '../../src/trace/digest';
import type { TraceStep } from '../../src/trace/types';
import { useScriptedServer } from '../support/agent';
import { query, useTestDatabase } from '../support/postgres';
import { warmUpAuditedRun } from '../support/warm-up';
import { auditedPlannedRun, planSteps } from './planned-run';

const RUNS = 'agent_core_audit_runs';

beforeAll(warmUpAuditedRun);

describe('a planned run in the audit record', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	const approvedRun = (decision: Record<string, unknown> = { approve: true, by: 'ann@shop' }) =>
		auditedPlannedRun(server(), database().url, { approve: decision });
	const read = async (runId: string) => (await auditSinkFor(database().url).read(runId))!;

	/** What a forger with write access stores: the record changed, every link and hash rewritten to agree with it. */
	async function storeForged(original: AuditRecord, change: (record: AuditRecord) => void) {
		// created_at kept as the Date it is (a structured clone's Date is of another realm under jest).
		const record = { ...structuredClone(original), created_at: original.created_at };
		change(record);
		let link = record.chain_base;
		for (const entry of record.steps) entry.link = link = nextLink(link, entry.step);
		const forged = sealRecord({ ...record, trace_digest: link });
		await query(database().url, `DELETE FROM ${RUNS} WHERE run_id = $1`, [record.run_id]);
		await auditSinkFor(database().url).write(forged);
		return forged;
	}

	it('stores the plan as approved, each step with its status, and who approved it and when; the row verifies as version 5', async () => {
		const result = await approvedRun();
		const [row] = await query<{ plan: any; chain_version: number }>(
			database().url,
			`SELECT plan, chain_version FROM ${RUNS} WHERE run_id = $1`,
			[result.audit.run_id],
		);
		expect(row.chain_version).toBe(5);
		expect(row.plan.approval).toEqual({ at: result.plan!.approval!.at, by: 'ann@shop' });
		expect(Number.isNaN(Date.parse(row.plan.approval.at))).toBe(false);
		expect(row.plan.steps.map(({ tool, status }: any) => [tool, status])).toEqual([
			['find_order', 'done'],
			['refund', 'done'],
		]);
		expect(row.plan.steps[1].args).toEqual({ order_id: { $step: 1, pointer: '/order/id' } });
		expect(verifyRecord(await read(result.audit.run_id), result.audit.record_digest)).toMatchObject(
			{
				ok: true,
				chain_version: 5,
				digest_covers: 'record',
			},
		);
	});

	it.each([
		['who approved it', `jsonb_set(plan, '{approval,by}', '"mallory"')`],
		['when it was approved', `jsonb_set(plan, '{approval,at}', '"2020-01-01T00:00:00.000Z"')`],
		['the approval removed', `plan - 'approval'`],
		["a step's status", `jsonb_set(plan, '{steps,1,status}', '"failed"')`],
		["a step's args", `jsonb_set(plan, '{steps,0,args}', '{"customer": "bob"}')`],
		['the plan removed', 'NULL'],
	])('the stored plan edited after the run (%s) fails verify naming plan', async (_, change) => {
		const result = await approvedRun();
		await query(database().url, `UPDATE ${RUNS} SET plan = ${change}`);
		const report = verifyRecord(await read(result.audit.run_id));
		expect([report.ok, report.first_mismatch?.part]).toEqual([false, 'plan']);
	});

	it('a plan added to a row of a run without one is refused: no hash of its version could cover it', async () => {
		const result = await approvedRun();
		await query(database().url, `UPDATE ${RUNS} SET chain_version = 4`);
		expect(verifyRecord(await read(result.audit.run_id)).first_mismatch?.part).toBe(
			'chain_version',
		);
		await query(
			database().url,
			`UPDATE ${RUNS} SET chain_version = 4, plan = NULL, record_hashes = record_hashes - 'plan'`,
		);
		await query(database().url, `UPDATE ${RUNS} SET plan = '{"steps": []}'::jsonb`);
		expect(verifyRecord(await read(result.audit.run_id)).first_mismatch).toEqual({
			part: 'plan',
			detail: expect.stringContaining('a row of chain version 4 cannot hold a plan'),
		});
	});

	it.each([
		[
			"a step's call changed",
			(record: AuditRecord) => (record.steps[1].step.action!.args = { customer: 'bob' }),
			'step 2 ran find_order {"customer":"bob"} as plan step 1, which the recorded plan does not contain (step 1: find_order {"customer":"ann"})',
		],
		[
			'a step added that the plan does not have',
			(record: AuditRecord) =>
				record.steps.splice(3, 0, {
					step: { ...record.steps[2].step, step: 4, plan_steps: [3] } as TraceStep,
					link: '',
				}),
			'step 4 ran plan step 3, which the recorded plan (steps 1 to 2) does not contain',
		],
		[
			'the plan changed after the run',
			(record: AuditRecord) => (record.plan!.steps[0].args = { customer: 'bob' }),
			'step 2 ran find_order {"customer":"ann"} as plan step 1, which the recorded plan does not contain (step 1: find_order {"customer":"bob"})',
		],
		[
			'the approval removed from a run that asked for one',
			(record: AuditRecord) => delete record.plan!.approval,
			"step 2 ran steps of a plan no person approved, and the run's config asks for approval (approve_plan)",
		],
	])(
		'%s, every hash rewritten to agree, fails verify naming the trace step',
		async (_, change, why) => {
			const result = await approvedRun();
			await storeForged(await read(result.audit.run_id), change);
			const stored = await read(result.audit.run_id);
			for (const report of [verifyRecord(stored), verifyRecord(stored, result.audit.record_digest)])
				expect(report).toMatchObject({
					ok: false,
					first_mismatch: {
						part: why.match(/^step \d+/)![0],
						detail: `${why}: the trace or the plan was changed after the run`,
					},
				});
		},
	);

	it("a plan a person edited verifies against the plan as they edited it, the model's plan kept in the trace", async () => {
		const edited = planSteps(['find_order', { customer: 'bob' }]);
		const result = await approvedRun({ edit: { steps: edited }, by: 'lead@shop' });
		const record = await read(result.audit.run_id);
		expect(record.plan).toMatchObject({ approval: { by: 'lead@shop', edited: true } });
		expect(record.steps[0].step.plan).toHaveLength(2);
		expect(record.steps[1].step.action).toEqual({ tool: 'find_order', args: { customer: 'bob' } });
		expect(verifyRecord(record, result.audit.record_digest)).toMatchObject({ ok: true });
	});
});
