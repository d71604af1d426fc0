import { closeSharedRedisClients } from '../../src/redis/shared-clients';
import { observationMessage } from '../../src/agent/protocol/prompt';
import { runAgent } from '../../src/agent/run-agent';
import {
	redisContextTool,
	sessionNamespace,
	type RedisContextArgs,
} from '../../src/tools/redis-context';
import { builtInTools } from '../../src/tools/registry';
import { validateAgainst } from '../../src/validation/validate';
import { action, final, lastUserMessage, modelFor, useScriptedServer } from '../support/agent';
import {
	hasRedisServerBinary,
	openTestClient,
	startRedisServer,
	startStallingRedis,
	useTestRedis,
} from '../support/redis';

const redis = useTestRedis();
let keyPrefix: string;

beforeEach(() => {
	keyPrefix = redis.keyPrefix('redis-context-tool');
});

interface CallOptions {
	sessionId?: string | null;
	settings?: Record<string, unknown>;
	signal?: AbortSignal;
}

/** Validates the args like the engine does, then runs the tool against the test Redis under this test's prefix. */
async function call(args: Record<string, unknown>, options: CallOptions = {}): Promise<string> {
	const validation = validateAgainst<RedisContextArgs>(redisContextTool.parameters, args);
	if (!validation.ok) throw new Error(`invalid args: ${validation.issues.join('; ')}`);
	const settings = options.settings ?? { redis_url: redis.url, key_prefix: keyPrefix };
	return (await redisContextTool.execute(validation.value, {
		signal: options.signal ?? new AbortController().signal,
		settings,
		sessionId: options.sessionId === null ? undefined : (options.sessionId ?? 'session-a'),
	})) as string;
}

const withSettings = (extra: Record<string, unknown>) => ({
	settings: { redis_url: redis.url, key_prefix: keyPrefix, ...extra },
});

describe('redis_context operations', () => {
	it('stores a value with set and reads it back with get', async () => {
		expect(await call({ operation: 'set', key: 'city', value: 'Zürich' })).toBe(
			'stored "city" (7 bytes, expires in 86400 s)',
		);
		expect(await call({ operation: 'get', key: 'city' })).toBe('Zürich');
	});

	it('answers get of a missing key with a clear "no value" observation', async () => {
		expect(await call({ operation: 'get', key: 'nothing' })).toBe('(no value for key "nothing")');
	});

	it('appends to a missing key and then to the existing value', async () => {
		expect(await call({ operation: 'append', key: 'log', value: 'one' })).toBe(
			'appended to "log" (now 3 bytes, expires in 86400 s)',
		);
		expect(await call({ operation: 'append', key: 'log', value: ',two' })).toBe(
			'appended to "log" (now 7 bytes, expires in 86400 s)',
		);
		expect(await call({ operation: 'get', key: 'log' })).toBe('one,two');
	});

	it('deletes a key, removes it from the list, and says so when there was nothing to delete', async () => {
		await call({ operation: 'set', key: 'a', value: '1' });
		await call({ operation: 'set', key: 'b', value: '2' });
		expect(await call({ operation: 'delete', key: 'a' })).toBe('deleted "a"');
		expect(await call({ operation: 'get', key: 'a' })).toBe('(no value for key "a")');
		expect(await call({ operation: 'delete', key: 'a' })).toBe(
			'(no value for key "a"; nothing deleted)',
		);
		expect(JSON.parse(await call({ operation: 'list' }))).toEqual(['b']);
	});

	it("lists the session's keys as a sorted JSON array, and an empty array for a new session", async () => {
		expect(await call({ operation: 'list' })).toBe('[]');
		for (const key of ['zeta', 'alpha', 'notes:today'])
			await call({ operation: 'set', key, value: 'x' });
		expect(await call({ operation: 'list' })).toBe('["alpha","notes:today","zeta"]');
	});

	it('prunes keys whose value vanished outside the tool before listing', async () => {
		await call({ operation: 'set', key: 'kept', value: '1' });
		await call({ operation: 'set', key: 'evicted', value: '2' });
		await redis.admin.del(`${sessionNamespace(keyPrefix, 'session-a')}evicted`);
		expect(JSON.parse(await call({ operation: 'list' }))).toEqual(['kept']);
	});
});

describe('redis_context session isolation', () => {
	it("never lets one session read or list another session's keys", async () => {
		await call({ operation: 'set', key: 'secret', value: 'A only' }, { sessionId: 'a' });
		expect(await call({ operation: 'get', key: 'secret' }, { sessionId: 'b' })).toBe(
			'(no value for key "secret")',
		);
		expect(await call({ operation: 'list' }, { sessionId: 'b' })).toBe('[]');
		expect(await call({ operation: 'delete', key: 'secret' }, { sessionId: 'b' })).toContain(
			'nothing deleted',
		);
		expect(await call({ operation: 'get', key: 'secret' }, { sessionId: 'a' })).toBe('A only');
	});

	it('keeps session ids containing ":" or "%" apart from keys designed to collide with them', async () => {
		// Session "a" writing key "b:secret" would be "<prefix>a:b:secret" with a naive layout, the same Redis key
		// as session "a:b" reading key "secret".
		await call({ operation: 'set', key: 'b:secret', value: 'from a' }, { sessionId: 'a' });
		for (const sessionId of ['a:b', 'a%3Ab', 'a%253Ab', 'a:', ':a:b']) {
			expect(await call({ operation: 'get', key: 'secret' }, { sessionId })).toBe(
				'(no value for key "secret")',
			);
			expect(await call({ operation: 'get', key: 'b:secret' }, { sessionId })).toBe(
				'(no value for key "b:secret")',
			);
			expect(await call({ operation: 'list' }, { sessionId })).toBe('[]');
		}
		await call({ operation: 'set', key: 'secret', value: 'from a:b' }, { sessionId: 'a:b' });
		expect(await call({ operation: 'list' }, { sessionId: 'a' })).toBe('["b:secret"]');
		expect(await call({ operation: 'get', key: 'b:secret' }, { sessionId: 'a' })).toBe('from a');
	});

	it("writes only under the session's own namespace, tagged by the session for Redis Cluster", async () => {
		await call({ operation: 'set', key: 'x', value: '1' }, { sessionId: 'tenant:42/user' });
		const keys = await redis.admin.keys(`${keyPrefix}*`);
		const namespace = sessionNamespace(keyPrefix, 'tenant:42/user');
		expect(namespace).toBe(`${keyPrefix}{tenant:42/user}:`);
		expect(sessionNamespace(keyPrefix, 'a}b{%')).toBe(`${keyPrefix}{a%7Db%7B%25}:`);
		// The value, the index, and the write's id (kept for a while, so the same write sent again applies once).
		expect(keys.sort()).toEqual([
			`${namespace}#index`,
			expect.stringMatching(/#write:[0-9a-f-]{36}$/),
			`${namespace}x`,
		]);
		expect(keys.every((key) => key.startsWith(namespace))).toBe(true);
	});

	it('rejects keys that try to climb out of the namespace, like "../b", in validation', () => {
		for (const key of ['../b', 'a/b', 'a b', '*', '', 'k'.repeat(129)]) {
			const result = validateAgainst(redisContextTool.parameters, { operation: 'get', key });
			expect(result.ok).toBe(false);
		}
		expect(validateAgainst(redisContextTool.parameters, { operation: 'get', key: '../b' })).toEqual(
			{
				ok: false,
				issues: ['args.key: must match pattern "^[A-Za-z0-9_.:-]+$"'],
			},
		);
	});
});

describe('redis_context expiry and caps', () => {
	it('sets ttl_seconds on the value and the index, and refreshes the whole session on every write', async () => {
		const options = withSettings({ ttl_seconds: 500 });
		const namespace = sessionNamespace(keyPrefix, 'session-a');
		await call({ operation: 'set', key: 'first', value: '1' }, options);
		expect(await redis.admin.ttl(`${namespace}first`)).toBeGreaterThan(490);
		expect(await redis.admin.ttl(`${namespace}#index`)).toBeGreaterThan(490);

		await redis.admin.expire(`${namespace}first`, 20);
		await redis.admin.expire(`${namespace}#index`, 20);
		await call({ operation: 'append', key: 'second', value: '2' }, options);
		expect(await redis.admin.ttl(`${namespace}first`)).toBeGreaterThan(490);
		expect(await redis.admin.ttl(`${namespace}second`)).toBeGreaterThan(490);
		expect(await redis.admin.ttl(`${namespace}#index`)).toBeGreaterThan(490);
	});

	it('refuses a value over max_value_bytes, counting UTF-8 bytes, and an append whose result would be too long', async () => {
		const options = withSettings({ max_value_bytes: 10 });
		await expect(
			call({ operation: 'set', key: 'k', value: 'é'.repeat(6) }, options),
		).rejects.toThrow(
			'redis_context refused: the value is 12 bytes, over max_value_bytes (10); store less text, or split it over several keys',
		);
		expect(await call({ operation: 'set', key: 'k', value: '12345678' }, options)).toContain(
			'8 bytes',
		);
		await expect(call({ operation: 'append', key: 'k', value: 'abc' }, options)).rejects.toThrow(
			'redis_context refused: appending would make "k" 11 bytes, over max_value_bytes (10)',
		);
		expect(await call({ operation: 'get', key: 'k' }, options)).toBe('12345678');
	});

	it('refuses a new key past max_keys but still lets existing keys be overwritten, and frees a slot on delete', async () => {
		const options = withSettings({ max_keys: 2 });
		await call({ operation: 'set', key: 'a', value: '1' }, options);
		await call({ operation: 'set', key: 'b', value: '2' }, options);
		await expect(call({ operation: 'set', key: 'c', value: '3' }, options)).rejects.toThrow(
			'redis_context refused: this session already holds 2 keys (max_keys 2); delete a key you no longer need, or overwrite an existing one',
		);
		await expect(call({ operation: 'append', key: 'c', value: '3' }, options)).rejects.toThrow(
			'max_keys 2',
		);
		expect(await call({ operation: 'set', key: 'a', value: 'one' }, options)).toContain(
			'stored "a"',
		);
		await call({ operation: 'delete', key: 'b' }, options);
		expect(await call({ operation: 'set', key: 'c', value: '3' }, options)).toContain('stored "c"');
		expect(await call({ operation: 'list' }, options)).toBe('["a","c"]');
	});

	it("does not count another session's keys against max_keys", async () => {
		const options = withSettings({ max_keys: 1 });
		await call({ operation: 'set', key: 'a', value: '1' }, { ...options, sessionId: 'one' });
		expect(
			await call({ operation: 'set', key: 'a', value: '1' }, { ...options, sessionId: 'two' }),
		).toContain('stored');
	});
});

describe('redis_context args, settings and failures', () => {
	it('reports a missing key or value as a validation issue', () => {
		const get = validateAgainst(redisContextTool.parameters, { operation: 'get' });
		expect(get.ok === false && get.issues).toContain('args: missing required property "key"');
		const set = validateAgainst(redisContextTool.parameters, { operation: 'set', key: 'k' });
		expect(set.ok === false && set.issues).toContain('args: missing required property "value"');
		expect(validateAgainst(redisContextTool.parameters, { operation: 'list' }).ok).toBe(true);
		expect(
			validateAgainst(redisContextTool.parameters, { operation: 'get', key: 'k', extra: 1 }).ok,
		).toBe(false);
	});

	it('refuses arguments an operation does not use, saying which to remove', async () => {
		await expect(call({ operation: 'get', key: 'k', value: 'v' })).rejects.toThrow(
			'redis_context refused: get takes no value; remove "value"',
		);
		await expect(call({ operation: 'list', key: 'k' })).rejects.toThrow(
			'redis_context refused: list takes no key',
		);
	});

	it('needs a session id', async () => {
		await expect(call({ operation: 'get', key: 'k' }, { sessionId: null })).rejects.toThrow(
			'redis_context needs a session: set Session ID on the Agent Core node (or --session in the CLI)',
		);
	});

	it("accepts a connection object like the node's Redis credential, and refuses both forms at once", async () => {
		const url = new URL(redis.url);
		const connection = { host: url.hostname, port: Number(url.port || 6379) };
		expect(
			validateAgainst(redisContextTool.settingsSchema!, { connection, key_prefix: keyPrefix }).ok,
		).toBe(true);
		expect(
			await call(
				{ operation: 'set', key: 'k', value: 'v' },
				{ settings: { connection, key_prefix: keyPrefix } },
			),
		).toContain('stored');
		await expect(
			call({ operation: 'get', key: 'k' }, { settings: { connection, redis_url: redis.url } }),
		).rejects.toThrow(
			'redis_context is misconfigured: tool_settings.redis_context gives both redis_url and connection; keep only one',
		);
		expect(validateAgainst(redisContextTool.settingsSchema!, { redis_url: 'http://x' }).ok).toBe(
			false,
		);
		expect(validateAgainst(redisContextTool.settingsSchema!, { ttl_seconds: 0 }).ok).toBe(false);
	});

	it('fails fast with an error naming Redis when Redis is down', async () => {
		const started = Date.now();
		await expect(
			call({ operation: 'get', key: 'k' }, { settings: { redis_url: 'redis://127.0.0.1:1' } }),
		).rejects.toThrow(/^redis_context failed: Redis at 127\.0\.0\.1:1 is unreachable/);
		expect(Date.now() - started).toBeLessThan(2500);
	});

	it('never shows the Redis password in an error', async () => {
		const error = await call(
			{ operation: 'get', key: 'k' },
			{ settings: { redis_url: 'redis://user:hunter2-secret@127.0.0.1:1' } },
		).catch((caught: Error) => caught);
		expect(String(error)).toContain('Redis at 127.0.0.1:1');
		expect(String(error)).not.toContain('hunter2');
	});

	it('stops at once when its signal aborts while Redis hangs, and says the call was cancelled', async () => {
		const stalling = await startStallingRedis(['EVALSHA', 'EVAL']);
		try {
			const controller = new AbortController();
			setTimeout(() => controller.abort(), 150);
			const started = Date.now();
			await expect(
				call(
					{ operation: 'set', key: 'k', value: 'v' },
					{
						settings: { redis_url: `redis://127.0.0.1:${stalling.port}` },
						signal: controller.signal,
					},
				),
			).rejects.toThrow(/^redis_context stopped: the call was cancelled/);
			expect(Date.now() - started).toBeLessThan(1000);
		} finally {
			await stalling.close();
		}
	});

	it('drops a connection that stopped answering once a call timed out on it, so the next call connects anew', async () => {
		const stalling = await startStallingRedis(['EVALSHA', 'EVAL']);
		try {
			const settings = { redis_url: `redis://127.0.0.1:${stalling.port}` };
			for (let attempt = 1; attempt <= 2; attempt++) {
				await expect(call({ operation: 'get', key: 'k' }, { settings })).rejects.toThrow(
					/redis_context failed: .*127\.0\.0\.1/,
				);
				expect(stalling.accepted()).toBe(attempt);
			}
		} finally {
			await closeSharedRedisClients();
			await stalling.close();
		}
	});

	(hasRedisServerBinary() ? it : it.skip)(
		'reuses one connection for every call, replaces one that died, and closes it on request (issue #20)',
		async () => {
			const ownRedis = await startRedisServer();
			const inspector = openTestClient(ownRedis.url);
			const others = async () =>
				((await inspector.client('LIST')) as string)
					.trim()
					.split('\n')
					.filter((line) => !line.includes('cmd=client|list'));
			try {
				const settings = { redis_url: ownRedis.url, max_keys: 1 };
				await call({ operation: 'set', key: 'a', value: '1' }, { settings });
				await call({ operation: 'list' }, { settings });
				await call({ operation: 'set', key: 'b', value: '2' }, { settings }).catch(() => undefined);
				const controller = new AbortController();
				controller.abort();
				await call({ operation: 'get', key: 'a' }, { settings, signal: controller.signal }).catch(
					() => undefined,
				);
				const [shared] = await others();
				expect(await others()).toHaveLength(1);

				// The server drops it: the next call opens a new one, and it is still the only one.
				await inspector.client('KILL', 'ID', /id=(\d+)/.exec(shared)![1]);
				await new Promise((resolve) => setTimeout(resolve, 200)); // the client sees its socket close
				expect(await call({ operation: 'get', key: 'a' }, { settings })).toBe('1');
				const after = await others();
				expect(after).toHaveLength(1);
				expect(after[0]).not.toBe(shared);

				await closeSharedRedisClients();
				await new Promise((resolve) => setTimeout(resolve, 100));
				expect(await others()).toEqual([]);
			} finally {
				await closeSharedRedisClients();
				await inspector.quit();
				await ownRedis.stop();
			}
		},
	);
});

describe('redis_context inside runAgent', () => {
	const server = useScriptedServer();
	// Once the registry ships the tool, passing it again would be a duplicate name.
	const extraTools = builtInTools.some((tool) => tool.name === 'redis_context')
		? []
		: [redisContextTool];

	it('remembers a value across two runs of the same session and keeps it from other sessions', async () => {
		const config = () => ({
			model: 'scripted-model',
			allowed_tools: ['redis_context'],
			tool_settings: { redis_context: { redis_url: redis.url, key_prefix: keyPrefix } },
		});
		server().setScript([
			action('redis_context', { operation: 'set', key: 'favourite_colour', value: 'teal' }),
			final('Noted.'),
		]);
		const first = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools,
			prompt: 'My favourite colour is teal.',
			sessionId: 'chat-1',
		});
		expect(first.finish_reason).toBe('final');
		expect(first.trace[0].observation).toBe(
			'stored "favourite_colour" (4 bytes, expires in 86400 s)',
		);

		server().setScript([
			action('redis_context', { operation: 'get', key: 'favourite_colour' }),
			final('Teal.'),
		]);
		const second = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools,
			prompt: 'What is my favourite colour?',
			sessionId: 'chat-1',
		});
		expect(second.final_answer).toBe('Teal.');
		expect(second.trace[0].observation).toBe('teal');
		expect(lastUserMessage(server(), server().requests.length - 1)).toBe(
			observationMessage('redis_context', 'teal'),
		);

		server().setScript([
			action('redis_context', { operation: 'get', key: 'favourite_colour' }),
			final('No idea.'),
		]);
		const other = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools,
			prompt: 'What is my favourite colour?',
			sessionId: 'chat-2',
		});
		expect(other.trace[0].observation).toBe('(no value for key "favourite_colour")');
	});

	it('turns a missing session into a tool error the model sees', async () => {
		server().setScript([action('redis_context', { operation: 'list' }), final('ok')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'scripted-model',
				allowed_tools: ['redis_context'],
				tool_settings: { redis_context: { redis_url: redis.url, key_prefix: keyPrefix } },
			},
			extraTools,
			prompt: 'list',
		});
		expect(result.trace[0].error).toEqual({
			type: 'tool_error',
			message:
				'redis_context needs a session: set Session ID on the Agent Core node (or --session in the CLI)',
		});
	});
});
