// Data a single Redis holds in the key layout before Redis Cluster support (no hash tags) is read, and moved, by the new code.
import { budgetKey, legacyBudgetKey, RedisBudgetLedger } from '../../src/budget/redis-ledger';
import {
	legacyRedisSessionKeys,
	RedisContextStore,
	redisSessionKeys,
} from '../../src/context/redis/redis-store';
import { RedisUsedStates } from '../../src/run-state/used-states';
import {
	legacySessionNamespace,
	redisContextTool,
	sessionNamespace,
	type RedisContextArgs,
} from '../../src/tools/redis-context';
import { exchange, PERSIST, WINDOW } from '../support/context';
import { useTestRedis } from '../support/redis';

const redis = useTestRedis();
const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
	await Promise.all(closing.splice(0).map((owner) => owner.close()));
});

function owned<T extends { close(): Promise<void> }>(owner: T): T {
	closing.push(owner);
	return owner;
}

const questions = (turns: Array<{ messages: Array<{ content: string }> }>) =>
	turns.map((turn) => turn.messages[0].content);

describe('conversations in the old layout', () => {
	it('are read and moved into the new layout on first touch, with their expiry, then grow as usual', async () => {
		const keyPrefix = redis.keyPrefix('legacy-chat');
		const old = legacyRedisSessionKeys(keyPrefix, 'agent_core:ctx:ada')!;
		expect(old).toEqual({
			turns: `${keyPrefix}agent_core:ctx:ada:turns`,
			system: `${keyPrefix}agent_core:ctx:ada:system`,
		});
		await redis.admin.rpush(old.turns, JSON.stringify(exchange(1)), JSON.stringify(exchange(2)));
		await redis.admin.set(old.system, 'Be brief.');
		await redis.admin.expire(old.turns, 900);
		await redis.admin.expire(old.system, 900);

		const store = owned(new RedisContextStore({ connection: { url: redis.url }, keyPrefix }));
		const prepared = await store.prepare('agent_core:ctx:ada', WINDOW);
		expect(prepared).toMatchObject({ turns: 2, storedTurns: 2 });
		expect(prepared.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
		const moved = redisSessionKeys(keyPrefix, 'agent_core:ctx:ada');
		expect(await redis.admin.exists(old.turns, old.system)).toBe(0);
		expect(await redis.admin.ttl(moved.turns)).toBeGreaterThan(890);
		expect(await redis.admin.get(moved.system)).toBe('Be brief.');

		await store.persist('agent_core:ctx:ada', exchange(3), PERSIST);
		expect(questions((await store.get('agent_core:ctx:ada')).turns)).toEqual([
			'question 1',
			'question 2',
			'question 3',
		]);
	});

	it('written by an old process after the upgrade are folded in before the new turns, and clear removes both layouts', async () => {
		const keyPrefix = redis.keyPrefix('legacy-mixed');
		const store = owned(new RedisContextStore({ connection: { url: redis.url }, keyPrefix }));
		await store.persist('chat', exchange('new'), { ...PERSIST, systemMessage: 'new system' });
		const old = legacyRedisSessionKeys(keyPrefix, 'chat')!;
		await redis.admin.rpush(old.turns, JSON.stringify(exchange('old')));
		await redis.admin.set(old.system, 'old system');

		const snapshot = await store.get('chat');
		expect(questions(snapshot.turns)).toEqual(['question old', 'question new']);
		expect(snapshot.systemMessage).toBe('new system');
		expect(await redis.admin.exists(old.turns, old.system)).toBe(0);

		await redis.admin.rpush(old.turns, JSON.stringify(exchange('late')));
		expect(await store.clear('chat')).toEqual({ deleted: true });
		expect(
			await redis.admin.exists(old.turns, ...Object.values(redisSessionKeys(keyPrefix, 'chat'))),
		).toBe(0);
	});

	it('never hands one session the keys of another whose new-layout key looks like an old one', async () => {
		const keyPrefix = redis.keyPrefix('legacy-shape');
		const store = owned(new RedisContextStore({ connection: { url: redis.url }, keyPrefix }));
		await store.persist('abc', exchange('abc'), PERSIST);
		// Session "{abc}" in the old layout would be "<prefix>{abc}:turns": session "abc"'s key in the new one.
		expect(legacyRedisSessionKeys(keyPrefix, '{abc}')).toBeUndefined();
		expect((await store.get('{abc}')).turns).toEqual([]);
		expect(questions((await store.get('abc')).turns)).toEqual(['question abc']);
	});
});

describe('shared budgets in the old layout', () => {
	it('count in full: the old ledger is added into the new one on first touch, also when an old process charged it after', async () => {
		const keyPrefix = redis.keyPrefix('legacy-budget');
		const old = legacyBudgetKey(keyPrefix, 'team', 3600, Date.now());
		expect(old).toBe(`${keyPrefix}team:3600:${Math.floor(Date.now() / 3_600_000) * 3600}`);
		await redis.admin.hset(old, { tokens: '1000', cost: '0.25' });
		await redis.admin.expire(old, 3000);

		const ledger = owned(new RedisBudgetLedger({ connection: { url: redis.url }, keyPrefix }));
		expect(await ledger.totals('team', 3600)).toEqual({ tokens: 1000, cost: 0.25 });
		expect(await redis.admin.exists(old)).toBe(0);
		expect(await redis.admin.ttl(budgetKey(keyPrefix, 'team', 3600, Date.now()))).toBeGreaterThan(
			2990,
		);
		expect(await ledger.charge('team', 3600, { tokens: 5, cost: 0.01 })).toEqual({
			tokens: 1005,
			cost: 0.26,
		});

		await redis.admin.hincrby(old, 'tokens', 20); // an old worker, still running during the upgrade
		expect(await ledger.charge('team', 3600, { tokens: 5 })).toEqual({ tokens: 1030, cost: 0.26 });
	});
});

describe('used run states in the old layout', () => {
	it('stay refused: the layout of one key per state is unchanged', async () => {
		const keyPrefix = redis.keyPrefix('legacy-used');
		await redis.admin.set(`${keyPrefix}state-1`, '1', 'EX', 600); // as the old SET NX wrote it
		const used = owned(new RedisUsedStates({ connection: { url: redis.url }, keyPrefix }));
		expect(await used.markUsed('state-1', 600)).toBe(false);
		expect(await used.markUsed('state-2', 600)).toBe(true);
		expect(await used.markUsed('state-2', 600)).toBe(false);
	});
});

describe('redis_context values in the old layout', () => {
	async function call(args: Record<string, unknown>, keyPrefix: string): Promise<string> {
		const settings = { redis_url: redis.url, key_prefix: keyPrefix };
		return (await redisContextTool.execute(args as unknown as RedisContextArgs, {
			signal: new AbortController().signal,
			settings,
			sessionId: 'tenant:42',
		})) as string;
	}

	it("are listed, read and kept, moved into the session's new namespace with their expiry", async () => {
		const keyPrefix = redis.keyPrefix('legacy-kv');
		const old = legacySessionNamespace(keyPrefix, 'tenant:42');
		expect(old).toBe(`${keyPrefix}tenant%3A42:`);
		await redis.admin.set(`${old}city`, 'Zürich', 'EX', 700);
		await redis.admin.set(`${old}notes`, 'one', 'EX', 700);
		await redis.admin.sadd(`${old}#index`, 'city', 'notes', 'gone');
		await redis.admin.expire(`${old}#index`, 700);

		expect(await call({ operation: 'list' }, keyPrefix)).toBe('["city","notes"]');
		const moved = sessionNamespace(keyPrefix, 'tenant:42');
		expect(await redis.admin.exists(`${old}city`, `${old}notes`, `${old}#index`)).toBe(0);
		expect(await redis.admin.ttl(`${moved}city`)).toBeGreaterThan(690);
		expect(await redis.admin.ttl(`${moved}#index`)).toBeGreaterThan(690);
		expect(await call({ operation: 'get', key: 'city' }, keyPrefix)).toBe('Zürich');
		expect(await call({ operation: 'append', key: 'notes', value: ',two' }, keyPrefix)).toContain(
			'now 7 bytes',
		);
	});
});
