import { InputError, RedisUsedStates } from '../../src/index';
import { pingRedis, RedisContextStore } from '../../src/context';
import { startCanary, useLoopbackGuard, type TestServer } from '../support/servers/http-servers';
import { expectNearMiss, refusalOf } from '../support/option-refusal';
import { openTestClient, useTestRedis } from '../support/redis';

/**
 * Issue #48, the rules every Redis store shares (checkRedisStoreOptions): a misspelt connection field went to
 * 127.0.0.1:6379 unnoticed (`hots`), two sources were resolved by a rule the caller never saw, and no source at
 * all was a TypeError. Each is an InputError before anything connects: the Redis named is a canary.
 */
describe('a Redis source is refused when it is misspelt, doubled or missing, before anything connects', () => {
	useLoopbackGuard();
	const redis = useTestRedis();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));
	const canaryUrl = () => `redis://127.0.0.1:${canary.port}`;

	/** Builds a used-state registry with `options` and uses it: the error, whichever step threw it. */
	const used = (options: unknown) =>
		refusalOf(async () => {
			const states = new RedisUsedStates(options as never);
			await states.markUsed('state-1', 60).finally(() => states.close());
		});

	it('a misspelt connection field (hots, passwd) is refused, naming the field it meant', async () => {
		const connection = { host: '127.0.0.1', port: canary.port, connectTimeoutMs: 300 };
		const hots = await used({ connection: { ...connection, host: undefined, hots: '127.0.0.1' } });
		expectNearMiss(hots, 'RedisUsedStates connection', 'hots', 'host');
		const shared = { shared: { ...connection, passwd: 'secret' } };
		const passwd = await refusalOf(async () => {
			const store = new RedisContextStore(shared as never);
			await store.clear('alice').finally(() => store.close());
		});
		expectNearMiss(passwd, 'RedisContextStore shared', 'passwd', 'password');
		expect((passwd as Error).message).not.toContain('secret');
	});

	it('two sources (a client and a connection) or none are refused, saying to give one', async () => {
		const client = openTestClient(redis.url);
		try {
			const keyPrefix = redis.keyPrefix('two-sources');
			const both = await used({ client, connection: { url: canaryUrl() }, keyPrefix });
			expect(both).toBeInstanceOf(InputError);
			expect(both).toMatchObject({
				field: 'connection',
				message: 'RedisUsedStates takes one Redis source, not connection and client',
			});
		} finally {
			await client.quit();
		}
		const none = await used({ keyPrefix: 'x:' });
		expect(none).toBeInstanceOf(InputError);
		expect(none).toMatchObject({
			field: 'connection',
			message: 'RedisUsedStates takes one Redis source, none was given',
		});
	});

	it('pingRedis with a misspelt field is refused; spelt right, it answers', async () => {
		const error = await refusalOf(() =>
			pingRedis({ url: canaryUrl(), connectTimeoutMS: 300 } as never),
		);
		expectNearMiss(error, 'pingRedis', 'connectTimeoutMS', 'connectTimeoutMs');
		expect(await pingRedis({ url: redis.url })).toMatchObject({ ok: true });
	});
});
