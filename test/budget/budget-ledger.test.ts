import { BudgetInputError, MemoryBudgetLedger, type BudgetLedger } from '../../src/budget/ledger';
import { budgetKey, RedisBudgetLedger } from '../../src/budget/redis-ledger';
import { RedisError } from '../../src/redis/errors';
import { freeLoopbackPort, useTestRedis } from '../support/redis';

/** Issue #17 §2: the ledger shared budgets are counted in, per scope and period, atomic across connections. */

const redis = useTestRedis();
let clock = Date.UTC(2026, 10, 25, 12, 0, 0);
const now = () => clock;
const opened: BudgetLedger[] = [];
afterEach(async () => {
	await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
});

const ledgers: Array<[string, (prefix: string) => BudgetLedger]> = [
	[
		'Redis',
		(keyPrefix) => new RedisBudgetLedger({ connection: { url: redis.url }, keyPrefix, now }),
	],
	['memory', () => new MemoryBudgetLedger(now)],
];

describe.each(ledgers)('%s budget ledger', (_kind, create) => {
	const open = (prefix: string) => {
		const ledger = create(prefix);
		opened.push(ledger);
		return ledger;
	};

	it('adds tokens and cost per scope, and reads zeros for a scope nothing was charged to', async () => {
		const ledger = open(redis.keyPrefix('sum'));
		expect(await ledger.totals('team-a', 3600)).toEqual({ tokens: 0, cost: 0 });
		await ledger.charge('team-a', 3600, { tokens: 120, cost: 0.0015 });
		expect(await ledger.charge('team-a', 3600, { tokens: 30, cost: 0.0005 })).toEqual({
			tokens: 150,
			cost: 0.002,
		});
		expect(await ledger.totals('team-a', 3600)).toEqual({ tokens: 150, cost: 0.002 });
		expect(await ledger.totals('team-b', 3600)).toEqual({ tokens: 0, cost: 0 });
	});

	it('starts the next period from zero', async () => {
		const ledger = open(redis.keyPrefix('period'));
		await ledger.charge('scope', 60, { tokens: 500 });
		clock += 60_000;
		expect(await ledger.totals('scope', 60)).toEqual({ tokens: 0, cost: 0 });
		clock -= 60_000;
	});

	it('refuses a bad scope, period or charge, naming the field', async () => {
		const ledger = open(redis.keyPrefix('input'));
		await expect(ledger.totals('', 60)).rejects.toMatchObject({ field: 'shared_budget.scope' });
		await expect(ledger.totals('s', 0)).rejects.toMatchObject({
			field: 'shared_budget.period_seconds',
		});
		await expect(ledger.charge('s', 60, { tokens: -1 })).rejects.toBeInstanceOf(BudgetInputError);
	});
});

describe('Redis budget ledger across connections', () => {
	it('eight concurrent charges from eight connections add up exactly', async () => {
		const prefix = redis.keyPrefix('concurrent');
		const ledgers = Array.from(
			{ length: 8 },
			() => new RedisBudgetLedger({ connection: { url: redis.url }, keyPrefix: prefix, now }),
		);
		opened.push(...ledgers);
		await Promise.all(
			ledgers.flatMap((ledger) =>
				Array.from({ length: 25 }, (_, index) =>
					ledger.charge('shared', 3600, { tokens: index + 1, cost: 0.25 }),
				),
			),
		);
		expect(await ledgers[0].totals('shared', 3600)).toEqual({
			tokens: 8 * ((25 * 26) / 2),
			cost: 8 * 25 * 0.25,
		});
	});

	it('keeps one key per scope and period, hash-tagged for Redis Cluster, expiring at the period end plus a minute', async () => {
		const prefix = redis.keyPrefix('key');
		const ledger = new RedisBudgetLedger({
			connection: { url: redis.url },
			keyPrefix: prefix,
			now: () => Date.now(),
		});
		opened.push(ledger);
		await ledger.charge('workflow-7', 3600, { tokens: 10 });
		const key = budgetKey(prefix, 'workflow-7', 3600, Date.now());
		expect(key).toBe(`${prefix}{workflow-7:3600:${Math.floor(Date.now() / 3_600_000) * 3600}}`);
		expect(await redis.admin.hgetall(key)).toEqual({ tokens: '10', cost: '0' });
		const ttl = await redis.admin.ttl(key);
		expect(ttl).toBeGreaterThan(60);
		expect(ttl).toBeLessThanOrEqual(3600 + 60);
	});

	it('fails with the clear Redis error naming the address when Redis is unreachable, without hanging', async () => {
		const port = await freeLoopbackPort();
		const ledger = new RedisBudgetLedger({
			connection: { url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 500 },
		});
		opened.push(ledger);
		const failure = await ledger.totals('scope', 60).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(RedisError);
		expect((failure as Error).message).toMatch(new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} `));
	});
});
