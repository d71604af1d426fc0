import { trace } from '@opentelemetry/api';
import {
	InMemorySpanExporter,
	SimpleSpanProcessor,
	TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { closeAuditSinks } from '../../../../src/audit/postgres-sink';
import { verifyRecord } from '../../../../src/audit/verify';
import { auditSinkFor } from '../../../../src/audit/postgres-sink';
import {
	auditTargetFromCredential,
	testAuditDatabaseCredential,
} from '../../../../nodes/AgentCore/execute/governance/audit';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import {
	POSTGRES_HOST,
	POSTGRES_PORT,
	createTestDatabase,
	dropTestDatabase,
	query,
	useTestDatabase,
} from '../../../support/postgres';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

/** Issue #19 in n8n's engine: Audit Trail on the Agent Core: Audit Database credential. */
describe('Agent Core audit trail in n8n’s engine', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());
	const credentialFor = (name: string) => ({
		host: POSTGRES_HOST,
		port: POSTGRES_PORT,
		database: name,
		user: 'postgres',
		password: process.env.PGPASSWORD ?? '',
		ssl: 'disable',
	});

	const run = (items: IDataObject[], parameters: INodeParameters, databaseName = database().name) =>
		runWorkflow({
			nodes: [
				createInputNode(items),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: {
						model: { __rl: true, mode: 'id', value: 'm' },
						allowedTools: ['json_transform'],
						auditTrail: true,
						...parameters,
					},
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
				agentCoreAuditDatabaseApi: credentialFor(databaseName),
			},
		});

	it('stores each item’s run with the workflow, execution and node it came from; each verifies', async () => {
		server().setScript((request) =>
			request.messages.length <= 2
				? action('json_transform', { data: [1, 2], expression: 'length(@)' })
				: final('two'),
		);
		const result = await run(
			[
				{ prompt: 'a', session_id: 's-1' },
				{ prompt: 'b', session_id: 's-2' },
			],
			{ auditRetentionDays: 30 },
		);
		const items = result.outputOf('Agent Core').map(
			(item) =>
				item.json as IDataObject & {
					audit: { run_id: string; stored: boolean; record_digest: string };
				},
		);
		expect(items.map((item) => item.audit.stored)).toEqual([true, true]);
		const rows = await query(
			database().url,
			'SELECT run_id, workflow_id, execution_id, node_name, session_id, trace_digest FROM agent_core_audit_runs ORDER BY session_id',
		);
		expect(rows).toEqual(
			items.map((item, index) => ({
				run_id: item.audit.run_id,
				workflow_id: 'test-workflow',
				execution_id: expect.stringMatching(/^\d+$/),
				node_name: 'Agent Core',
				session_id: `s-${index + 1}`,
				trace_digest: item.trace_digest,
			})),
		);
		const sink = auditSinkFor(auditTargetFromCredential(credentialFor(database().name)));
		for (const item of items)
			expect(
				verifyRecord((await sink.read(item.audit.run_id))!, item.trace_digest as string).ok,
			).toBe(true);
		// The output's record_digest proves every stored field, the workflow, execution and node included.
		for (const item of items)
			expect(
				verifyRecord((await sink.read(item.audit.run_id))!, item.audit.record_digest),
			).toMatchObject({ ok: true, digest_covers: 'record' });
	});

	it('a database that is gone does not fail the item: the output says the row was not stored', async () => {
		const gone = await createTestDatabase();
		await dropTestDatabase(gone.name);
		server().setScript(final('fine'));
		const result = await run([{ prompt: 'a' }], {}, gone.name);
		const [item] = result.outputOf('Agent Core');
		expect(item.json).toMatchObject({
			finish_reason: 'final',
			output: 'fine',
			audit: { stored: false },
		});
		expect((item.json.audit as IDataObject).notice).toContain(
			`database "${gone.name}" does not exist`,
		);
	});

	it('puts the run’s spans on n8n’s tracer when the process registered a global OpenTelemetry provider', async () => {
		const exporter = new InMemorySpanExporter();
		trace.setGlobalTracerProvider(
			new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
		);
		try {
			server().setScript(final('traced'));
			const result = await run([{ prompt: 'a', session_id: 's-9' }], { auditTrail: false });
			expect(result.outputOf('Agent Core')[0].json.finish_reason).toBe('final');
			const spans = exporter.getFinishedSpans();
			expect(spans.map((span) => span.name).sort()).toEqual(['chat m', 'invoke_agent Agent Core']);
			expect(spans.find((span) => span.name.startsWith('invoke_agent'))?.attributes).toMatchObject({
				'session.id': 's-9',
				'agent_core.finish_reason': 'final',
			});
		} finally {
			trace.disable();
		}
	});

	it('the credential test connects and runs SELECT 1, and names the failure when it cannot', async () => {
		const test = (data: IDataObject) =>
			testAuditDatabaseCredential.call(
				{} as never,
				{ id: '5', name: 'Audit', type: 'agentCoreAuditDatabaseApi', data } as never,
			);
		expect(await test(credentialFor(database().name))).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connected \(SELECT 1 in \d+ ms\)$/),
		});
		const refused = await test({ ...credentialFor(database().name), port: 1 });
		expect(refused).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^cannot reach the audit database: .*ECONNREFUSED/),
		});
	});

	it('the credential’s SSL setting maps onto the connection', () => {
		expect(
			auditTargetFromCredential({ host: 'db', database: 'a', user: 'u', ssl: 'require' }),
		).toMatchObject({ port: 5432, ssl: { rejectUnauthorized: true } });
		expect(
			auditTargetFromCredential({ host: 'db', database: 'a', user: 'u', ssl: 'allow-unverified' }),
		).toMatchObject({ ssl: { rejectUnauthorized: false } });
		expect(
			auditTargetFromCredential({ host: 'db', database: 'a', user: 'u', ssl: 'disable' }),
		).toMatchObject({ ssl: false });
	});
});
