import {
	DEFAULT_CHECKPOINT_TTL_SECONDS,
	MemoryCheckpoints,
	RedisCheckpoints,
	RedisUsedStates,
} from '../../src/index';
import { startCanary, useLoopbackGuard, type TestServer } from '../support/servers/http-servers';
import { expectNearMiss, refusalOf } from '../support/option-refusal';
import { useTestRedis } from '../support/redis';

/**
 * Issue #48: the run-state stores took a misspelt option as absent: a `ttlSecond` kept checkpoints a day, a
 * `keyprefix` shared another deployment's keys. Each is refused before anything connects (the canary stays untouched).
 */
describe('the run-state stores refuse an option they do not know, before they connect', () => {
	useLoopbackGuard();
	const redis = useTestRedis();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));
	const canaryConnection = () => ({
		url: `redis://127.0.0.1:${canary.port}`,
		connectTimeoutMs: 300,
	});

	it('RedisCheckpoints with keyprefix; spelt right, the checkpoint is kept under that prefix', async () => {
		const error = await refusalOf(async () => {
			const options = { connection: canaryConnection(), keyprefix: 'deployment-b:' };
			const store = new RedisCheckpoints(options as never);
			await store.claim('run-1', 'attempt-1', 'run').finally(() => store.close());
		});
		expectNearMiss(error, 'RedisCheckpoints', 'keyprefix', 'keyPrefix');

		const keyPrefix = redis.keyPrefix('checkpoint-options');
		const store = new RedisCheckpoints({
			connection: { url: redis.url },
			keyPrefix,
			ttlSeconds: 60,
		});
		await store.claim('run-1', 'attempt-1', 'run').finally(() => store.close());
		expect(await redis.admin.ttl(`${keyPrefix}{run-1}`)).toBeGreaterThan(0);
		expect(await redis.admin.ttl(`${keyPrefix}{run-1}`)).toBeLessThanOrEqual(60);
	});

	it('MemoryCheckpoints with ttlSecond: refused, where it was a checkpoint kept a whole day', async () => {
		const error = await refusalOf(() => new MemoryCheckpoints({ ttlSecond: 5 } as never));
		expectNearMiss(error, 'MemoryCheckpoints', 'ttlSecond', 'ttlSeconds');
		expect(DEFAULT_CHECKPOINT_TTL_SECONDS).toBe(86_400);
		// Spelt right, the TTL holds: past it, the run key is free for another run.
		let now = 0;
		const store = new MemoryCheckpoints({ ttlSeconds: 5, now: () => now });
		await store.claim('run-1', 'attempt-1', 'run-a');
		now = 5_000;
		expect(await store.claim('run-1', 'attempt-2', 'run-b')).toEqual({ taken: true });
	});

	it('RedisUsedStates with key_prefix; spelt right, a used state is refused the second time', async () => {
		const error = await refusalOf(async () => {
			const options = { connection: canaryConnection(), key_prefix: 'deployment-b:' };
			const states = new RedisUsedStates(options as never);
			await states.markUsed('state-1', 60).finally(() => states.close());
		});
		expectNearMiss(error, 'RedisUsedStates', 'key_prefix', 'keyPrefix');

		const keyPrefix = redis.keyPrefix('used-state-options');
		const states = new RedisUsedStates({ connection: { url: redis.url }, keyPrefix });
		try {
			expect(await states.markUsed('state-1', 60)).toBe(true);
			expect(await states.markUsed('state-1', 60)).toBe(false);
			expect(await redis.admin.exists(`${keyPrefix}state-1`)).toBe(1);
		} finally {
			await states.close();
		}
	});
});
