import type { Redis } from 'ioredis';
import {
	pingRedis,
	RedisContextStore,
	redisSessionKeys,
} from '../../src/context/redis/redis-store';
import { ContextStoreError, RedisError, type ContextStore } from '../../src/context/store';
import { contents, exchange, PERSIST, WINDOW } from '../support/context';
import {
	freeLoopbackPort,
	hasRedisServerBinary,
	openTestClient,
	startRedisServer,
	startSilentServer,
	startStallingRedis,
	useTestRedis,
} from '../support/redis';

const redis = useTestRedis();

describe('redis context store', () => {
	let keyPrefix: string;
	const stores: ContextStore[] = [];
	function openStore(options: Partial<{ port: number; host: string }> = {}): RedisContextStore {
		const store =
			options.port === undefined
				? new RedisContextStore({ connection: { url: redis.url }, keyPrefix })
				: new RedisContextStore({ connection: { host: '127.0.0.1', ...options }, keyPrefix });
		stores.push(store);
		return store;
	}
	beforeEach(() => {
		keyPrefix = redis.keyPrefix('redis');
	});
	afterEach(async () => {
		for (const store of stores.splice(0)) await store.close();
	});

	test('skips and counts corrupt entries instead of failing', async () => {
		const store = openStore();
		await store.persist('alice', exchange(1), PERSIST);
		const { turns } = redisSessionKeys(keyPrefix, 'alice');
		await redis.admin.rpush(
			turns,
			'not json',
			'{"messages":"nope","at":"2025-01-01T00:00:00Z"}',
			'{}',
			'42',
		);
		await store.persist('alice', exchange(2), PERSIST);

		const prepared = await store.prepare('alice', WINDOW);
		expect(prepared).toMatchObject({
			turns: 2,
			storedTurns: 6,
			skippedCorrupt: 4,
			truncated: false,
		});
		expect(contents(prepared.messages)).toEqual([
			'user: question 1',
			'assistant: answer 1',
			'user: question 2',
			'assistant: answer 2',
		]);
		expect(await store.get('alice')).toMatchObject({ skippedCorrupt: 4 });
	});

	test('a failing persist writes nothing, not even the system message', async () => {
		const store = openStore();
		const keys = redisSessionKeys(keyPrefix, 'alice');
		await redis.admin.set(keys.turns, 'a string where the list should be');
		const error = await store
			.persist('alice', exchange(1), { ...PERSIST, systemMessage: 'system' })
			.catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(RedisError);
		expect((error as RedisError).details.failure).toBe('command');
		expect((error as RedisError).message).toMatch(
			/^Redis at .* failed during persist: .*WRONGTYPE/,
		);
		expect(await redis.admin.exists(keys.system)).toBe(0);
		expect(await redis.admin.get(keys.turns)).toBe('a string where the list should be');
	});

	test('prepare is one command and reads only the window, however long the history', async () => {
		const store = openStore();
		const { turns } = redisSessionKeys(keyPrefix, 'long');
		const entry = JSON.stringify(exchange('filler'));
		for (let batch = 0; batch < 20; batch++)
			await redis.admin.rpush(turns, ...Array.from({ length: 1000 }, () => entry));
		await store.prepare('long', WINDOW); // connects (and caches the script) before counting

		const client = (store as unknown as { redis: { client: Redis } }).redis.client;
		const sendCommand = jest.spyOn(client, 'sendCommand');
		const prepared = await store.prepare('long', WINDOW);
		expect(sendCommand).toHaveBeenCalledTimes(1);
		expect(prepared).toMatchObject({ turns: 20, storedTurns: 20000, truncated: true });
		sendCommand.mockRestore();

		const scanned = await store.prepare('long', {
			maxTurns: 0,
			maxCharacters: 6000,
			maxScannedTurns: 50,
		});
		expect(scanned.turns).toBeLessThanOrEqual(50);
		expect(scanned.truncated).toBe(true);
	});

	test('persist sets one expiry on both keys, so the system message expires with the turns', async () => {
		const store = openStore();
		await store.persist('alice', exchange(1), {
			...PERSIST,
			ttlSeconds: 500,
			systemMessage: 'system',
		});
		const keys = redisSessionKeys(keyPrefix, 'alice');
		expect(await redis.admin.ttl(keys.turns)).toBeGreaterThan(495);
		expect(await redis.admin.ttl(keys.system)).toBeGreaterThan(495);
	});

	test('a session really expires in Redis after its TTL', async () => {
		const store = openStore();
		await store.persist('alice', exchange(1), {
			...PERSIST,
			ttlSeconds: 1,
			systemMessage: 'system',
		});
		await new Promise((resolve) => setTimeout(resolve, 1200));
		expect(await store.get('alice')).toEqual({ turns: [], skippedCorrupt: 0, ttlSeconds: null });
	});

	test('concurrent persists from several stores (workers) to one session keep every turn once', async () => {
		const workers = Array.from({ length: 5 }, () => openStore());
		await Promise.all(
			workers.flatMap((worker, workerIndex) =>
				Array.from({ length: 10 }, (_, request) =>
					worker.persist('shared', exchange(`${workerIndex}-${request}`), PERSIST),
				),
			),
		);
		const { turns } = await workers[0].get('shared');
		const labels = turns.map((turn) => turn.messages[0].content.replace('question ', ''));
		expect(new Set(labels).size).toBe(50);
		expect(
			turns.every(
				(turn) =>
					turn.messages[1].content === turn.messages[0].content.replace('question', 'answer'),
			),
		).toBe(true);
	});

	test('a Redis that is down fails fast with a RedisError naming Redis and the address', async () => {
		const port = await freeLoopbackPort();
		const store = openStore({ port });
		const started = Date.now();
		const error = await store.prepare('alice', WINDOW).catch((caught: unknown) => caught);
		expect(Date.now() - started).toBeLessThan(2500);
		expect(error).toBeInstanceOf(RedisError);
		expect((error as RedisError).name).toBe('RedisError');
		expect(error).toBeInstanceOf(ContextStoreError); // the earlier name still imports, as the same class
		expect((error as RedisError).message).toBe(
			`Redis at 127.0.0.1:${port} is unreachable (connect ECONNREFUSED); check the Redis credential's host and port`,
		);
		expect((error as RedisError).details).toMatchObject({
			failure: 'unreachable',
			address: `127.0.0.1:${port}`,
			operation: 'prepare',
		});
		await expect(store.persist('alice', exchange(1), PERSIST)).rejects.toThrow(
			`Redis at 127.0.0.1:${port} is unreachable`,
		);
	});

	test('a Redis that accepts connections but never answers fails within the deadline, not a hang', async () => {
		const silent = await startSilentServer();
		try {
			const store = openStore({ port: silent.port });
			const started = Date.now();
			const error = await store
				.persist('alice', exchange(1), PERSIST)
				.catch((caught: unknown) => caught);
			expect(Date.now() - started).toBeLessThan(2500);
			expect(error).toBeInstanceOf(RedisError);
			expect((error as RedisError).message).toContain(
				`Redis at 127.0.0.1:${silent.port} accepted the connection but was not ready`,
			);
			expect((error as RedisError).details.failure).toBe('timeout');
		} finally {
			for (const store of stores.splice(0)) await store.close();
			await silent.close();
		}
	});

	test('a Redis that stops answering in the middle of an operation fails within the command timeout', async () => {
		const stalling = await startStallingRedis(['EVALSHA', 'EVAL']);
		try {
			const store = openStore({ port: stalling.port });
			const started = Date.now();
			const error = await store
				.persist('alice', exchange(1), PERSIST)
				.catch((caught: unknown) => caught);
			expect(Date.now() - started).toBeLessThan(2500);
			expect((error as RedisError).message).toBe(
				`Redis at 127.0.0.1:${stalling.port} did not answer persist in time (command timed out)`,
			);
		} finally {
			for (const store of stores.splice(0)) await store.close();
			await stalling.close();
		}
	});

	test('wrong credentials are reported as such', async () => {
		const store = new RedisContextStore({
			connection: { url: redis.url, username: 'agent-core-nobody', password: 'wrong' },
			keyPrefix,
		});
		stores.push(store);
		const error = await store.get('alice').catch((caught: unknown) => caught);
		expect((error as RedisError).details.failure).toBe('authentication');
		expect((error as RedisError).message).toMatch(
			/refused the credentials .*check the Redis credential's user and password/,
		);
		expect((error as RedisError).message).not.toContain('wrong');
	});

	test('recovers on the next operation once Redis is back', async () => {
		const store = openStore();
		await store.persist('alice', exchange(1), PERSIST);
		const client = (store as unknown as { redis: { client: Redis } }).redis.client;
		const ended = new Promise((resolve) => client.once('end', resolve));
		await redis.admin.client('KILL', 'ID', String(await client.client('ID'))); // the connection drops
		await ended;
		await expect(store.prepare('alice', WINDOW)).resolves.toMatchObject({ turns: 1 });
	});

	(hasRedisServerBinary() ? test : test.skip)(
		'keeps working after Redis forgets its cached scripts (restart)',
		async () => {
			const ownRedis = await startRedisServer();
			const ownClient = openTestClient(ownRedis.url);
			try {
				const store = new RedisContextStore({ connection: { url: ownRedis.url }, keyPrefix });
				stores.push(store);
				await store.persist('alice', exchange(1), PERSIST); // first use: NOSCRIPT, then EVAL
				await ownClient.script('FLUSH');
				await store.persist('alice', exchange(2), PERSIST);
				expect(await store.prepare('alice', WINDOW)).toMatchObject({ turns: 2 });
			} finally {
				for (const store of stores.splice(0)) await store.close();
				await ownClient.quit();
				await ownRedis.stop();
			}
		},
	);

	test('a borrowed client stays open after close unless asked', async () => {
		const borrowed = openTestClient(redis.url);
		const store = new RedisContextStore({ client: borrowed, keyPrefix });
		await store.persist('alice', exchange(1), PERSIST);
		await store.close();
		expect(await borrowed.ping()).toBe('PONG');
		const owning = new RedisContextStore({ client: borrowed, keyPrefix, closeClient: true });
		await owning.close();
		expect(borrowed.status).toBe('end');
	});

	test('pingRedis reports success, and failure as a sentence', async () => {
		expect(await pingRedis({ url: redis.url })).toMatchObject({ ok: true });
		const port = await freeLoopbackPort();
		expect(await pingRedis({ host: '127.0.0.1', port })).toEqual({
			ok: false,
			message: `Redis at 127.0.0.1:${port} is unreachable (connect ECONNREFUSED); check the Redis credential's host and port`,
		});
	});
});
