import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { counterfactualReplay, counterfactualTotals } from '../../src/replay';
import { runAgent } from '../../src/agent/run-agent';
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import { createChatModel } from '../../src/providers/create-model';
import type { ScriptedReply, ScriptedRequest } from '../../src/demo/scripted-server';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	PRIVATE_ALLOWED,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';
import { postgresEnvironment, useTestDatabase } from '../support/postgres';

const PRICE = { input_per_million: 1, output_per_million: 2 };
const CONFIG = {
	model: 'm',
	allowed_tools: ['http_request', 'json_transform'],
	tool_settings: { http_request: { ...PRIVATE_ALLOWED, allowed_domains: ['127.0.0.2'] } },
	prices: { m: PRICE, fb: PRICE, cand: PRICE },
};

/** The model's turn number in this run (1 for its first call): the assistant turns it has seen, plus one. */
const turnOf = (request: ScriptedRequest) =>
	request.messages.filter((message) => message.role === 'assistant').length + 1;
const questionOf = (request: ScriptedRequest) =>
	request.messages.find((message) => message.role === 'user')?.content ?? '';

/**
 * Issue #33: audited runs (several tools, a repair turn, a failover to the fallback) asked again of a
 * scripted candidate that diverges at known steps. Every recorded call is answered from the record, new
 * calls with side effects are refused, and the shop's order endpoint is never reached by a replay.
 */
describe('counterfactual replay of audited runs', () => {
	useLoopbackGuard();
	const server = useScriptedServer();
	const database = useTestDatabase();
	let shop: TestServer;
	const posts = () => shop.requests.filter((request) => request.method === 'POST').length;
	const gets = () => shop.requests.filter((request) => request.method === 'GET').length;
	beforeEach(async () => {
		shop = await startServer(
			(request, response) =>
				response.end(
					request.method === 'POST'
						? 'order 17 placed'
						: request.url === '/stock'
							? '{"stock":3}'
							: 'open 9-17',
				),
			'127.0.0.2',
		);
	});
	afterEach(() => closeAuditSinks());

	const stock = () => action('http_request', { method: 'GET', url: `${shop.url}/stock` });
	const hours = () => action('http_request', { method: 'GET', url: `${shop.url}/hours` });
	const order = (quantity: number) =>
		action('http_request', {
			method: 'POST',
			url: `${shop.url}/orders`,
			body: JSON.stringify({ item: 'tea', quantity }),
		});

	/** The recorded behaviour, per question and turn; `m` fails from its second turn of the failover run on. */
	function original(request: ScriptedRequest): ScriptedReply {
		const turn = turnOf(request);
		switch (questionOf(request)) {
			case 'order tea':
				return [
					stock(),
					action('json_transform', { data: { stock: 3 }, expression: 'stock' }),
					order(1),
					final('ordered 1 tea'),
				][turn - 1];
			case 'is tea in stock':
				return ['I think so', stock(), final('yes, 3 in stock')][turn - 1];
			default:
				if (request.model === 'm' && turn === 2)
					return { status: 500, errorMessage: 'primary down' };
				return [stock(), final('3 teas')][turn - 1];
		}
	}

	/** The candidate: diverges at step 2 of the order (a new order of 2), at step 1 of the repair run (no broken reply, then a new read), and not at all in the failover run. */
	function candidate(request: ScriptedRequest): ScriptedReply {
		const turn = turnOf(request);
		switch (questionOf(request)) {
			case 'order tea':
				return [stock(), order(2), order(1), final('ordered 1 tea')][turn - 1];
			case 'is tea in stock':
				return [stock(), hours(), final('yes, 3 in stock')][turn - 1];
			default:
				return [stock(), final('3 teas')][turn - 1];
		}
	}

	async function recordRuns(): Promise<Record<string, string>> {
		server().setScript(original);
		const ids: Record<string, string> = {};
		for (const prompt of ['order tea', 'is tea in stock', 'count the teas']) {
			const result = await runAgent({
				model: modelFor(server()),
				fallbackModel: createChatModel({
					provider: 'openai',
					apiKey: 'k',
					baseUrl: server().openaiBaseUrl,
					model: 'fb',
					maxRetries: 0,
				}),
				config: CONFIG,
				prompt,
				audit: { postgres: database().url, origin: { workflow_id: 'wf-shop' } },
			});
			expect(result.audit?.stored).toBe(true);
			ids[prompt] = result.audit!.run_id;
		}
		return ids;
	}

	const read = async (id: string) => (await auditSinkFor(database().url).read(id))!;
	const candidateModel = () => modelFor(server());

	it('names each divergence, answers every recorded call from the record and runs nothing with side effects', async () => {
		const ids = await recordRuns();
		const repaired = await read(ids['is tea in stock']);
		expect(repaired.steps[0].step.error?.type).toBe('parse_error');
		const failedOver = await read(ids['count the teas']);
		expect(failedOver.model).toBe('fb');
		expect([posts(), gets()]).toEqual([1, 3]);

		server().setScript(candidate);
		const reports = [];
		for (const id of Object.values(ids))
			reports.push(
				await counterfactualReplay(await read(id), { model: candidateModel(), modelName: 'cand' }),
			);
		const [ordered, repair, failover] = reports;

		expect(ordered).toMatchObject({
			same_answer: true,
			same_actions: false,
			first_divergence: {
				step: 2,
				recorded: `json_transform {"data":{"stock":3},"expression":"stock"}`,
				candidate: expect.stringContaining('"quantity\\":2'),
			},
			answered_from_record: 2,
			refused_calls: [
				{ step: 2, tool: 'http_request', reason: 'it has side effects and is not in the record' },
			],
			recorded: {
				model: 'm',
				finish_reason: 'final',
				behaviour: 'answered',
				steps: 4,
				tool_calls: 3,
			},
			candidate: {
				model: 'cand',
				finish_reason: 'final',
				behaviour: 'answered',
				steps: 4,
				tool_calls: 3,
			},
		});
		expect(ordered.candidate.cost).toEqual(expect.any(Number));
		expect(ordered.recorded.cost).toEqual(expect.any(Number));
		expect(repair).toMatchObject({
			same_answer: true,
			same_actions: false,
			first_divergence: {
				step: 1,
				recorded: expect.stringMatching(/^parse_error: /),
				candidate: `http_request {"method":"GET","url":"${shop.url}/stock"}`,
			},
			refused_calls: [
				{
					step: 2,
					tool: 'http_request',
					args: { method: 'GET', url: `${shop.url}/hours` },
					reason: expect.stringContaining('--run-read-only'),
				},
			],
		});
		expect(failover).toMatchObject({
			same_answer: true,
			same_actions: true,
			first_divergence: null,
			recorded: { model: 'fb' },
			candidate: { model: 'cand' },
			answered_from_record: 1,
			refused_calls: [],
		});

		const totals = counterfactualTotals(reports);
		expect(totals).toMatchObject({
			runs: 3,
			same_answer: 3,
			same_actions: 1,
			differing: [ids['order tea'], ids['is tea in stock']],
			refused_calls: 2,
			ran_read_only: 0,
		});
		expect(totals.candidate.tokens).toBeGreaterThan(0);
		// Not one request reached the shop during the replays.
		expect([posts(), gets()]).toEqual([1, 3]);
	});

	it('runs a read-only call the record lacks only with runReadOnly, and still never one with side effects', async () => {
		const ids = await recordRuns();
		server().setScript(candidate);
		const repair = await counterfactualReplay(await read(ids['is tea in stock']), {
			model: candidateModel(),
			modelName: 'cand',
			runReadOnly: true,
		});
		expect(repair).toMatchObject({
			refused_calls: [],
			ran_read_only: [
				{ step: 2, tool: 'http_request', args: { method: 'GET', url: `${shop.url}/hours` } },
			],
		});
		expect(shop.requests.slice(-1)[0]).toMatchObject({ method: 'GET', url: '/hours' });

		const ordered = await counterfactualReplay(await read(ids['order tea']), {
			model: candidateModel(),
			modelName: 'cand',
			runReadOnly: true,
		});
		expect(ordered.refused_calls).toHaveLength(1);
		expect(posts()).toBe(1);
	});

	it('checks the tool settings a read-only call would run with, as a run checks them, before the candidate is asked', async () => {
		const ids = await recordRuns();
		server().setScript(candidate);
		server().requests.length = 0;
		const config = {
			...CONFIG,
			tool_settings: {
				http_request: { ...CONFIG.tool_settings.http_request, allowed_methods: ['TRACE'] },
			},
		};
		await expect(
			counterfactualReplay(await read(ids['is tea in stock']), {
				model: candidateModel(),
				modelName: 'cand',
				runReadOnly: true,
				config,
			}),
		).rejects.toMatchObject({
			name: 'ConfigError',
			key: expect.stringMatching(/^tool_settings\.http_request/),
		});
		expect(server().requests).toHaveLength(0);
	});

	it('a candidate that breaks the protocol twice, loops or refuses shows as such', async () => {
		const ids = await recordRuns();
		server().setScript('this is not the protocol');
		const broken = await counterfactualReplay(await read(ids['order tea']), {
			model: candidateModel(),
			modelName: 'cand',
		});
		expect(broken).toMatchObject({
			same_answer: false,
			same_actions: false,
			candidate: { finish_reason: 'parse_error', behaviour: 'broke_protocol', steps: 2 },
			first_divergence: { step: 1, candidate: expect.stringMatching(/^parse_error: /) },
		});

		server().setScript(() => stock());
		const looped = await counterfactualReplay(await read(ids['order tea']), {
			model: candidateModel(),
			modelName: 'cand',
		});
		expect(looped).toMatchObject({
			same_answer: false,
			candidate: { finish_reason: 'loop', behaviour: 'looped' },
			first_divergence: { step: 2 },
		});

		server().setScript({ text: '', refusal: 'I cannot place orders' });
		const refused = await counterfactualReplay(await read(ids['order tea']), {
			model: candidateModel(),
			modelName: 'cand',
		});
		expect(refused).toMatchObject({
			same_answer: false,
			candidate: { finish_reason: 'content_filter', behaviour: 'refused', steps: 1 },
			first_divergence: { step: 1, candidate: expect.stringContaining('I cannot place orders') },
		});
		expect([posts(), gets()]).toEqual([1, 3]);
	});

	describe('agent-core audit replay with a candidate', () => {
		let folder: string;
		beforeAll(() => {
			folder = mkdtempSync(join(tmpdir(), 'agent-core-counterfactual-'));
		});
		afterAll(() => rmSync(folder, { recursive: true, force: true }));
		const cli = (args: string[]) =>
			runCli(['audit', 'replay', '--postgres', database().url, ...args], postgresEnvironment());
		const provider = () => ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];

		it('--since --workflow replays every selected run, names the divergences and exits 3; an unchanged candidate exits 0', async () => {
			const ids = await recordRuns();
			server().setScript(candidate);
			const replayed = await cli([
				'--since',
				'2000-01-01',
				'--workflow',
				'wf-shop',
				'--model',
				'cand',
				...provider(),
			]);
			expect(replayed).toMatchObject({ code: 3, stderr: '' });
			const report = JSON.parse(replayed.stdout);
			expect(report.runs.map((run: { run_id: string }) => run.run_id)).toEqual(Object.values(ids));
			expect(
				report.runs.map(
					(run: { first_divergence: { step: number } | null }) =>
						run.first_divergence?.step ?? null,
				),
			).toEqual([2, 1, null]);
			expect(report.total).toMatchObject({
				runs: 3,
				same_answer: 3,
				same_actions: 1,
				refused_calls: 2,
				unreplayable: [],
			});
			expect(report.candidate).toEqual({ model: 'cand', provider: 'openai' });
			expect([posts(), gets()]).toEqual([1, 3]);

			const same = await cli(['--run', ids['count the teas'], '--model', 'cand', ...provider()]);
			expect(same.code).toBe(0);
			expect(JSON.parse(same.stdout).runs[0]).toMatchObject({
				same_answer: true,
				same_actions: true,
				first_divergence: null,
			});

			const none = await cli([
				'--since',
				'2000-01-01',
				'--workflow',
				'another',
				'--model',
				'cand',
				...provider(),
			]);
			expect(none.code).toBe(0);
			expect(JSON.parse(none.stdout).total).toMatchObject({ runs: 0 });
		});

		it('without a candidate, --since replays each selected run offline, asking no model', async () => {
			const ids = await recordRuns();
			const requests = server().requests.length;
			const replayed = await cli(['--since', '2000-01-01', '--limit', '2']);
			expect(replayed).toMatchObject({ code: 0, stderr: '' });
			const report = JSON.parse(replayed.stdout);
			expect(
				report.runs.map((run: { run_id: string; same: boolean }) => [run.run_id, run.same]),
			).toEqual([
				[ids['order tea'], true],
				[ids['is tea in stock'], true],
			]);
			expect(report.total).toEqual({ runs: 2, same: 2, differing: [] });
			expect(server().requests.length).toBe(requests);
			expect([posts(), gets()]).toEqual([1, 3]);
		});

		it('--with-config gives the candidate its config; --run-read-only lets the new read run', async () => {
			const ids = await recordRuns();
			server().setScript(candidate);
			const file = join(folder, 'candidate.json');
			writeFileSync(file, JSON.stringify({ ...CONFIG, model: 'cand', max_steps: 2 }));
			const replayed = await cli([
				'--run',
				ids['is tea in stock'],
				'--with-config',
				file,
				'--run-read-only',
				...provider(),
			]);
			expect(replayed.code).toBe(3);
			const [run] = JSON.parse(replayed.stdout).runs;
			expect(run).toMatchObject({
				candidate: { model: 'cand', finish_reason: 'max_steps', behaviour: 'stopped', steps: 2 },
				ran_read_only: [{ step: 2 }],
				refused_calls: [],
			});
			expect(shop.requests.slice(-1)[0]).toMatchObject({ method: 'GET', url: '/hours' });
		});

		it.each([
			[
				['--run', 'x', '--since', '2026-01-01'],
				'audit replay needs --postgres URL and either --run ID or --since DATE',
			],
			[
				['--run', 'x', '--limit', '2'],
				'--limit needs --since DATE: it narrows the runs --since selects',
			],
			[
				['--run', 'x', '--run-read-only'],
				'--run-read-only needs a candidate (--model, --with-config or a provider flag): a plain replay runs no tool',
			],
			[
				['--since', 'yesterday', '--model', 'c', '--api-key', 'k'],
				'--since must be a date or time (ISO 8601, e.g. 2026-11-01 or 2026-11-01T09:00:00Z), not "yesterday"',
			],
		])('a bad command line %j exits 2 naming the flag', async (args, message) => {
			const finished = await cli(args);
			expect(finished.code).toBe(2);
			expect(finished.stderr.split('\n')[0]).toBe(`agent-core: ${message}`);
		});
	});
});
