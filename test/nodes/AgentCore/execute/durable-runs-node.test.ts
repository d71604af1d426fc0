import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { RUN_KEY_DEFAULT } from '../../../../nodes/AgentCore/V2/durable-run-properties';
import { action, final, useScriptedServer } from '../../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../../support/servers/http-servers';
import { engineInstanceId, runWorkflow } from '../../../support/n8n-engine';
import { deleteKeysByPrefix, redisCredentialData, useTestRedis } from '../../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

useLoopbackGuard();

/** The harness's workflow id (test/support/n8n-engine.ts): every run of it is execution "1", as a job n8n 1.x re-processes keeps its id. */
const WORKFLOW_ID = 'test-workflow';
const CHECKPOINTS = `agent_core:checkpoint:{${WORKFLOW_ID}:`;
/** The key of a run key given in the panel: kept per workflow, node and n8n setup (the first 16 hex digits of its instance id). */
const keyOf = (node: string, runKey: string) =>
	`${CHECKPOINTS}${node}:${runKey}@${engineInstanceId().slice(0, 16)}}`;
const SIGNING_SECRET = 'node-durable-secret-0123456789';
const API_KEY = 'sk-durable-node-key-5Rq8Tz1Wn6Vb';

/** Issue #30 in n8n's engine: Governance → Durable Runs checkpoints each step in Redis under the Run Key, and a run started again goes on. */
describe('Agent Core durable runs in n8n’s engine', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	let orders: TestServer;
	beforeEach(async () => {
		orders = await startServer((request, response) =>
			sendJson(response, { order: 4711, key: request.headers['idempotency-key'] ?? null }),
		);
	});
	afterEach(() => deleteKeysByPrefix(redis.admin, CHECKPOINTS));

	const durable: INodeParameters = {
		provider: 'openai',
		model: { __rl: true, mode: 'id', value: 'm' },
		allowedTools: ['http_request'],
		governance: true,
		durableRuns: true,
		runKey: RUN_KEY_DEFAULT,
		options: {
			toolSettingsJson: JSON.stringify({ http_request: PRIVATE_ALLOWED }),
			onModelError: 'returnItem',
		},
	};
	const ALL_CREDENTIALS = {
		agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
		agentCoreRedisApi: { id: '3', name: 'Redis' },
		agentCoreRunStateApi: { id: '4', name: 'Run State' },
	};

	const run = (
		items: IDataObject[],
		parameters: INodeParameters = {},
		options: { name?: string; credentials?: Partial<typeof ALL_CREDENTIALS> } = {},
	) => {
		const name = options.name ?? 'Agent Core';
		return runWorkflow({
			nodes: [
				createInputNode(items),
				createNode({
					name,
					type: 'agentCore',
					typeVersion: 2,
					parameters: { ...durable, ...parameters },
					settings: { credentials: options.credentials ?? ALL_CREDENTIALS },
				}),
			],
			connections: connectInSequence('Input', name),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: API_KEY, url: server().openaiBaseUrl },
				agentCoreRunStateApi: { signingSecret: SIGNING_SECRET },
				agentCoreRedisApi: redisCredentialData(redis.url),
			},
		});
	};

	const ORDER = () =>
		action('http_request', { url: `${orders.url}/orders`, method: 'POST', body: { book: 'Dune' } });
	/** Model calls whose conversation holds `observations` tool results: which step of the run the model was asked for. */
	const askedForStep = (from: number, observations: number) =>
		server()
			.requests.slice(from)
			.filter(
				(request) => JSON.stringify(request.body).split('Observation').length - 1 === observations,
			).length;

	/** The first attempt: step 1 orders, then the model's endpoint fails (500s), so the run ends llm_error after a checkpointed step 1. */
	async function firstAttemptFailsAfterTheOrder(
		items: IDataObject[],
		parameters: INodeParameters = {},
	) {
		server().setScript([ORDER()]);
		const first = await run(items, parameters);
		expect(first.outputOf('Agent Core')[0].json).toMatchObject({ finish_reason: 'llm_error' });
		expect(orders.requests).toHaveLength(1);
		return first;
	}

	it('the same execution run again goes on after step 1: the order is not sent again and the model is not asked for step 1 again', async () => {
		await firstAttemptFailsAfterTheOrder([{ prompt: 'Order Dune.' }]);
		const before = server().requests.length;
		server().setScript([final('Ordered: 4711.')]);

		const second = await run([{ prompt: 'Order Dune.' }]);

		const [item] = second.outputOf('Agent Core');
		expect(item.json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Ordered: 4711.',
			used_tools: { http_request: expect.objectContaining({ count: 1 }) },
		});
		expect(item.json.trace).toHaveLength(2);
		expect(orders.requests).toHaveLength(1);
		expect(server().requests.length - before).toBe(1);
		expect(askedForStep(before, 0)).toBe(0);
	});

	it("a finished run's execution run again returns the same answer without asking the model", async () => {
		server().setScript([ORDER(), final('Ordered: 4711.')]);
		const first = await run([{ prompt: 'Order Dune.' }]);
		const before = server().requests.length;

		const again = await run([{ prompt: 'Order Dune.' }]);

		expect(again.outputOf('Agent Core')[0].json).toEqual(first.outputOf('Agent Core')[0].json);
		expect(server().requests.length).toBe(before);
		expect(orders.requests).toHaveLength(1);
	});

	it('a Run Key from the request finds the checkpoint from another execution, as a retry in n8n 2.x needs', async () => {
		// What a retry brings: the same request (its Idempotency-Key header), the node's run in another execution.
		const runKey = '={{ $json.headers["idempotency-key"] }}';
		const request = { prompt: 'Order Dune.', headers: { 'idempotency-key': 'order-req-81f3' } };
		await firstAttemptFailsAfterTheOrder([request], { runKey });
		server().setScript([final('Ordered: 4711.')]);

		const retried = await run([request], { runKey });

		expect(retried.outputOf('Agent Core')[0].json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Ordered: 4711.',
		});
		expect(orders.requests).toHaveLength(1);
		expect(await redis.admin.exists(keyOf('Agent Core', 'order-req-81f3'))).toBe(1);
	});

	it("the default Run Key takes the request's Idempotency-Key header, so a caller's retry in n8n 2.x (a new execution) finds the run (issue #41)", async () => {
		const request = { prompt: 'Order Dune.', headers: { 'idempotency-key': 'order-req-default' } };
		await firstAttemptFailsAfterTheOrder([request]);
		server().setScript([final('Ordered: 4711.')]);

		const retried = await run([request]);

		expect(retried.outputOf('Agent Core')[0].json).toMatchObject({ finish_reason: 'final' });
		expect(orders.requests).toHaveLength(1);
		expect(await redis.admin.exists(keyOf('Agent Core', 'order-req-default:0:0'))).toBe(1);
	});

	it('keeps one run per item and per node: two items are two runs, and a second node with the same Run Key is another run', async () => {
		server().setScript((request) =>
			JSON.stringify(request.body).includes('Observation') ? final('Ordered.') : ORDER(),
		);
		const first = await run([{ prompt: 'Order Dune.' }, { prompt: 'Order Emma.' }], {
			runKey: '=fixed-key-{{ $itemIndex }}',
		});
		expect(first.outputOf('Agent Core').map((item) => item.json.finish_reason)).toEqual([
			'final',
			'final',
		]);
		const other = await run(
			[{ prompt: 'Order Dune.' }],
			{ runKey: 'fixed-key-0' },
			{ name: 'Agent Core Copy' },
		);

		expect(other.outputOf('Agent Core Copy')[0].json.finish_reason).toBe('final');
		expect(orders.requests).toHaveLength(3);
		expect((await redis.admin.keys(`${CHECKPOINTS}*`)).sort()).toEqual([
			keyOf('Agent Core Copy', 'fixed-key-0'),
			keyOf('Agent Core', 'fixed-key-0'),
			keyOf('Agent Core', 'fixed-key-1'),
		]);
	});

	it('holds no secret in clear in Redis: not the API key, the signing secret, nor the token in the prompt', async () => {
		const token = 'tok_live_9Qx2Lm7Rv4Ks';
		await firstAttemptFailsAfterTheOrder([{ prompt: `Order Dune with coupon token ${token}.` }]);
		const [key] = await redis.admin.keys(`${CHECKPOINTS}*`);
		const stored = JSON.stringify(await redis.admin.hgetall(key));

		expect(stored.length).toBeGreaterThan(500);
		for (const secret of [API_KEY, SIGNING_SECRET, token]) expect(stored).not.toContain(secret);
	});

	it('sends the order with an Idempotency-Key, a UUID-shaped HMAC of the run, the step and the call', async () => {
		server().setScript([ORDER(), final('Ordered.')]);
		await run([{ prompt: 'Order Dune.' }]);
		expect(orders.requests[0].headers['idempotency-key']).toMatch(
			/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
		);
	});

	it('refuses a request that is not the one the run key was kept for, naming the run key, without asking the model', async () => {
		await firstAttemptFailsAfterTheOrder([{ prompt: 'Order Dune.' }]);
		const before = server().requests.length;

		const other = await run([{ prompt: 'Order Emma instead.' }]);

		expect(other.errorOf('Agent Core')?.message).toMatch(
			/run key ".*Agent Core:1:0:0@[0-9a-f]{16}"/,
		);
		expect(server().requests.length).toBe(before);
		expect(orders.requests).toHaveLength(1);
	});

	describe('settings', () => {
		it('writes nothing to Redis while Durable Runs is off, or on while Governance is off', async () => {
			server().setScript((request) =>
				JSON.stringify(request.body).includes('Observation') ? final('Ordered.') : ORDER(),
			);
			await run([{ prompt: 'Order Dune.' }], { durableRuns: false });
			await run([{ prompt: 'Order Dune.' }], { governance: false });

			expect(await redis.admin.keys(`${CHECKPOINTS}*`)).toEqual([]);
			expect(orders.requests).toHaveLength(2);
			expect(orders.requests.map((request) => request.headers['idempotency-key'])).toEqual([
				undefined,
				undefined,
			]);
		});

		it('without the Redis credential, the error names it and where to find it; nothing is sent', async () => {
			const result = await run(
				[{ prompt: 'Order Dune.' }],
				{},
				{
					credentials: {
						agentCoreOpenAiApi: ALL_CREDENTIALS.agentCoreOpenAiApi,
						agentCoreRunStateApi: ALL_CREDENTIALS.agentCoreRunStateApi,
					},
				},
			);
			const error = result.errorOf('Agent Core') as Error & { description?: string };

			expect(error.message).toBe(
				'Durable Runs (Governance) needs a credential in "Redis for Shared Budgets, Durable Runs and the Redis Context Tool" (under Governance), and none is selected',
			);
			expect(error.description).toBe(
				'Turn on Governance and select an "Agent Core: Redis API" credential in "Redis for Shared Budgets, Durable Runs and the Redis Context Tool".',
			);
			expect(server().requests).toHaveLength(0);
		});

		it('without the Run State credential, the error says it signs and seals the checkpoints', async () => {
			const result = await run(
				[{ prompt: 'Order Dune.' }],
				{},
				{
					credentials: {
						agentCoreOpenAiApi: ALL_CREDENTIALS.agentCoreOpenAiApi,
						agentCoreRedisApi: ALL_CREDENTIALS.agentCoreRedisApi,
					},
				},
			);
			const error = result.errorOf('Agent Core') as Error & { description?: string };

			expect(error.message).toBe(
				'Durable Runs needs a credential in "Run State Secret (Signs Paused and Durable Runs)" (under Governance), and none is selected',
			);
			expect(error.description).toBe(
				'Turn on Governance and select an "Agent Core: Run State API" credential in "Run State Secret (Signs Paused and Durable Runs)": ' +
					"its signing secret signs and seals the run's state.",
			);
			expect(server().requests).toHaveLength(0);
		});

		it.each([
			['empty', '', 'Run Key is empty'],
			['only spaces', '   ', 'Run Key is empty'],
			['an object', '={{ {"a": 1} }}', 'Run Key is not text but object'],
		])('refuses a Run Key that is %s, saying what to set', async (_, runKey, message) => {
			const result = await run([{ prompt: 'Order Dune.' }], { runKey });
			const error = result.errorOf('Agent Core') as Error & { description?: string };

			expect(error.message).toBe(message);
			expect(error.description).toContain('$execution.id');
			expect(server().requests).toHaveLength(0);
		});

		it('refuses a Run Key over the length limit, naming it, before any model call', async () => {
			const result = await run([{ prompt: 'Order Dune.' }], { runKey: 'k'.repeat(1100) });
			expect(result.errorOf('Agent Core')?.message).toMatch(
				/^runKey must be text of 1 to 1024 characters/,
			);
			expect(server().requests).toHaveLength(0);
		});

		it('Require Approval without the Run State credential names it instead of an error from inside n8n', async () => {
			const result = await run(
				[{ prompt: 'Order Dune.' }],
				{ durableRuns: false, needsApproval: true, approvalTools: ['http_request'] },
				{ credentials: { agentCoreOpenAiApi: ALL_CREDENTIALS.agentCoreOpenAiApi } },
			);
			expect(result.errorOf('Agent Core')?.message).toBe(
				'Require Approval needs a credential in "Run State Secret (Signs Paused and Durable Runs)" (under Governance), and none is selected',
			);
		});

		it("with Require Approval too, a paused run's execution run again returns the same pause, without asking the model", async () => {
			server().setScript([ORDER()]);
			const parameters = { needsApproval: true, approvalTools: ['http_request'] };
			const paused = await run([{ prompt: 'Order Dune.' }], parameters);
			const [waiting] = paused.outputOf('Agent Core', 1);
			expect(waiting.json).toMatchObject({
				finish_reason: 'awaiting_approval',
				pending_action: { tool: 'http_request' },
			});
			const before = server().requests.length;

			const again = await run([{ prompt: 'Order Dune.' }], parameters);

			expect(again.outputOf('Agent Core', 1)[0].json.run_state).toEqual(waiting.json.run_state);
			expect(server().requests.length).toBe(before);
			expect(orders.requests).toHaveLength(0);
		});
	});
});
