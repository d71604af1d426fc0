import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { runAgent } from '../../src/agent/run-agent';
import { MAX_PENDING_BYTES, PendingWrites } from '../../src/audit/pending-writes';
import { escapeStoredText, unescapeStoredText } from '../../src/audit/stored-text';
import { PostgresAuditSink, auditSinkFor, closeAuditSinks } from '../../src/audit/postgres-sink';
import type { AuditRecord } from '../../src/audit/record';
import { verifyRecord } from '../../src/audit/verify';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	LOOPBACK_HEADERS_ALLOWED,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';
import { runWorkflow } from '../support/n8n-engine';
import {
	POSTGRES_HOST,
	POSTGRES_PORT,
	postgresEnvironment,
	query,
	useTestDatabase,
} from '../support/postgres';
import { startTcpProxy, type TcpProxy } from '../support/servers/tcp-proxy';
import { warmUpAuditedRun } from '../support/warm-up';
import { connectInSequence, createInputNode, createNode } from '../support/test-nodes';
import { useEventLoopWatchdog } from '../support/watchdog';

/** What the client sends when it writes a run: the proxy cuts the connection right there. */
const RUN_INSERT = 'INSERT INTO agent_core_audit_runs';
const STEPS_INSERT = 'INSERT INTO agent_core_audit_steps';
/** A lost connection, as pg reports it: the write failed, the row is pending. */
const LOST =
	/^the audit row of run \S+ was not stored \(Connection terminated unexpectedly\); it is tried again later by this process$/;

/** Lets any late 'error' event of a dead connection fire: an unhandled one would fail the test here. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

/** A TCP proxy in front of the test PostgreSQL for each test, closed after it together with the audit sinks. */
function usePostgresProxy(): () => TcpProxy {
	let proxy: TcpProxy;
	beforeEach(async () => {
		proxy = await startTcpProxy({ host: POSTGRES_HOST, port: POSTGRES_PORT });
	});
	afterEach(async () => {
		await closeAuditSinks();
		await proxy.close();
	});
	return () => proxy;
}

/**
 * Issue #26, the audit trail under attack: a database connection cut mid-INSERT (through a TCP proxy in
 * front of the real PostgreSQL) is a notice and a retry in the library, the CLI and n8n's engine, never
 * a crash; the row is stored by the retry and verifies.
 */
// Before any watchdog measures: a module's one-time load is not a stall caused by the input under test.
beforeAll(warmUpAuditedRun);

describe('an audit write whose connection is cut mid-INSERT', () => {
	useEventLoopWatchdog('audit');
	const server = useScriptedServer();
	const database = useTestDatabase();
	const proxy = usePostgresProxy();

	const script = () =>
		server().setScript([
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			final('two'),
		]);
	const audited = (postgres: string) =>
		runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['json_transform'] },
			prompt: 'count',
			audit: { postgres, waitMs: 5_000 },
		});

	it.each([
		['the table migration', 'pg_advisory_xact_lock'],
		['the run row', RUN_INSERT],
		['the step rows (the run row in the same transaction is rolled back)', STEPS_INSERT],
	])(
		'library: cut while sending %s, the run answers with stored: false, and the retry stores it whole',
		async (_, marker) => {
			script();
			const url = proxy().postgresUrl(database().name);
			proxy().cutWhen(marker);
			const result = await audited(url);
			await settle();
			expect(proxy().cuts).toBe(1);
			expect(result).toMatchObject({
				finish_reason: 'final',
				final_answer: 'two',
				audit: { stored: false, record_digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
			});
			expect(result.audit!.notice).toMatch(LOST);
			const sink = auditSinkFor(url);
			expect(sink.pendingCount).toBe(1);
			// Nothing of the run is stored (and after a cut migration, no table either: it rolled back whole).
			const [{ table }] = await query<{ table: string | null }>(
				database().url,
				"SELECT to_regclass('agent_core_audit_runs')::text AS table",
			);
			if (marker === RUN_INSERT || marker === STEPS_INSERT)
				expect(await query(database().url, 'SELECT run_id FROM agent_core_audit_runs')).toEqual([]);
			else expect(table).toBeNull();

			expect(await sink.flushPending()).toBe(0);
			const stored = await sink.read(result.audit!.run_id);
			expect(stored!.steps).toHaveLength(2);
			expect(verifyRecord(stored!, result.audit!.record_digest)).toMatchObject({
				ok: true,
				chain_version: 4,
				digest_covers: 'record',
			});
		},
	);

	it('library: the database restarted under an idle pool and again mid-write: each write is a notice, never a crash', async () => {
		script();
		const url = proxy().postgresUrl(database().name);
		expect((await audited(url)).audit?.stored).toBe(true);
		proxy().cutAll(); // the pooled idle connection dies
		proxy().cutWhen(RUN_INSERT);
		script();
		const second = await audited(url);
		await settle();
		expect(second.audit?.notice).toMatch(LOST);
		script();
		const third = await audited(url);
		expect(third.audit).toMatchObject({ stored: true });
		// The third write flushed the second one behind it.
		expect(
			(await query(database().url, 'SELECT count(*)::int AS n FROM agent_core_audit_runs'))[0].n,
		).toBe(3);
	});

	it('library: a connection gone silent mid-INSERT holds the answer no longer than the wait, and close cuts it within a second', async () => {
		script();
		const url = proxy().postgresUrl(database().name);
		proxy().freezeWhen(RUN_INSERT);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['json_transform'] },
			prompt: 'count',
			audit: { postgres: url, waitMs: 300 },
		});
		expect(result.audit).toMatchObject({
			stored: false,
			notice:
				'the audit row was not written within 300 ms; it is written when the database answers',
		});
		const started = performance.now();
		await auditSinkFor(url).close();
		await settle();
		expect(performance.now() - started).toBeLessThan(2_500);
	});

	it('n8n engine: the item’s output says the row was not stored, the worker lives, and the row verifies after the retry', async () => {
		server().setScript(final('fine'));
		proxy().cutWhen(RUN_INSERT);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'a' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: { model: { __rl: true, mode: 'id', value: 'm' }, auditTrail: true },
					settings: {
						credentials: {
							agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
							agentCoreAuditDatabaseApi: { id: '5', name: 'Audit' },
						},
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				agentCoreAuditDatabaseApi: {
					host: '127.0.0.1',
					port: proxy().port,
					database: database().name,
					user: 'postgres',
					password: process.env.PGPASSWORD ?? '',
					ssl: 'disable',
				},
			},
		});
		await settle();
		const [item] = result.outputOf('Agent Core');
		const audit = item.json.audit as IDataObject & { run_id: string; record_digest: string };
		expect(item.json).toMatchObject({
			finish_reason: 'final',
			output: 'fine',
			audit: { stored: false },
		});
		expect(audit.notice).toMatch(LOST);
		const sink = auditSinkFor({
			host: '127.0.0.1',
			port: proxy().port,
			database: database().name,
			user: 'postgres',
			...(process.env.PGPASSWORD ? { password: process.env.PGPASSWORD } : {}),
			ssl: false,
		});
		expect(await sink.flushPending()).toBe(0);
		expect(verifyRecord((await sink.read(audit.run_id))!, audit.record_digest).ok).toBe(true);
	});

	it('CLI: a connection gone silent mid-INSERT: the output is printed after the 10 s wait and the process exits 0 a second later', async () => {
		const folder = mkdtempSync(join(tmpdir(), 'agent-core-hostile-audit-'));
		try {
			const config = join(folder, 'config.json');
			writeFileSync(config, JSON.stringify({ model: 'm' }));
			server().setScript(final('fine'));
			proxy().freezeWhen(RUN_INSERT);
			const started = performance.now();
			const finished = await runCli(
				[
					'run',
					'--config',
					config,
					'--prompt',
					'hi',
					'--base-url',
					server().openaiBaseUrl,
					'--api-key',
					'k',
					'--audit-postgres',
					proxy().postgresUrl(database().name),
				],
				postgresEnvironment(),
			);
			expect(finished.code).toBe(0);
			expect(JSON.parse(finished.stdout)).toMatchObject({
				final_answer: 'fine',
				audit: {
					stored: false,
					notice:
						'the audit row was not written within 10000 ms; it is written when the database answers',
				},
			});
			// What this guards against is a process held open by the silent connection for good; a loaded machine
			// only slows the start-up and the run, so the bound is far from the 10 s wait and far below a hang.
			expect(performance.now() - started).toBeLessThan(30_000);
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	}, 45_000);

	it('CLI: run --audit-postgres through a connection cut mid-INSERT prints its output and exits 0', async () => {
		const folder = mkdtempSync(join(tmpdir(), 'agent-core-hostile-audit-'));
		try {
			const config = join(folder, 'config.json');
			writeFileSync(config, JSON.stringify({ model: 'm', allowed_tools: ['json_transform'] }));
			server().setScript((request) =>
				request.messages.length <= 2
					? action('json_transform', { data: [1, 2], expression: 'length(@)' })
					: final('two'),
			);
			proxy().cutWhen(RUN_INSERT);
			const url = proxy().postgresUrl(database().name);
			const finished = await runCli(
				[
					'run',
					'--config',
					config,
					'--prompt',
					'count',
					'--base-url',
					server().openaiBaseUrl,
					'--api-key',
					'k',
					'--audit-postgres',
					url,
				],
				postgresEnvironment(),
			);
			expect(proxy().cuts).toBe(1);
			expect(finished.code).toBe(0);
			const output = JSON.parse(finished.stdout);
			expect(output).toMatchObject({
				finish_reason: 'final',
				final_answer: 'two',
				audit: { stored: false },
			});
			expect(output.audit.notice).toMatch(LOST);
			expect(finished.stderr).toBe(
				`agent-core: audit: ${output.audit.notice}; this process ends, so the row of run ${output.audit.run_id} is not stored\n`,
			);
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	});
});

/** A hand-built record (for the queue's tests), with a final answer of `answer`. */
function recordOf(runId: string, answer: string, elapsedMs = 1): AuditRecord {
	const step = {
		step: 1,
		provider: 'openai',
		model: 'm',
		final: { answer },
		repair: false,
		elapsed_ms: 1,
		model_ms: 1,
	};
	return {
		run_id: runId,
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
		final_answer: answer,
		usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
		metrics: { model_calls: 1, repairs: 0, failed_steps: 0, failure_rate: 0 },
		elapsed_ms: elapsedMs,
		trace_digest: 'l',
	};
}

/**
 * Issue #26: a row the database refuses for what it holds is set aside with a notice, so it never blocks
 * the writes behind it; the pending queue is bounded in bytes as well as rows.
 */
describe('audit rows the database refuses, and the pending queue', () => {
	useEventLoopWatchdog('audit');
	const database = useTestDatabase();
	const proxy = usePostgresProxy();

	it('a row refused for its content is set aside at once with a notice naming the refusal, not kept for a retry', async () => {
		const sink = new PostgresAuditSink(database().url);
		try {
			// elapsed_ms beyond a PostgreSQL integer: SQLSTATE 22003, a refusal no retry can change.
			await expect(sink.write(recordOf('too-long', 'x', 3e9))).rejects.toMatchObject({
				retried: false,
				message:
					'the audit row of run too-long was refused by the database for its content (value "3000000000" is out of range for type integer, SQLSTATE 22003); it is set aside and not tried again',
			});
			expect(sink.pendingCount).toBe(0);
			expect(sink.setAside).toEqual([
				{
					run_id: 'too-long',
					reason: 'value "3000000000" is out of range for type integer, SQLSTATE 22003',
				},
			]);
		} finally {
			await sink.close();
		}
	});

	it('a pending row that turns out to be refused for its content is set aside, and the rows behind it are stored', async () => {
		const sink = new PostgresAuditSink(proxy().postgresUrl(database().name));
		try {
			await sink.write(recordOf('first', 'ok'));
			proxy().cutWhen(RUN_INSERT, 2);
			await expect(sink.write(recordOf('refused-later', 'x', 3e9))).rejects.toMatchObject({
				retried: true,
			});
			await expect(sink.write(recordOf('behind-it', 'fine'))).rejects.toMatchObject({
				retried: true,
			});
			expect(sink.pendingCount).toBe(2);

			const report = await sink.write(recordOf('next', 'fine too'));
			expect(report.notices).toEqual([
				expect.stringMatching(
					/^the audit row of run refused-later was refused by the database for its content \(.*SQLSTATE 22003\); it is set aside and not tried again$/,
				),
			]);
			expect(sink.pendingCount).toBe(0);
			const stored = await query(
				database().url,
				'SELECT run_id FROM agent_core_audit_runs ORDER BY run_id',
			);
			expect(stored.map((row) => row.run_id)).toEqual(['behind-it', 'first', 'next']);
		} finally {
			await sink.close();
		}
	});

	it('the pending queue keeps at most 64 MiB: older rows are given up, and the failing write says which', async () => {
		const sink = new PostgresAuditSink('postgres://postgres@127.0.0.1:1/none');
		const answer = 'a'.repeat(5 * 1024 * 1024);
		try {
			const notices: string[] = [];
			for (let index = 0; index < 14; index++) {
				const error = await sink
					.write(recordOf(`big-${index}`, answer))
					.catch((failure: Error) => failure);
				notices.push((error as Error).message);
			}
			// Each record holds the answer three times (final_answer, the step's final, its reply absent): ~15 MiB.
			expect(sink.pendingBytes).toBeLessThanOrEqual(MAX_PENDING_BYTES);
			expect(sink.pendingCount).toBeLessThan(14);
			expect(sink.dropped).toBe(14 - sink.pendingCount);
			expect(
				notices.some((text) =>
					/earlier audit row\(s\) waiting for a retry were given up, the pending queue being full \(at most 1000 rows and 67108864 bytes\): run big-0/.test(
						text,
					),
				),
			).toBe(true);
		} finally {
			await sink.close();
		}
	});

	it('a write larger than the whole queue is not kept, and the notice says so', () => {
		const queue = new PendingWrites();
		const huge = { runId: 'huge', run: { text: '', values: [] }, bytes: MAX_PENDING_BYTES + 1 };
		expect(queue.add(huge)).toEqual({ kept: false, givenUp: [] });
		expect(queue.length).toBe(0);
	});
});

/**
 * Issue #26: NUL and lone surrogates from a hostile page, model or tool are stored (escaped reversibly,
 * see stored-text.ts) and the run still verifies; before, the row was refused forever.
 */
describe('text PostgreSQL cannot hold, anywhere in a run', () => {
	useEventLoopWatchdog('audit');
	useLoopbackGuard();
	const server = useScriptedServer();
	const database = useTestDatabase();
	let page: TestServer;
	beforeEach(async () => {
		// A page whose bytes hold NUL and invalid UTF-8.
		page = await startServer((_, response) => {
			response.setHeader('content-type', 'text/plain; charset=utf-8');
			response.end(
				Buffer.concat([
					Buffer.from('page\u0000start '),
					Buffer.from([0xff, 0xfe, 0x00, 0xed, 0xa0, 0x80]),
					Buffer.from(' end'),
				]),
			);
		}, '127.0.0.2');
	});
	afterEach(() => closeAuditSinks());

	it('the storage escaping undoes exactly, and leaves no NUL or lone surrogate in what is stored', () => {
		const edges = [
			'',
			'plain',
			'\u0000',
			'\uE000',
			'\uE000AB',
			'\uE0000041',
			'\uE000e000',
			'a\ud800',
			'\udc00b',
			'\ud83d\ude00',
			'\udc00\ud800',
			'x\ud800\ud800\udc00y\udbff',
			'\uE000\uE000\u0000',
		];
		for (const text of edges) {
			const stored = escapeStoredText(text);
			expect(unescapeStoredText(stored)).toBe(text);
			expect(stored).not.toMatch(
				/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
			);
		}
		// A mark not followed by four upper-case hex digits was not written by the escaping and reads as it is.
		expect(unescapeStoredText('\uE000zz')).toBe('\uE000zz');
	});

	it('stores a final answer, tool arguments, a reply and a fetched page holding NUL, lone surrogates and the escape mark; all read back exactly and verify', async () => {
		const hostile = 'Transfer\u0000 approved \ud800 and \udc00 and \uE000 and \uE0000041 end';
		server().setScript([
			`not json \u0000 \ud800`,
			action('json_transform', { data: { [`key\u0000\ud800`]: hostile }, expression: '*' }),
			action('http_request', { method: 'GET', url: `${page.url}/page` }),
			final(hostile),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['json_transform', 'http_request'],
				tool_settings: {
					http_request: { ...LOOPBACK_HEADERS_ALLOWED, allowed_domains: ['127.0.0.2'] },
				},
			},
			prompt: `question with \u0000 and \udfff`,
			audit: { postgres: database().url, waitMs: 5_000 },
		});
		expect(result.final_answer).toBe(hostile);
		expect(result.trace.map((step) => step.error?.type ?? 'ok')).toEqual([
			'parse_error',
			'ok',
			'ok',
			'ok',
		]);
		expect(result.trace[2].observation).toContain('page\u0000start');
		expect(result.audit).toMatchObject({ stored: true });
		const record = (await auditSinkFor(database().url).read(result.audit!.run_id))!;
		expect(record.final_answer).toBe(hostile);
		expect(record.messages[0].content).toBe('question with \u0000 and \udfff');
		expect(record.steps[0].reply).toBe('not json \u0000 \ud800');
		expect(record.steps.map((entry) => entry.step)).toEqual(result.trace);
		expect(verifyRecord(record, result.audit!.record_digest)).toMatchObject({
			ok: true,
			digest_covers: 'record',
		});
		expect(verifyRecord(record, result.trace_digest)).toMatchObject({
			ok: true,
			digest_covers: 'trace',
		});
		// As stored: each NUL, lone surrogate and U+E000 is U+E000 and the code unit's four hex digits.
		const [row] = await query<{ final_answer: string }>(
			database().url,
			'SELECT final_answer FROM agent_core_audit_runs',
		);
		expect(row.final_answer).toBe(
			'Transfer\uE0000000 approved \uE000D800 and \uE000DC00 and \uE000E000 and \uE000E0000041 end',
		);
	});

	/** A run through http_request to a 5 MB page of "z" and NUL, answering with `replies` first. */
	async function bigRun(replies: string[]) {
		const bigPage = await startServer((_, response) => {
			response.setHeader('content-type', 'text/plain; charset=utf-8');
			response.end(Buffer.alloc(5 * 1024 * 1024, 'z\u0000'));
		}, '127.0.0.2');
		server().setScript([
			...replies,
			action('http_request', { method: 'GET', url: `${bigPage.url}/big` }),
			final('answer \u0000 \udbff '.repeat(5_000)),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				observation_max_len: 1_000_000,
				allowed_tools: ['http_request'],
				tool_settings: {
					http_request: { ...LOOPBACK_HEADERS_ALLOWED, allowed_domains: ['127.0.0.2'] },
				},
			},
			prompt: 'big',
			audit: { postgres: database().url, waitMs: 20_000 },
		});
		expect(result.finish_reason).toBe('final');
		expect(result.audit).toMatchObject({ stored: true });
		const record = (await auditSinkFor(database().url).read(result.audit!.run_id))!;
		expect(verifyRecord(record, result.audit!.record_digest)).toMatchObject({
			ok: true,
			digest_covers: 'record',
		});
		return record;
	}

	it('stores the 1 MB observation of a 5 MB page of NULs, and a 90,000-character answer full of NULs and surrogates; it verifies', async () => {
		const record = await bigRun([]);
		const observation = record.steps[0].step.observation!;
		expect(observation.length).toBeGreaterThan(900_000);
		expect(observation).toContain('z\u0000z\u0000');
		// Compared without printing megabytes when they differ.
		expect(record.final_answer === 'answer \u0000 \udbff '.repeat(5_000)).toBe(true);
	});

	it('stores a 5 MB model reply (refused by the protocol, kept whole in the audit) of which 1.4 million characters are NULs and surrogates; it verifies', async () => {
		const hugeReply = 'word \u0000 \ud800 '.repeat(500_000).slice(0, 5_000_000);
		const record = await bigRun([hugeReply]);
		expect(record.steps[0].reply === hugeReply).toBe(true);
		expect(record.steps[0].step.error?.type).toBe('parse_error');
	});
});
