import { MemoryContextStore, RedisContextStore } from '../../src/context';
import { exchange, PERSIST, WINDOW } from '../support/context';
import { startCanary, useLoopbackGuard, type TestServer } from '../support/servers/http-servers';
import { expectNearMiss, refusalOf } from '../support/option-refusal';
import { useTestRedis } from '../support/redis';

/**
 * Issue #48: Agent Context's stores took a misspelt option as absent: `new RedisContextStore({ connection,
 * keyprefix })` stored every session outside the namespace it was given. Refused before anything connects.
 */
describe('the context stores refuse an option they do not know, before they connect', () => {
	useLoopbackGuard();
	const redis = useTestRedis();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));

	it('RedisContextStore with keyprefix; spelt right, the session is stored under that prefix', async () => {
		const error = await refusalOf(async () => {
			const connection = { url: `redis://127.0.0.1:${canary.port}`, connectTimeoutMs: 300 };
			const store = new RedisContextStore({ connection, keyprefix: 'tenant-b:' } as never);
			await store.persist('alice', exchange(1), PERSIST).finally(() => store.close());
		});
		expectNearMiss(error, 'RedisContextStore', 'keyprefix', 'keyPrefix');

		const keyPrefix = redis.keyPrefix('context-options');
		const store = new RedisContextStore({ connection: { url: redis.url }, keyPrefix });
		await store.persist('alice', exchange(1), PERSIST).finally(() => store.close());
		const [, keys] = await redis.admin.scan('0', 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
		expect(keys.length).toBeGreaterThan(0);
	});

	it('MemoryContextStore with maxSession: refused, where it was the default 10,000 sessions', async () => {
		const error = await refusalOf(() => new MemoryContextStore({ maxSession: 1 } as never));
		expectNearMiss(error, 'MemoryContextStore', 'maxSession', 'maxSessions');
		// Spelt right, the cap holds: a second session pushes the first one out.
		const store = new MemoryContextStore({ maxSessions: 1 });
		await store.persist('alice', exchange(1), PERSIST);
		await store.persist('bob', exchange(1), PERSIST);
		expect((await store.prepare('alice', WINDOW)).storedTurns).toBe(0);
	});
});
