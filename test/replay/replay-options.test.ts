import {
	auditSinkFor,
	closeAuditSinks,
	counterfactualReplay,
	createChatModel,
	forkAuditedRun,
	InputError,
	recordedTools,
	replayRecord,
	runAgent,
	type AuditRecord,
} from '../../src/index';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import {
	PRIVATE_ALLOWED,
	startCanary,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';
import { useTestDatabase } from '../support/postgres';

/**
 * Issue #48, the replay room: replayRecord, counterfactualReplay, forkAuditedRun and recordedTools refuse an
 * option they do not know, naming it, before any model (a canary here) is asked or any tool runs.
 */
describe('replay and fork refuse an option they do not know', () => {
	useLoopbackGuard();
	const server = useScriptedServer();
	const database = useTestDatabase();
	let canary: TestServer;
	let shop: TestServer;
	let record: AuditRecord;
	beforeEach(async () => {
		canary = await startCanary();
		shop = await startServer((_, response) => response.end('open 9-17'));
		server().setScript([action('http_request', { url: `${shop.url}/hours` }), final('9-17')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['http_request'],
				tool_settings: { http_request: PRIVATE_ALLOWED },
			},
			prompt: 'when are you open?',
			audit: { postgres: database().url },
		});
		expect(result.audit?.stored).toBe(true);
		record = (await auditSinkFor(database().url).read(result.audit!.run_id))!;
		shop.requests.length = 0;
	});
	afterEach(async () => {
		expect(canary.connections).toBe(0);
		expect(shop.requests).toHaveLength(0);
		await closeAuditSinks();
	});
	const canaryModel = () =>
		createChatModel({ provider: 'openai', apiKey: 'k', baseUrl: canary.url, maxRetries: 0 });

	it('replayRecord with unverifed: refused naming unverified', async () => {
		const replay = replayRecord(record, { unverifed: true } as never);
		await expect(replay).rejects.toBeInstanceOf(InputError);
		await expect(replay).rejects.toMatchObject({
			field: 'unverifed',
			message:
				'replayRecord: unknown option "unverifed" (did you mean "unverified"?); known options: unverified',
		});
	});

	it('counterfactualReplay with runReadonly: refused before the candidate is asked', async () => {
		const replay = counterfactualReplay(record, {
			model: canaryModel(),
			runReadonly: true,
		} as never);
		await expect(replay).rejects.toBeInstanceOf(InputError);
		await expect(replay).rejects.toMatchObject({
			field: 'runReadonly',
			fix: 'Rename runReadonly to runReadOnly.',
		});
	});

	it('forkAuditedRun with observaton: refused before the model goes on or a tool runs', async () => {
		const fork = forkAuditedRun({
			record,
			step: 1,
			model: canaryModel(),
			observaton: 'closed',
		} as never);
		await expect(fork).rejects.toBeInstanceOf(InputError);
		await expect(fork).rejects.toMatchObject({
			field: 'observaton',
			fix: 'Rename observaton to observation.',
		});
	});

	it('recordedTools with realtools: refused', () => {
		expect(() =>
			recordedTools({
				record,
				mode: { kind: 'fork', step: 1 },
				currentTurn: () => 1,
				realtools: [],
			} as never),
		).toThrow(
			expect.objectContaining({
				name: 'InputError',
				field: 'realtools',
				fix: 'Rename realtools to realTools.',
			}),
		);
	});
});
