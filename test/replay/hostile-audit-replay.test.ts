import { counterfactualReplay } from '../../src/replay/counterfactual';
import { forkAuditedRun } from '../../src/replay/fork';
import { sideEffectsRule } from '../../src/replay/recorded-tools';
import { replayRecord } from '../../src/replay/replay';
import { runAgent } from '../../src/agent/run-agent';
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import { sealRecord } from '../../src/audit/record-chain';
import { readObservation } from '../../src/agent/protocol/prompt';
import { httpRequestTool } from '../../src/tools/http-request';
import type { ScriptedRequest } from '../../src/demo/scripted-server';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	PRIVATE_ALLOWED,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';
import { postgresEnvironment, query, useTestDatabase } from '../support/postgres';

const RUNS = 'agent_core_audit_runs';
const STEPS = 'agent_core_audit_steps';
const CONFIG = {
	model: 'm',
	allowed_tools: ['http_request'],
	tool_settings: { http_request: { ...PRIVATE_ALLOWED, allowed_domains: ['127.0.0.2'] } },
};
/** The stored `tools` column with http_request marked as having no side effects, as a hostile operator would write it. */
const SIDE_EFFECT_FREE = `tools = (SELECT jsonb_agg(CASE WHEN tool->>'name' = 'http_request'
  THEN jsonb_set(tool, '{side_effects}', 'false') ELSE tool END) FROM jsonb_array_elements(tools) tool)`;

/**
 * Issue #38: replay and fork trust nothing they read. Every row they use is verified first (the check of
 * `audit verify`), a row that does not verify is refused before any model is asked or tool runs unless
 * `--unverified` is given, and whether a call has side effects is judged by the real tool's rule, whatever the row says.
 */
describe('replay and fork of a tampered audit row', () => {
	useLoopbackGuard();
	const server = useScriptedServer();
	const database = useTestDatabase();
	let shop: TestServer;
	const posts = () => shop.requests.filter((request) => request.method === 'POST').length;
	beforeEach(async () => {
		shop = await startServer(
			(request, response) =>
				response.end(request.method === 'POST' ? 'order placed' : '{"stock":3}'),
			'127.0.0.2',
		);
	});
	afterEach(() => closeAuditSinks());

	const stock = () => action('http_request', { method: 'GET', url: `${shop.url}/stock` });
	const order = () =>
		action('http_request', { method: 'POST', url: `${shop.url}/orders`, body: '{"quantity":5}' });
	/** The candidate: a new POST the record does not have, then an answer. */
	const orderingCandidate = (request: ScriptedRequest) =>
		request.messages.some((message) => message.role === 'assistant') ? final('ordered') : order();
	const read = async (id: string) => (await auditSinkFor(database().url).read(id))!;
	const rows = async () =>
		Number(
			(await query<{ count: string }>(database().url, `SELECT count(*) FROM ${RUNS}`))[0].count,
		);
	const cli = (args: string[]) =>
		runCli(['audit', ...args, '--postgres', database().url], postgresEnvironment());
	const candidateFlags = () => [
		'--model',
		'cand',
		'--base-url',
		server().openaiBaseUrl,
		'--api-key',
		'k',
	];

	/** An audited run that read the stock and answered; its run id. Nothing reached the model or the shop after this. */
	async function recorded(prompt = 'is tea in stock'): Promise<string> {
		server().setScript([stock(), final('3 in stock')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: CONFIG,
			prompt,
			audit: { postgres: database().url },
		});
		expect(result.audit?.stored).toBe(true);
		server().setScript(orderingCandidate);
		server().requests.length = 0;
		shop.requests.length = 0;
		return result.audit!.run_id;
	}

	describe('the tools column edited to say http_request has no side effects', () => {
		it('audit replay --run-read-only refuses the row (exit 3, part named) before the candidate is asked; the shop is untouched', async () => {
			const runId = await recorded();
			await query(database().url, `UPDATE ${RUNS} SET ${SIDE_EFFECT_FREE}`);
			const finished = await cli([
				'replay',
				'--run',
				runId,
				'--run-read-only',
				...candidateFlags(),
			]);
			expect(finished.code).toBe(3);
			expect(finished.stderr).toContain(
				`audit replay: run ${runId} (tools) does not verify, so nothing was replayed`,
			);
			expect(JSON.parse(finished.stdout)).toMatchObject({
				refused: '1 of 1 selected run does not verify: nothing was replayed',
				runs: [{ run_id: runId, verified: false, first_mismatch: { part: 'tools' } }],
			});
			expect(server().requests).toHaveLength(0);
			expect(shop.requests).toHaveLength(0);
		});

		it('with --unverified the replay runs, marked unverified, and the POST is still refused by the real rule', async () => {
			const runId = await recorded();
			await query(database().url, `UPDATE ${RUNS} SET ${SIDE_EFFECT_FREE}`);
			const finished = await cli([
				'replay',
				'--run',
				runId,
				'--run-read-only',
				'--unverified',
				...candidateFlags(),
			]);
			expect(finished).toMatchObject({ code: 3, stderr: '' });
			const [run] = JSON.parse(finished.stdout).runs;
			expect(run).toMatchObject({
				run_id: runId,
				unverified: { part: 'tools' },
				ran_read_only: [],
				refused_calls: [
					{
						tool: 'http_request',
						args: { method: 'POST' },
						reason: 'it has side effects and is not in the record',
					},
				],
			});
			expect(server().requests.length).toBeGreaterThan(0);
			expect(posts()).toBe(0);
		});

		it('through the library: refused with UnverifiedRecordError by default; with unverified the POST is still refused', async () => {
			const runId = await recorded();
			await query(database().url, `UPDATE ${RUNS} SET ${SIDE_EFFECT_FREE}`);
			const record = await read(runId);
			const refusal = {
				name: 'UnverifiedRecordError',
				field: 'unverified',
				runId,
				mismatch: { part: 'tools' },
				fix: expect.stringContaining('unverified'),
			};
			await expect(replayRecord(record)).rejects.toMatchObject(refusal);
			await expect(
				counterfactualReplay(record, { model: modelFor(server()), runReadOnly: true }),
			).rejects.toMatchObject(refusal);
			await expect(
				forkAuditedRun({ record, step: 1, model: modelFor(server()), config: CONFIG }),
			).rejects.toMatchObject(refusal);
			expect(server().requests).toHaveLength(0);

			expect(await replayRecord(record, { unverified: true })).toMatchObject({
				same: true,
				unverified: { part: 'tools' },
			});
			const report = await counterfactualReplay(record, {
				model: modelFor(server()),
				runReadOnly: true,
				unverified: true,
			});
			expect(report).toMatchObject({
				unverified: { part: 'tools' },
				ran_read_only: [],
				refused_calls: [{ args: { method: 'POST' } }],
			});
			expect(shop.requests).toHaveLength(0);
		});

		it('resealed with every hash rewritten, the row verifies without a digest, and the real rule still refuses the POST', async () => {
			const runId = await recorded();
			await query(database().url, `UPDATE ${RUNS} SET ${SIDE_EFFECT_FREE}`);
			const forged = sealRecord(await read(runId));
			await query(database().url, `UPDATE ${RUNS} SET record_hashes = $1, record_digest = $2`, [
				JSON.stringify(forged.record_hashes),
				forged.record_digest,
			]);
			const report = await counterfactualReplay(await read(runId), {
				model: modelFor(server()),
				runReadOnly: true,
			});
			expect(report.unverified).toBeUndefined();
			expect(report.refused_calls).toMatchObject([
				{ args: { method: 'POST' }, reason: 'it has side effects and is not in the record' },
			]);
			expect(posts()).toBe(0);
		});

		it('the tools hash rewritten with it is caught at the record digest', async () => {
			const runId = await recorded();
			await query(database().url, `UPDATE ${RUNS} SET ${SIDE_EFFECT_FREE}`);
			const forged = sealRecord(await read(runId));
			await query(
				database().url,
				`UPDATE ${RUNS} SET record_hashes = jsonb_set(record_hashes, '{tools}', to_jsonb($1::text))`,
				[forged.record_hashes!.tools],
			);
			await expect(replayRecord(await read(runId))).rejects.toMatchObject({
				mismatch: { part: 'record_digest' },
			});
		});
	});

	it('--since with one tampered row refuses them all, naming only the bad one, and replays none', async () => {
		const good = await recorded('is tea in stock');
		const bad = await recorded('is coffee in stock');
		await query(database().url, `UPDATE ${RUNS} SET ${SIDE_EFFECT_FREE} WHERE run_id = $1`, [bad]);
		const finished = await cli(['replay', '--since', '2000-01-01', ...candidateFlags()]);
		expect(finished.code).toBe(3);
		const report = JSON.parse(finished.stdout);
		expect(report).toMatchObject({
			refused: '1 of 2 selected runs does not verify: nothing was replayed',
			runs: [{ run_id: bad, first_mismatch: { part: 'tools' } }],
		});
		expect(report.runs).toHaveLength(1);
		expect(server().requests).toHaveLength(0);

		const anyway = await cli([
			'replay',
			'--since',
			'2000-01-01',
			'--unverified',
			...candidateFlags(),
		]);
		const runs = JSON.parse(anyway.stdout).runs as {
			run_id: string;
			unverified?: { part: string };
		}[];
		expect(runs.map((run) => [run.run_id, run.unverified?.part ?? null])).toEqual([
			[good, null],
			[bad, 'tools'],
		]);
		expect(posts()).toBe(0);
	});

	it.each([
		['a step row deleted', 'steps', `DELETE FROM ${STEPS} WHERE position = 0`],
		[
			'a step observation rewritten',
			'step 1',
			`UPDATE ${STEPS} SET observation = '{"stock":0}' WHERE step = 1`,
		],
	])(
		'an offline audit replay of a row with %s is refused, exit 3 naming %s',
		async (_, part, change) => {
			const runId = await recorded();
			await query(database().url, change);
			const finished = await cli(['replay', '--run', runId]);
			expect(finished.code).toBe(3);
			expect(JSON.parse(finished.stdout).runs).toMatchObject([
				{ run_id: runId, first_mismatch: { part } },
			]);
		},
	);

	it('two runs’ step rows swapped: each is refused naming its trace_digest', async () => {
		const [first, second] = [
			await recorded('is tea in stock'),
			await recorded('is coffee in stock'),
		];
		await query(
			database().url,
			`UPDATE ${STEPS} SET run_id = CASE WHEN run_id = $1 THEN $2 ELSE $1 END, position = position + 100`,
			[first, second],
		);
		await query(database().url, `UPDATE ${STEPS} SET position = position - 100`);
		const finished = await cli(['replay', '--since', '2000-01-01']);
		expect(finished.code).toBe(3);
		const parts = JSON.parse(finished.stdout).runs.map(
			(run: { first_mismatch: { part: string } }) => run.first_mismatch.part,
		);
		expect(parts).toEqual(['trace_digest', 'trace_digest']);
	});

	it('judges side effects by the real tool: a recorded "none" is ignored, a recorded "has" stays, no real tool runs nothing', () => {
		const judge = (rule: ReturnType<typeof sideEffectsRule>, method: string) =>
			typeof rule === 'function' ? rule({ method, url: 'http://x' }) : rule;
		expect(judge(sideEffectsRule(false, httpRequestTool), 'POST')).toBe(true);
		expect(judge(sideEffectsRule(false, httpRequestTool), 'GET')).toBe(false);
		expect(judge(sideEffectsRule('by_args', httpRequestTool), 'DELETE')).toBe(true);
		expect(judge(sideEffectsRule(true, httpRequestTool), 'GET')).toBe(true);
		expect([
			sideEffectsRule(undefined, undefined),
			sideEffectsRule('by_args', undefined),
			sideEffectsRule(false, undefined),
		]).toEqual([true, true, false]);
	});

	it('a malformed row is refused even with --unverified: fork exits 3 naming the part, nothing asked or written', async () => {
		const runId = await recorded();
		await query(database().url, `UPDATE ${RUNS} SET tools = '{}'::jsonb`);
		const finished = await cli([
			'fork',
			'--run',
			runId,
			'--step',
			'1',
			'--unverified',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
		]);
		expect(finished.code).toBe(3);
		expect(finished.stderr).toContain('not even with --unverified');
		expect(JSON.parse(finished.stdout).runs).toMatchObject([
			{ run_id: runId, first_mismatch: { part: 'tools' } },
		]);
		expect(server().requests).toHaveLength(0);
		expect(await rows()).toBe(1);
	});

	it('--unverified belongs to replay and fork: audit verify refuses it (exit 2)', async () => {
		const finished = await cli(['verify', '--run', 'x', '--unverified']);
		expect(finished).toMatchObject({
			code: 2,
			stderr: 'agent-core: --unverified belongs to audit replay and audit fork\n',
		});
	});

	describe('audit fork of a row whose step observation was rewritten', () => {
		const fork = (runId: string, extra: string[] = []) =>
			cli([
				'fork',
				'--run',
				runId,
				'--step',
				'1',
				...extra,
				'--base-url',
				server().openaiBaseUrl,
				'--api-key',
				'k',
			]);
		const tamper = () =>
			query(
				database().url,
				`UPDATE ${STEPS} SET observation = 'HTTP 200 OK\n{"stock":0}' WHERE step = 1`,
			);

		it('exits 3 naming the step: no model request, no new row', async () => {
			const runId = await recorded();
			await tamper();
			const finished = await fork(runId);
			expect(finished.code).toBe(3);
			expect(finished.stderr).toContain(
				`audit fork: run ${runId} (step 1) does not verify, so nothing was forked`,
			);
			expect(JSON.parse(finished.stdout).runs).toMatchObject([
				{ run_id: runId, first_mismatch: { part: 'step 1' } },
			]);
			expect(server().requests).toHaveLength(0);
			expect(await rows()).toBe(1);
		});

		it('with --unverified forks, its row says the origin did not verify; that row verifies, and removing the mark is caught', async () => {
			const runId = await recorded();
			await tamper();
			server().setScript(final('none left'));
			const finished = await fork(runId, ['--unverified']);
			expect(finished).toMatchObject({ code: 0, stderr: '' });
			const output = JSON.parse(finished.stdout);
			const mark = { run_id: runId, step: 1, verified: false, mismatch: 'step 1' };
			expect(output).toMatchObject({
				final_answer: 'none left',
				forked_from: mark,
				audit: { stored: true },
			});
			// The model saw the rewritten observation: --unverified uses the row as it stands, and the new row says so.
			const seen = server().requests.map((request) =>
				request.messages.flatMap((message) => readObservation(message.content)?.text ?? []),
			);
			expect(seen).toEqual([['HTTP 200 OK\n{"stock":0}']]);
			expect((await read(output.audit.run_id)).forked_from).toEqual(mark);

			const verified = await cli([
				'verify',
				'--run',
				output.audit.run_id,
				'--digest',
				output.audit.record_digest,
			]);
			expect(verified.code).toBe(0);
			await query(
				database().url,
				`UPDATE ${RUNS} SET forked_from = forked_from - 'verified' - 'mismatch' WHERE run_id = $1`,
				[output.audit.run_id],
			);
			const unmarked = await cli(['verify', '--run', output.audit.run_id]);
			expect(unmarked.code).toBe(3);
			expect(JSON.parse(unmarked.stdout).first_mismatch.part).toBe('forked_from');
		});

		it('a fork row whose forked_from was pointed at a run that does not exist is refused by replay and fork', async () => {
			const runId = await recorded();
			server().setScript(final('forked'));
			const audit = { postgres: database().url };
			const forked = await forkAuditedRun({
				record: await read(runId),
				step: 1,
				model: modelFor(server()),
				config: CONFIG,
				audit,
				unverified: true,
			});
			// The origin verified, so the fork carries no mark even with unverified.
			expect((await read(forked.audit!.run_id)).forked_from).toEqual({ run_id: runId, step: 1 });
			await query(
				database().url,
				`UPDATE ${RUNS} SET forked_from = '{"run_id": "no-such-run", "step": 1}' WHERE run_id = $1`,
				[forked.audit!.run_id],
			);
			server().requests.length = 0;
			expect(
				JSON.parse((await cli(['replay', '--run', forked.audit!.run_id])).stdout).runs,
			).toMatchObject([{ first_mismatch: { part: 'forked_from' } }]);
			expect((await fork(forked.audit!.run_id)).code).toBe(3);
			expect(server().requests).toHaveLength(0);
		});
	});
});
