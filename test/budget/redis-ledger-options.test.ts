import { budgetKey, RedisBudgetLedger } from '../../src/index';
import { startCanary, useLoopbackGuard, type TestServer } from '../support/servers/http-servers';
import { expectNearMiss, refusalOf } from '../support/option-refusal';
import { useTestRedis } from '../support/redis';

/**
 * Issue #48: `new RedisBudgetLedger({ connection, keyprefix })` charged the default prefix's ledger, shared with
 * every other team. Now it is refused before anything connects: the connection is a canary that must stay untouched.
 */
describe('RedisBudgetLedger refuses an option it does not know, before it connects', () => {
	useLoopbackGuard();
	const redis = useTestRedis();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));

	it('keyprefix: an InputError naming it and keyPrefix; spelt right, the ledger is kept under that prefix', async () => {
		const canaryConnection = { url: `redis://127.0.0.1:${canary.port}`, connectTimeoutMs: 300 };
		const error = await refusalOf(async () => {
			const options = { connection: canaryConnection, keyprefix: 'team-a:' };
			const ledger = new RedisBudgetLedger(options as never);
			await ledger.charge('scope', 3600, { tokens: 1 }).finally(() => ledger.close());
		});
		expectNearMiss(error, 'RedisBudgetLedger', 'keyprefix', 'keyPrefix');

		const keyPrefix = redis.keyPrefix('ledger-options');
		const ledger = new RedisBudgetLedger({ connection: { url: redis.url }, keyPrefix });
		await ledger.charge('scope', 3600, { tokens: 7 }).finally(() => ledger.close());
		const key = budgetKey(keyPrefix, 'scope', 3600, Date.now());
		expect(await redis.admin.hget(key, 'tokens')).toBe('7');
	});
});
