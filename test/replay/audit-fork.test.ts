import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forkAuditedRun, ForkError } from '../../src/replay/fork';
import { runAgent } from '../../src/agent/run-agent';
import { auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import type { AuditRecord } from '../../src/audit/record';
import { recordDigest, recordHashes, sealRecord } from '../../src/audit/record-chain';
import { verifyRecord } from '../../src/audit/verify';
import type { ScriptedRequest } from '../../src/demo/scripted-server';
import { readObservation } from '../../src/agent/protocol/prompt';
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
const CONFIG = {
	model: 'm',
	allowed_tools: ['http_request', 'json_transform'],
	tool_settings: { http_request: { ...PRIVATE_ALLOWED, allowed_domains: ['127.0.0.2'] } },
};

/** The observations the model has seen in this request, oldest first. */
const observationsIn = (request: ScriptedRequest) =>
	request.messages
		.flatMap((message) => (message.role === 'user' ? [readObservation(message.content)?.text] : []))
		.filter((text) => text !== undefined);
const turnOf = (request: ScriptedRequest) =>
	request.messages.filter((message) => message.role === 'assistant').length + 1;

/**
 * Issue #33: a new run from step N of an audited run — the steps before taken from the record, step N's
 * observation optionally edited, then live — whose row names the original run and step, covered by the chain.
 */
describe('forking an audited run', () => {
	useLoopbackGuard();
	const server = useScriptedServer();
	const database = useTestDatabase();
	let shop: TestServer;
	const count = (method: string) =>
		shop.requests.filter((request) => request.method === method).length;
	beforeEach(async () => {
		shop = await startServer(
			(request, response) =>
				response.end(request.method === 'POST' ? 'order 17 placed' : '{"stock":3}'),
			'127.0.0.2',
		);
	});
	afterEach(() => closeAuditSinks());

	const stock = () => action('http_request', { method: 'GET', url: `${shop.url}/stock` });
	const order = (quantity: number) =>
		action('http_request', {
			method: 'POST',
			url: `${shop.url}/orders`,
			body: JSON.stringify({ quantity }),
		});
	const read = async (id: string) => (await auditSinkFor(database().url).read(id))!;

	/** The audited run: stock, a transform, an order of 1, the answer. */
	async function recorded(): Promise<AuditRecord> {
		server().setScript([
			stock(),
			action('json_transform', { data: { stock: 3 }, expression: 'stock' }),
			order(1),
			final('ordered 1'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: CONFIG,
			prompt: 'order tea',
			audit: { postgres: database().url },
		});
		expect([count('GET'), count('POST')]).toEqual([1, 1]);
		return read(result.audit!.run_id);
	}

	/** The live model after the fork: no order when the stock it saw is 0, else an order of 5. */
	const live = (request: ScriptedRequest) => {
		const seen = observationsIn(request);
		if (seen[0]?.includes('"stock":0')) return final('out of stock, nothing ordered');
		return turnOf(request) === 3 ? order(5) : final('ordered 5');
	};

	it('forks from a step with an edited observation: nothing before it runs again, the model sees the edit, the new row names its origin', async () => {
		const original = await recorded();
		server().setScript(live);
		server().requests.length = 0;
		const fork = await forkAuditedRun({
			record: original,
			step: 1,
			observation: 'HTTP 200 OK · 11 bytes\n{"stock":0}',
			model: modelFor(server()),
			audit: { postgres: database().url },
		});
		expect(fork).toMatchObject({
			finish_reason: 'final',
			final_answer: 'out of stock, nothing ordered',
			forked_from: { run_id: original.run_id, step: 1 },
		});
		expect(fork.trace.map((step) => step.step)).toEqual([1, 2]);
		expect(fork.trace[0]).toMatchObject({
			action: original.steps[0].step.action,
			observation: 'HTTP 200 OK · 11 bytes\n{"stock":0}',
		});
		// Step 1's reply came from the record: the model was asked once, after the edited observation.
		expect(server().requests).toHaveLength(1);
		expect(observationsIn(server().requests[0])).toEqual(['HTTP 200 OK · 11 bytes\n{"stock":0}']);
		expect([count('GET'), count('POST')]).toEqual([1, 1]);

		const row = await read(fork.audit!.run_id);
		expect(row).toMatchObject({
			forked_from: { run_id: original.run_id, step: 1 },
			chain_version: 4,
			messages: [{ role: 'user', content: 'order tea' }, expect.anything()],
		});
		expect(verifyRecord(row, fork.audit!.record_digest)).toMatchObject({
			ok: true,
			chain_version: 4,
			digest_covers: 'record',
		});
		expect(verifyRecord(original, original.record_digest)).toMatchObject({ ok: true });
	});

	it('without an edit, goes on live after the step with the real tools', async () => {
		const original = await recorded();
		server().setScript(live);
		const fork = await forkAuditedRun({
			record: original,
			step: 2,
			model: modelFor(server()),
			config: CONFIG,
		});
		expect(fork).toMatchObject({
			finish_reason: 'final',
			final_answer: 'ordered 5',
			forked_from: { run_id: original.run_id, step: 2 },
		});
		expect(fork.trace.map((step) => step.action?.tool ?? 'answer')).toEqual([
			'http_request',
			'json_transform',
			'http_request',
			'answer',
		]);
		// Steps 1 and 2 came from the record; step 3 (the new order) really ran.
		expect([count('GET'), count('POST')]).toEqual([1, 2]);
		expect(JSON.parse(shop.requests.slice(-1)[0].body)).toEqual({ quantity: 5 });
		expect(fork.audit).toBeUndefined();
	});

	it('refuses a step the record does not have, and an observation for a step without a tool call', async () => {
		const original = await recorded();
		const model = modelFor(server());
		await expect(forkAuditedRun({ record: original, step: 9, model })).rejects.toThrow(
			new ForkError(`run ${original.run_id} has no step 9 (its steps: 1, 2, 3, 4)`, 'step', ''),
		);
		await expect(
			forkAuditedRun({ record: original, step: 4, observation: 'x', model }),
		).rejects.toMatchObject({ name: 'ForkError', field: 'observation' });
		expect(server().requests).toHaveLength(4);
	});

	it('never drops the approval a config asks for: such a fork is refused before any call, and runs once given a config without it', async () => {
		const original = await recorded();
		// Edited here, so its chain no longer verifies: `unverified` lets the fork reach its config check.
		const guarded = {
			...original,
			config: { ...original.config, approval_required: ['http_request'] },
		};
		const before = [count('GET'), count('POST')];
		server().requests.length = 0;
		server().setScript(live);
		await expect(
			forkAuditedRun({ record: guarded, step: 2, model: modelFor(server()), unverified: true }),
		).rejects.toMatchObject({
			name: 'ForkError',
			field: 'config',
			message: expect.stringContaining('approval before http_request'),
		});
		await expect(
			forkAuditedRun({
				record: original,
				step: 2,
				model: modelFor(server()),
				config: { ...CONFIG, approval_required: ['http_request'] },
			}),
		).rejects.toMatchObject({ field: 'config' });
		expect(server().requests).toHaveLength(0);
		expect([count('GET'), count('POST')]).toEqual(before);
		const fork = await forkAuditedRun({
			record: guarded,
			step: 2,
			model: modelFor(server()),
			config: CONFIG,
			unverified: true,
		});
		expect(fork).toMatchObject({
			finish_reason: 'final',
			forked_from: { run_id: original.run_id, step: 2, verified: false, mismatch: 'config' },
		});
	});

	it('a rewritten forked_from is named by verify; a downgrade to version 3, or an origin added to a version 3 row, is caught', async () => {
		const original = await recorded();
		server().setScript(live);
		const fork = await forkAuditedRun({
			record: original,
			step: 1,
			observation: '{"stock":0}',
			model: modelFor(server()),
			audit: { postgres: database().url },
		});
		const runId = fork.audit!.run_id;
		await query(
			database().url,
			`UPDATE ${RUNS} SET forked_from = jsonb_set(forked_from, '{step}', '3') WHERE run_id = $1`,
			[runId],
		);
		expect(verifyRecord(await read(runId)).first_mismatch).toEqual({
			part: 'forked_from',
			detail:
				'the stored forked_from does not match its recorded hash: it was changed after the run',
		});

		await query(database().url, `UPDATE ${RUNS} SET forked_from = NULL WHERE run_id = $1`, [runId]);
		expect(verifyRecord(await read(runId)).first_mismatch?.part).toBe('forked_from');
		await query(database().url, `UPDATE ${RUNS} SET chain_version = 3 WHERE run_id = $1`, [runId]);
		expect(verifyRecord(await read(runId)).first_mismatch).toMatchObject({
			part: 'chain_version',
			detail: expect.stringContaining('carries the record hashes of version 4'),
		});

		// A row sealed as version 3 (before forks) that now names an origin: no hash could cover it.
		const {
			forked_from: _from,
			record_hashes: _hashes,
			record_digest: _digest,
			...fields
		} = await read(original.run_id);
		const versionThree = { ...fields, chain_version: 3 } as AuditRecord;
		const hashes = recordHashes(versionThree);
		expect(hashes).not.toHaveProperty('forked_from');
		const stored = { ...versionThree, record_hashes: hashes, record_digest: recordDigest(hashes) };
		expect(verifyRecord(stored, stored.record_digest)).toMatchObject({
			ok: true,
			chain_version: 3,
			digest_covers: 'record',
		});
		expect(
			verifyRecord({ ...stored, forked_from: { run_id: 'x', step: 1 } }).first_mismatch?.part,
		).toBe('forked_from');

		// A forger who reseals every hash is caught against the digest the fork's output carried.
		const resealed = sealRecord({
			...(await read(runId)),
			chain_version: 4,
			forked_from: { run_id: 'another', step: 1 },
		});
		expect(verifyRecord(resealed).ok).toBe(true);
		expect(verifyRecord(resealed, fork.audit!.record_digest).first_mismatch?.part).toBe('digest');
	});

	describe('agent-core audit fork', () => {
		let folder: string;
		beforeAll(() => {
			folder = mkdtempSync(join(tmpdir(), 'agent-core-fork-'));
		});
		afterAll(() => rmSync(folder, { recursive: true, force: true }));
		const cli = (args: string[]) =>
			runCli(['audit', ...args, '--postgres', database().url], postgresEnvironment());

		it('forks with --observation FILE into a new audited row that verify proves, and names a tampered origin', async () => {
			const original = await recorded();
			server().setScript(live);
			const file = join(folder, 'observation.txt');
			writeFileSync(file, '{"stock":0}');
			const forked = await cli([
				'fork',
				'--run',
				original.run_id,
				'--step',
				'1',
				'--observation',
				file,
				'--base-url',
				server().openaiBaseUrl,
				'--api-key',
				'k',
			]);
			expect(forked).toMatchObject({ code: 0, stderr: '' });
			const output = JSON.parse(forked.stdout);
			expect(output).toMatchObject({
				final_answer: 'out of stock, nothing ordered',
				forked_from: { run_id: original.run_id, step: 1 },
				audit: { stored: true },
			});

			const verified = await cli([
				'verify',
				'--run',
				output.audit.run_id,
				'--digest',
				output.audit.record_digest,
			]);
			expect(verified.code).toBe(0);
			expect(JSON.parse(verified.stdout)).toMatchObject({
				ok: true,
				chain_version: 4,
				digest_covers: 'record',
			});
			await query(
				database().url,
				`UPDATE ${RUNS} SET forked_from = '{"run_id":"someone-else","step":1}' WHERE run_id = $1`,
				[output.audit.run_id],
			);
			const tampered = await cli(['verify', '--run', output.audit.run_id]);
			expect(tampered.code).toBe(3);
			expect(JSON.parse(tampered.stdout).first_mismatch.part).toBe('forked_from');
			expect([count('GET'), count('POST')]).toEqual([1, 1]);
		});

		it.each([
			[
				['--step', '9'],
				(id: string) =>
					`--step: run ${id} has no step 9 (its steps: 1, 2, 3, 4). Give the number of one of the run's recorded steps.`,
			],
			[
				['--step', '0'],
				() =>
					'--step must be the number of one of the run\'s steps: a whole number from 1 up in decimal digits, without sign, point, exponent or leading zero (e.g. --step=1), not "0"',
			],
			[['--step', '1', '--run-read-only'], () => '--run-read-only belongs to audit replay'],
		])('a bad fork command line %j exits 2 naming the flag', async (args, message) => {
			const original = await recorded();
			const finished = await cli(['fork', '--run', original.run_id, ...args, '--api-key', 'k']);
			expect(finished.code).toBe(2);
			expect(finished.stderr.split('\n')[0]).toBe(`agent-core: ${message(original.run_id)}`);
		});

		it('exits 2 naming --with-config when the config asks for approval, before any model call or tool', async () => {
			const original = await recorded();
			const config = join(folder, 'approval.json');
			writeFileSync(config, JSON.stringify({ ...CONFIG, approval_required: ['http_request'] }));
			server().requests.length = 0;
			const finished = await cli([
				'fork',
				'--run',
				original.run_id,
				'--step',
				'2',
				'--with-config',
				config,
				'--api-key',
				'k',
			]);
			expect(finished.code).toBe(2);
			expect(finished.stderr.split('\n')[0]).toBe(
				'agent-core: --with-config: the config asks for approval before http_request, and a fork goes on live with no one to approve. Give the fork a config without approval_required (its audit row records the config it ran with).',
			);
			expect(server().requests).toHaveLength(0);
			expect([count('GET'), count('POST')]).toEqual([1, 1]);
		});
	});
});
