import * as net from 'node:net';
import { runAgent } from '../../src/agent/run-agent';
import { replayRecord } from '../../src/replay/replay';
import { PostgresAuditSink, auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import { verifyRecord } from '../../src/audit/verify';
import { configHash } from '../../src/trace/digest';
import { baseLink, nextLink, schemaHash } from '../../src/trace/digest';
import type { AuditRecord } from '../../src/audit/record';
import { sealRecord } from '../../src/audit/record-chain';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import {
	LOOPBACK_HEADERS_ALLOWED,
	startCanary,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';
import { createTestDatabase, dropTestDatabase, query, useTestDatabase } from '../support/postgres';

const SECRET = 'Bearer sk-audit-5Jq8Lw2Zx7Vb';

/**
 * Issue #19: every run kept in PostgreSQL once its answer is ready, provably unchanged (verify) and
 * re-runnable offline (replay), without the write ever holding up or failing the run.
 */
describe('the PostgreSQL audit', () => {
	useLoopbackGuard();
	const server = useScriptedServer();
	const database = useTestDatabase();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary('127.0.0.2');
	});
	afterEach(() => closeAuditSinks());

	/** A run that calls the canary through http_request (with a secret header) and then answers. */
	async function auditedRun(url: string, extra: { waitMs?: number; retentionDays?: number } = {}) {
		server().setScript([
			action('http_request', { method: 'GET', url: `${canary.url}/page` }),
			final('the canary answered'),
		]);
		return runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['http_request', 'json_transform'],
				tool_settings: {
					http_request: {
						...LOOPBACK_HEADERS_ALLOWED,
						allowed_domains: ['127.0.0.2'],
						headers: { authorization: SECRET },
					},
				},
			},
			prompt: `fetch ${canary.url}/page`,
			sessionId: 'session-7',
			audit: { postgres: url, origin: { workflow_id: 'wf-1', execution_id: '41' }, ...extra },
		});
	}

	it('stores the run after its answer: one run row, one row per step with reply, observation and link', async () => {
		const result = await auditedRun(database().url);
		expect(result.finish_reason).toBe('final');
		expect(result.audit).toEqual({
			run_id: expect.any(String),
			stored: true,
			record_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
		});
		const [run] = await query(database().url, 'SELECT * FROM agent_core_audit_runs');
		expect(run).toMatchObject({
			run_id: result.audit!.run_id,
			workflow_id: 'wf-1',
			execution_id: '41',
			session_id: 'session-7',
			finish_reason: 'final',
			final_answer: 'the canary answered',
			trace_digest: result.trace_digest,
		});
		const steps = await query(
			database().url,
			'SELECT * FROM agent_core_audit_steps ORDER BY position',
		);
		expect(steps.map((step) => step.step)).toEqual([1, 2]);
		expect(steps[0]).toMatchObject({
			action: { tool: 'http_request', args: { method: 'GET', url: `${canary.url}/page` } },
			provider: 'openai',
			model: 'm',
		});
		expect(steps[0].observation).toContain('canary reached');
		expect(steps[1].reply).toBe(final('the canary answered'));
		expect(steps[1].link).toBe(result.trace_digest);
		// The config is stored redacted: the header's secret is nowhere in the database.
		const everything = JSON.stringify(
			await query(
				database().url,
				'SELECT r.*, s.* FROM agent_core_audit_runs r JOIN agent_core_audit_steps s USING (run_id)',
			),
		);
		expect(everything).not.toContain('sk-audit-5Jq8Lw2Zx7Vb');
	});

	it('verify recomputes the chain of a stored run, and names the first step whose stored content was changed', async () => {
		const result = await auditedRun(database().url);
		const runId = result.audit!.run_id;
		const sink = auditSinkFor(database().url);
		expect(verifyRecord((await sink.read(runId))!, result.trace_digest)).toMatchObject({
			ok: true,
			steps: 2,
			recomputed_digest: result.trace_digest,
		});

		await query(
			database().url,
			"UPDATE agent_core_audit_steps SET observation = 'nothing here' WHERE position = 0",
		);
		const changed = verifyRecord((await sink.read(runId))!);
		expect(changed.ok).toBe(false);
		expect(changed.first_mismatch).toEqual({
			part: 'step 1',
			detail: 'step 1 does not match its recorded link: it was changed after the run',
		});
	});

	it('verify names a changed config, and catches rewritten hashes against the digest the output carried', async () => {
		const result = await auditedRun(database().url);
		const sink = auditSinkFor(database().url);
		await query(
			database().url,
			`UPDATE agent_core_audit_runs SET config = jsonb_set(config, '{max_steps}', '99')`,
		);
		expect(verifyRecord((await sink.read(result.audit!.run_id))!).first_mismatch?.part).toBe(
			'config',
		);

		// A forger who rewrites every stored hash to match the change still cannot match the output's digest.
		const forged = (await sink.read(result.audit!.run_id))!;
		expect(
			verifyRecord({ ...forged, config_hash: configHash(forged.config) }).first_mismatch?.part,
		).toBe('chain_base');
		const rewritten = rewriteChain(forged);
		expect(verifyRecord(rewritten).ok).toBe(true);
		expect(verifyRecord(rewritten, result.trace_digest).first_mismatch?.part).toBe('digest');
		expect(verifyRecord(rewritten, result.audit!.record_digest).first_mismatch?.part).toBe(
			'digest',
		);
	});

	it('replay reaches the same finish reason and answer from the record, asking no model and running no tool', async () => {
		const result = await auditedRun(database().url);
		const record = (await auditSinkFor(database().url).read(result.audit!.run_id))!;
		const modelCalls = server().requests.length;
		const canaryHits = canary.requests.length;
		const report = await replayRecord(record);
		expect(report).toMatchObject({
			same: true,
			differences: [],
			replayed: { finish_reason: 'final', final_answer: 'the canary answered', steps: 2 },
			answered_from_record: { model_turns: 2, tool_calls: 1 },
		});
		expect(server().requests.length).toBe(modelCalls);
		expect(canary.requests.length).toBe(canaryHits);
	});

	it('replay refuses a changed reply; with unverified it shows where the change leads the run elsewhere, marked', async () => {
		const result = await auditedRun(database().url);
		await query(database().url, `UPDATE agent_core_audit_steps SET reply = $1 WHERE position = 1`, [
			final('something else'),
		]);
		const record = (await auditSinkFor(database().url).read(result.audit!.run_id))!;
		await expect(replayRecord(record)).rejects.toMatchObject({
			name: 'UnverifiedRecordError',
			mismatch: { part: 'step 2 reply' },
		});
		const report = await replayRecord(record, { unverified: true });
		expect(report).toMatchObject({ same: false, unverified: { part: 'step 2 reply' } });
		expect(report.differences).toContain('final_answer differs');
	});

	it('replays a repair turn and the loop breaker as they happened', async () => {
		server().setScript([
			'not json at all',
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			final('2'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['json_transform'] },
			prompt: 'count',
			audit: { postgres: database().url },
		});
		expect(result.trace.map((step) => step.error?.type ?? step.repeat_of ?? 'ok')).toEqual([
			'parse_error',
			'ok',
			2,
			'ok',
		]);
		const report = await replayRecord(
			(await auditSinkFor(database().url).read(result.audit!.run_id))!,
		);
		expect(report).toMatchObject({
			same: true,
			replayed: { finish_reason: 'final', final_answer: '2', steps: 4 },
		});
	});

	it('creates its tables once when many writers start at once on an empty database', async () => {
		// Separate sinks have separate pools, as separate n8n workers would: all eight race the migration.
		const sinks = Array.from({ length: 8 }, () => new PostgresAuditSink(database().url));
		try {
			await Promise.all(sinks.map((sink, index) => sink.write(recordFrom('raced', index))));
			const [{ count }] = await query<{ count: string }>(
				database().url,
				'SELECT count(*) FROM agent_core_audit_runs',
			);
			expect(Number(count)).toBe(8);
		} finally {
			await Promise.all(sinks.map((sink) => sink.close()));
		}
	});

	it('a database user with only INSERT, SELECT and DELETE on the tables writes and reads runs once they exist', async () => {
		await auditedRun(database().url); // the owner creates the tables
		await closeAuditSinks();
		const role = `agent_core_writer_${Math.random().toString(36).slice(2, 10)}`;
		const password = Math.random().toString(36).slice(2);
		await query(database().url, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
		try {
			await query(
				database().url,
				`GRANT INSERT, SELECT, DELETE ON agent_core_audit_runs, agent_core_audit_steps TO ${role}`,
			);
			const url = database().url.replace('postgres@', `${role}:${password}@`);
			const result = await auditedRun(url);
			expect(result.audit).toMatchObject({ stored: true });
			expect(
				verifyRecord(
					(await auditSinkFor(url).read(result.audit!.run_id))!,
					result.audit!.record_digest,
				).ok,
			).toBe(true);
		} finally {
			await closeAuditSinks();
			await query(
				database().url,
				`REVOKE ALL ON agent_core_audit_runs, agent_core_audit_steps FROM ${role}`,
			);
			await query(database().url, `DROP ROLE ${role}`);
		}
	});

	it('a write that fails never fails the run: the output says so, and the row is written on a later try', async () => {
		const target = await createTestDatabase();
		await dropTestDatabase(target.name);
		try {
			const result = await auditedRun(target.url);
			expect(result.finish_reason).toBe('final');
			expect(result.final_answer).toBe('the canary answered');
			expect(result.audit?.stored).toBe(false);
			expect(result.audit?.notice).toMatch(
				new RegExp(
					`the audit row of run ${result.audit!.run_id} was not stored \\(database "${target.name}" does not exist\\); it is tried again later`,
				),
			);
			const sink = auditSinkFor(target.url);
			expect(sink.pendingCount).toBe(1);

			await query(target.url.replace(target.name, 'postgres'), `CREATE DATABASE ${target.name}`);
			expect(await sink.flushPending()).toBe(0);
			const stored = await sink.read(result.audit!.run_id);
			expect(verifyRecord(stored!, result.trace_digest).ok).toBe(true);
		} finally {
			await closeAuditSinks();
			await dropTestDatabase(target.name);
		}
	});

	it('a database that does not answer holds the answer back no longer than the wait', async () => {
		// Accepts connections and never answers: pg waits for the server's greeting until its own timeout.
		const sockets: net.Socket[] = [];
		const silent = net.createServer((socket) => sockets.push(socket));
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		const port = (silent.address() as net.AddressInfo).port;
		try {
			const result = await auditedRun(`postgres://postgres@127.0.0.1:${port}/none`, {
				waitMs: 200,
			});
			expect(result.finish_reason).toBe('final');
			expect(result.audit).toEqual({
				run_id: expect.any(String),
				stored: false,
				notice:
					'the audit row was not written within 200 ms; it is written when the database answers',
				record_digest: expect.any(String),
			});
		} finally {
			sockets.forEach((socket) => socket.destroy());
			await closeAuditSinks();
			await new Promise((resolve) => silent.close(resolve));
		}
	});

	it('retention deletes runs older than the set days, steps included', async () => {
		const sink = auditSinkFor(database().url);
		const old = recordFrom('old-run', 0);
		old.created_at = new Date(Date.now() - 40 * 24 * 3600 * 1000);
		await sink.write(old);
		const result = await auditedRun(database().url, { retentionDays: 30 });
		expect(result.audit?.stored).toBe(true);
		const runs = await query(database().url, 'SELECT run_id FROM agent_core_audit_runs');
		expect(runs.map((row) => row.run_id)).toEqual([result.audit!.run_id]);
		const orphans = await query(
			database().url,
			"SELECT * FROM agent_core_audit_steps WHERE run_id = 'old-run'",
		);
		expect(orphans).toHaveLength(0);
	});
});

/** A small stored-run record of its own (for writers that race and for retention). */
function recordFrom(runId: string, index: number): AuditRecord {
	const step = {
		step: 1,
		provider: 'openai',
		model: 'm',
		final: { answer: `answer ${index}` },
		repair: false,
		elapsed_ms: 1,
		model_ms: 1,
	};
	return {
		run_id: `${runId}-copy-${index}`,
		created_at: new Date(),
		model: 'm',
		provider: 'openai',
		config: { model: 'm' },
		config_hash: 'h',
		tools: [],
		chain_base: 'b',
		steps: [{ step, link: 'l' }],
		messages: [{ role: 'user', content: 'hi' }],
		finish_reason: 'final',
		final_answer: `answer ${index}`,
		usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
		metrics: { model_calls: 1, repairs: 0, failed_steps: 0, failure_rate: 0 },
		elapsed_ms: 1,
		trace_digest: 'l',
	};
}

/** The record with every hash recomputed to match its (changed) content: what a careful forger would store. */
function rewriteChain(record: AuditRecord): AuditRecord {
	const config_hash = configHash(record.config);
	let link = baseLink({
		configHash: config_hash,
		toolSchemaHashes: Object.fromEntries(
			record.tools.map((tool) => [tool.name, schemaHash(tool.schema)]),
		),
	});
	const chain_base = link;
	const steps = record.steps.map((entry) => {
		link = nextLink(link, entry.step);
		return { ...entry, link };
	});
	return sealRecord({ ...record, config_hash, chain_base, steps, trace_digest: link });
}
