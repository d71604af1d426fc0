import type { IExecuteFunctions } from 'n8n-workflow';
import { ExecutionRedis } from '../../../../nodes/AgentCore/execute/governance/execution-redis';
import { VERSION_1_PANEL } from '../../../../nodes/AgentCore/V1/panel';
import { VERSION_2_PANEL } from '../../../../nodes/AgentCore/V2/panel';

/** The node's one Redis owner per execution (issue #28): the credential read once, what it opens closed together. */
function fakeContext(options: { withCredential: boolean; typeVersion?: number }) {
	const reads: Array<{ type: string; itemIndex?: number }> = [];
	const context = {
		getNode: () => ({
			name: 'Agent Core',
			typeVersion: options.typeVersion ?? 2,
			credentials: options.withCredential ? { agentCoreRedisApi: { id: '3', name: 'Redis' } } : {},
		}),
		getCredentials: async (type: string, itemIndex?: number) => {
			reads.push({ type, itemIndex });
			return { host: '127.0.0.1', port: 6379, database: 0 };
		},
	} as unknown as IExecuteFunctions;
	return { context, reads };
}

describe('ExecutionRedis', () => {
	it('reads the Redis credential once for the ledger, the used-state registry and the Redis Context tool of every item', async () => {
		const { context, reads } = fakeContext({ withCredential: true });
		const redis = new ExecutionRedis(context, VERSION_2_PANEL);
		const ledgers = [
			await redis.budgetLedger(0),
			await redis.budgetLedger(1),
			await redis.budgetLedger(2),
		];
		const registries = [await redis.usedStateRegistry(0), await redis.usedStateRegistry(2)];
		const connection = await redis.connectionFor(1, 'The Redis Context tool');
		expect(reads).toEqual([{ type: 'agentCoreRedisApi', itemIndex: 0 }]);
		expect(new Set(ledgers).size).toBe(1);
		expect(new Set(registries).size).toBe(1);
		expect(registries[0]).toBeDefined();
		expect(connection).toMatchObject({ host: '127.0.0.1', port: 6379, db: 0 });
		await redis.close();
	});

	it('without a credential: no registry (resuming is then not guarded), and each use that needs Redis names itself and where the picker is', async () => {
		const { context, reads } = fakeContext({ withCredential: false });
		const redis = new ExecutionRedis(context, VERSION_2_PANEL);
		expect(await redis.usedStateRegistry(0)).toBeUndefined();
		await expect(redis.budgetLedger(0)).rejects.toThrow(
			'A shared budget (Limits → Shared Token Budget) needs a credential in "Redis for Shared Budgets, Durable Runs and the Redis Context Tool" (under Governance), and none is selected',
		);
		expect(() => redis.connectionFor(0, 'The Redis Context tool')).toThrow(
			expect.objectContaining({
				description: expect.stringContaining('Turn on Governance and select'),
			}),
		);
		expect(() =>
			new ExecutionRedis(
				fakeContext({ withCredential: false, typeVersion: 1 }).context,
				VERSION_1_PANEL,
			).connectionFor(0, 'X'),
		).toThrow(
			expect.objectContaining({
				description: 'Select an "Agent Core: Redis API" credential on the node.',
			}),
		);
		expect(reads).toEqual([]);
		await redis.close();
	});
});
