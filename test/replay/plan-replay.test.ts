// Issue #51: replay, counterfactual replay and fork of planned runs. A plan's steps ran without a model turn: each
// step's call is answered from the record in the turn that sent the plan, and the answer's turn follows.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import { counterfactualReplay } from '../../src/replay/counterfactual';
import { forkAuditedRun } from '../../src/replay/fork';
import { replayRecord } from '../../src/replay/replay';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { postgresEnvironment, useTestDatabase } from '../support/postgres';
import { REFUND_PLAN, auditedPlannedRun, planSteps, shopTools } from '../audit/planned-run';

const PLAN_TEXT =
	'a plan of 2 steps [find_order {"customer":"ann"}; refund {"order_id":{"$step":1,"pointer":"/order/id"}}]';

describe('replay of planned runs', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	const read = async (runId: string) => (await auditSinkFor(database().url).read(runId))!;
	const stored = async (options: Parameters<typeof auditedPlannedRun>[2] = {}) =>
		read((await auditedPlannedRun(server(), database().url, options)).audit.run_id);

	it.each([
		['run straight through', {}],
		['approved by a person', { approve: { approve: true, by: 'ann@shop' } }],
		[
			'whose plan a person edited',
			{ approve: { edit: { steps: planSteps(['find_order', { customer: 'bob' }]) } } },
		],
	])('audit replay of a planned run %s reproduces it from the record', async (_, options) => {
		const record = await stored(options);
		const report = await replayRecord(record);
		expect(report.differences).toEqual([]);
		expect(report).toMatchObject({
			same: true,
			replayed: {
				finish_reason: 'final',
				final_answer: 'Refunded o-ann.',
				steps: record.steps.length,
			},
			answered_from_record: {
				model_turns: 2,
				tool_calls: record.steps.filter((entry) => entry.step.plan_steps).length,
			},
		});
	});

	it("a step's recorded observation changed: the next step's call, resolved from it, is named as a difference", async () => {
		const record = await stored();
		record.steps[1].step.observation = '{"order":{"id":"o-forged"}}';
		const report = await replayRecord(record, { unverified: true });
		expect(report.same).toBe(false);
		expect(report.differences).toContain(
			'step 3: recorded action {"args":{"order_id":"o-ann"},"tool":"refund"}, replayed {"tool":"refund","args":{"order_id":"o-forged"}}',
		);
	});

	it('a candidate in step-by-step mode diverges at the planning step, which names the plan', async () => {
		const record = await stored();
		server().setScript([action('find_order', { customer: 'ann' }), final('Found it.')]);
		const report = await counterfactualReplay(record, {
			model: modelFor(server()),
			config: { ...record.config, mode: 'react' },
		});
		expect(report.first_divergence).toEqual({
			step: 1,
			recorded: PLAN_TEXT,
			candidate: 'find_order {"customer":"ann"}',
		});
		expect(report.answered_from_record).toBe(1);
	});

	it('a candidate sending the same plan has each step answered from the record: same actions, nothing refused', async () => {
		const record = await stored({ approve: { approve: true } });
		server().setScript([REFUND_PLAN, final('Refunded o-ann.')]);
		const report = await counterfactualReplay(record, { model: modelFor(server()) });
		expect(report).toMatchObject({
			same_answer: true,
			same_actions: true,
			first_divergence: null,
			answered_from_record: 2,
			refused_calls: [],
		});
	});

	it("a fork from a plan's first step takes it from the record and runs the rest of the plan live", async () => {
		const record = await stored();
		const { tools, arrived } = shopTools();
		server().setScript([final('Refunded again.')]);
		const asked = server().requests.length;
		const forked = await forkAuditedRun({ record, step: 2, model: modelFor(server()), tools });
		expect(forked).toMatchObject({ finish_reason: 'final', final_answer: 'Refunded again.' });
		expect(arrived).toEqual([{ tool: 'refund', args: { order_id: 'o-ann' } }]);
		// One model call: the answer; the plan came from the record.
		expect(server().requests).toHaveLength(asked + 1);
	});

	it('a fork of a run whose config asks for approval of the plan is refused, naming config', async () => {
		const record = await stored({ approve: { approve: true } });
		await expect(
			forkAuditedRun({ record, step: 2, model: modelFor(server()) }),
		).rejects.toMatchObject({ name: 'ForkError', field: 'config' });
	});

	describe('through the CLI', () => {
		let folder: string;
		beforeAll(() => {
			folder = mkdtempSync(join(tmpdir(), 'agent-core-plan-replay-'));
		});
		afterAll(() => rmSync(folder, { recursive: true, force: true }));
		const cli = (args: string[]) =>
			runCli(['audit', 'replay', '--postgres', database().url, ...args], postgresEnvironment());

		it('replays a planned run offline (exit 0), and a candidate config in step-by-step mode diverges at the plan (exit 3)', async () => {
			const record = await stored();
			const offline = await cli(['--run', record.run_id]);
			expect(offline).toMatchObject({ code: 0, stderr: '' });
			expect(JSON.parse(offline.stdout)).toMatchObject({ same: true });

			const config = join(folder, 'react.json');
			writeFileSync(config, JSON.stringify({ ...record.config, mode: 'react' }));
			server().setScript([action('find_order', { customer: 'ann' }), final('Found it.')]);
			const candidate = await cli([
				'--run',
				record.run_id,
				'--with-config',
				config,
				'--base-url',
				server().openaiBaseUrl,
				'--api-key',
				'k',
			]);
			expect(candidate).toMatchObject({ code: 3, stderr: '' });
			expect(JSON.parse(candidate.stdout).runs[0].first_divergence).toMatchObject({
				step: 1,
				recorded: PLAN_TEXT,
			});
		});
	});
});
