import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { budgetKey } from '../../../../src/budget/redis-ledger';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { deleteKeysByPrefix, redisCredentialData, useTestRedis } from '../../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

/** Issue #17 in n8n's engine: Limits → Shared Token Budget on the Agent Core: Redis API credential, and the loop breaker. */
describe('Agent Core shared budget in n8n’s engine', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	const scope = `node-budget-${process.pid}-${Date.now()}`;
	afterEach(() => deleteKeysByPrefix(redis.admin, `agent_core:budget:${scope}`));
	const usage = { prompt_tokens: 60, completion_tokens: 40 };

	const run = (
		items: IDataObject[],
		parameters: INodeParameters,
		withRedis = true,
		typeVersion = 1,
	) => {
		return runWorkflow({
			nodes: [
				createInputNode(items),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion,
					parameters: { model: { __rl: true, mode: 'id', value: 'm' }, ...parameters },
					settings: {
						credentials: {
							agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
							...(withRedis ? { agentCoreRedisApi: { id: '3', name: 'Redis' } } : {}),
						},
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				agentCoreRedisApi: redisCredentialData(redis.url),
			},
		});
	};

	it('charges every item to the scope in Redis and ends the item that finds it spent, without a model call', async () => {
		server().setScript(() => ({ text: final('ok'), usage }));
		const limits = {
			sharedBudgetTokens: 200,
			sharedBudgetScope: `={{ "${scope}-" + $json.team }}`,
			sharedBudgetPeriod: 3600,
		};
		const result = await run(
			[
				{ prompt: 'a', team: 'x' },
				{ prompt: 'b', team: 'x' },
				{ prompt: 'c', team: 'x' },
				{ prompt: 'd', team: 'y' },
			],
			{ limits },
		);
		const reasons = result.outputOf('Agent Core').map((item) => item.json.finish_reason);
		expect(reasons).toEqual(['final', 'final', 'budget_exhausted', 'final']);
		expect(server().requests).toHaveLength(3);
		expect(
			await redis.admin.hget(
				budgetKey('agent_core:budget:', `${scope}-x`, 3600, Date.now()),
				'tokens',
			),
		).toBe('200');
	});

	it('names the missing Redis credential when a shared budget is set without one', async () => {
		const result = await run([{ prompt: 'a' }], { limits: { sharedBudgetTokens: 10 } }, false);
		expect(result.errorOf('Agent Core')?.message).toBe(
			'A shared budget (Limits → Shared Token Budget) needs the Agent Core: Redis API credential, and none is selected',
		);
		expect(server().requests).toHaveLength(0);
	});

	it('names the missing Redis credential when the Redis Context tool is allowed without one', async () => {
		server().setScript([action('redis_context', { operation: 'list' })]);
		const result = await run(
			[{ prompt: 'a', session_id: 's' }],
			{ allowedTools: ['redis_context'] },
			false,
		);
		expect(result.errorOf('Agent Core')?.message).toBe(
			'The Redis Context tool needs the Agent Core: Redis API credential, and none is selected',
		);
	});

	it('version 2: Governance → Budgets → Max Cost per Run ends the item cost_limit, and Shared Cost Budget is charged the catalogue cost in Redis', async () => {
		server().setScript(() => ({
			text: action('json_transform', { data: [1], expression: 'length(@)' }),
			usage: { prompt_tokens: 50_000, completion_tokens: 1_000 },
		}));
		const model = { __rl: true, mode: 'list', value: 'gpt-4o-mini' };
		const budgets = {
			maxCost: 0.01,
			sharedBudgetCost: 5,
			sharedBudgetScope: `${scope}-cost`,
			sharedBudgetPeriod: 3600,
		};
		const result = await run(
			[{ prompt: 'a' }],
			{ provider: 'openai', model, allowedTools: ['json_transform'], governance: true, budgets },
			true,
			2,
		);
		const [item] = result.outputOf('Agent Core');
		// gpt-4o-mini: 50,000 × 0.15 + 1,000 × 0.6 per million = 0.0081 USD a call: the second call passes 0.01.
		expect(item.json).toMatchObject({ finish_reason: 'cost_limit', cost: 0.0162 });
		expect(server().requests).toHaveLength(2);
		expect(
			Number(
				await redis.admin.hget(
					budgetKey('agent_core:budget:', `${scope}-cost`, 3600, Date.now()),
					'cost',
				),
			),
		).toBeCloseTo(0.0162, 6);
	});

	it('version 2: a Shared Cost Budget an expression made Infinity is refused naming shared_budget.cost, with no model call (issue #38)', async () => {
		server().setScript(() => ({
			text: final('never asked'),
			usage: { prompt_tokens: 1, completion_tokens: 1 },
		}));
		const model = { __rl: true, mode: 'list', value: 'gpt-4o-mini' };
		const budgets = {
			sharedBudgetCost: '={{ 1 / 0 }}',
			sharedBudgetScope: `${scope}-infinite`,
			sharedBudgetPeriod: 3600,
		};
		const result = await run(
			[{ prompt: 'a' }],
			{ provider: 'openai', model, governance: true, budgets },
			true,
			2,
		);
		expect(result.errorOf('Agent Core')?.message).toMatch(
			/^shared_budget\.cost: Infinity is not a finite number/,
		);
		expect(server().requests).toHaveLength(0);
	});
});
