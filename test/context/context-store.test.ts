import { MemoryContextStore } from '../../src/context/memory/memory-store';
import { RedisContextStore, redisSessionKeys } from '../../src/context/redis/redis-store';
import {
	InvalidContextInputError,
	type ContextStore,
	type StoredTurn,
} from '../../src/context/store';
import {
	applyHistoryWindow,
	HISTORY_CHARACTER_LEVELS,
	resolveCharacterBudget,
	validateHistoryWindow,
} from '../../src/context/window';
import { contents, exchange, PERSIST, WINDOW } from '../support/context';
import { useTestRedis } from '../support/redis';

// The contract every context store keeps, run against memory and Redis; Redis-only behaviour is in
// redis-context-store.test.ts.
const redis = useTestRedis();

/** A store under test plus a way to make time pass for one session's expiry. */
interface Harness {
	store: ContextStore;
	age(sessionKey: string, seconds: number): Promise<void>;
}

const harnesses: Array<[string, () => Harness]> = [
	[
		'memory',
		() => {
			let now = Date.parse('2025-01-01T00:00:00Z');
			return {
				store: new MemoryContextStore({ now: () => now }),
				age: async (_, seconds) => void (now += seconds * 1000),
			};
		},
	],
	[
		'redis',
		() => {
			const keyPrefix = redis.keyPrefix('store');
			const store = new RedisContextStore({ connection: { url: redis.url }, keyPrefix });
			// Redis time cannot be moved, so ageing shortens the remaining expiry of the session's keys.
			const age = async (sessionKey: string, seconds: number): Promise<void> => {
				for (const key of Object.values(redisSessionKeys(keyPrefix, sessionKey))) {
					const remaining = await redis.admin.pttl(key);
					if (remaining <= 0) continue;
					if (remaining - seconds * 1000 <= 0) await redis.admin.del(key);
					else await redis.admin.pexpire(key, remaining - seconds * 1000);
				}
			};
			return { store, age };
		},
	],
];

describe.each(harnesses)('%s context store', (_name, createHarness) => {
	let harness: Harness;
	let store: ContextStore;
	beforeEach(() => {
		harness = createHarness();
		store = harness.store;
	});
	afterEach(async () => {
		await store.close();
	});

	test('prepares what was persisted, system message first, and forgets it on clear', async () => {
		await store.persist('alice', exchange(1), { ...PERSIST, systemMessage: 'You are terse.' });
		await store.persist('alice', exchange(2), PERSIST);

		const prepared = await store.prepare('alice', WINDOW);
		expect(contents(prepared.messages)).toEqual([
			'system: You are terse.',
			'user: question 1',
			'assistant: answer 1',
			'user: question 2',
			'assistant: answer 2',
		]);
		expect(prepared).toMatchObject({
			turns: 2,
			storedTurns: 2,
			skippedCorrupt: 0,
			truncated: false,
		});

		const snapshot = await store.get('alice');
		expect(snapshot.turns.map((turn) => turn.messages[0].content)).toEqual([
			'question 1',
			'question 2',
		]);
		expect(snapshot.systemMessage).toBe('You are terse.');

		expect(await store.clear('alice')).toEqual({ deleted: true });
		expect(await store.prepare('alice', WINDOW)).toMatchObject({
			messages: [],
			turns: 0,
			storedTurns: 0,
		});
		expect(await store.get('alice')).toEqual({ turns: [], skippedCorrupt: 0, ttlSeconds: null });
		expect(await store.clear('alice')).toEqual({ deleted: false });
	});

	test('keeps sessions apart', async () => {
		await store.persist('alice', exchange('for alice'), PERSIST);
		await store.persist('bob', exchange('for bob'), PERSIST);
		expect(contents((await store.prepare('bob', WINDOW)).messages)).toEqual([
			'user: question for bob',
			'assistant: answer for bob',
		]);
	});

	test('stores the steps record with the turn', async () => {
		await store.persist('alice', exchange(1, { steps: [{ tool: 'search', ok: true }] }), PERSIST);
		expect((await store.get('alice')).turns[0].steps).toEqual([{ tool: 'search', ok: true }]);
	});

	test('replaces the system message when given, keeps it when absent, removes it when empty', async () => {
		await store.persist('alice', exchange(1), { ...PERSIST, systemMessage: 'first' });
		await store.persist('alice', exchange(2), { ...PERSIST, systemMessage: 'second' });
		await store.persist('alice', exchange(3), PERSIST);
		expect((await store.get('alice')).systemMessage).toBe('second');
		await store.persist('alice', exchange(4), { ...PERSIST, systemMessage: '' });
		expect((await store.get('alice')).systemMessage).toBeUndefined();
		expect((await store.prepare('alice', WINDOW)).messages[0].role).toBe('user');
	});

	test('windows to the newest turns, in chronological order, with the system message kept', async () => {
		for (let turn = 1; turn <= 30; turn++) {
			await store.persist('alice', exchange(turn), { ...PERSIST, systemMessage: 'system' });
		}
		const prepared = await store.prepare('alice', { maxTurns: 5, maxCharacters: 0 });
		expect(contents(prepared.messages)).toEqual([
			'system: system',
			...[26, 27, 28, 29, 30].flatMap((turn) => [
				`user: question ${turn}`,
				`assistant: answer ${turn}`,
			]),
		]);
		expect(prepared).toMatchObject({ turns: 5, storedTurns: 30, truncated: true });

		const unlimited = await store.prepare('alice', { maxTurns: 0, maxCharacters: 0 });
		expect(unlimited).toMatchObject({ turns: 30, truncated: false });
		const scanned = await store.prepare('alice', {
			maxTurns: 0,
			maxCharacters: 0,
			maxScannedTurns: 7,
		});
		expect(scanned).toMatchObject({ turns: 7, truncated: true });
	});

	test('fits the character budget with whole turns only and never drops the system message', async () => {
		const long = 'x'.repeat(100);
		for (const label of ['a', 'b', 'c']) {
			await store.persist(
				'alice',
				{ messages: [{ role: 'user', content: `${label}${long}` }], at: new Date().toISOString() },
				{
					...PERSIST,
					systemMessage: 'a long system message that does not count toward the budget',
				},
			);
		}
		// Each turn is 101 characters: 250 fits two whole turns, not two and a half.
		const prepared = await store.prepare('alice', { maxTurns: 20, maxCharacters: 250 });
		expect(prepared.messages.map((message) => message.content[0])).toEqual(['a', 'b', 'c']);
		expect(prepared.messages[0].role).toBe('system');
		expect(prepared).toMatchObject({ turns: 2, characters: 202, truncated: true });

		const tooSmall = await store.prepare('alice', { maxTurns: 20, maxCharacters: 50 });
		expect(tooSmall.messages).toEqual([{ role: 'system', content: expect.any(String) }]);
		expect(tooSmall).toMatchObject({ turns: 0, characters: 0, truncated: true });
	});

	test('trims the stored history to maxStoredTurns, oldest first', async () => {
		let result = { storedTurns: 0 };
		for (let turn = 1; turn <= 12; turn++)
			result = await store.persist('alice', exchange(turn), { ...PERSIST, maxStoredTurns: 5 });
		expect(result.storedTurns).toBe(5);
		const { turns } = await store.get('alice');
		expect(turns.map((turn) => turn.messages[0].content)).toEqual(
			[8, 9, 10, 11, 12].map((turn) => `question ${turn}`),
		);
	});

	test('sets the expiry on persist and refreshes it on every persist', async () => {
		await store.persist('alice', exchange(1), {
			...PERSIST,
			ttlSeconds: 100,
			systemMessage: 'system',
		});
		expect((await store.get('alice')).ttlSeconds).toBeGreaterThan(95);

		await harness.age('alice', 60);
		const aged = (await store.get('alice')).ttlSeconds ?? 0;
		expect(aged).toBeLessThanOrEqual(40);
		expect(aged).toBeGreaterThan(30);

		await store.persist('alice', exchange(2), { ...PERSIST, ttlSeconds: 100 });
		expect((await store.get('alice')).ttlSeconds).toBeGreaterThan(95);
		expect((await store.get('alice')).systemMessage).toBe('system');
	});

	test('forgets a session once its expiry has passed', async () => {
		await store.persist('alice', exchange(1), {
			...PERSIST,
			ttlSeconds: 100,
			systemMessage: 'system',
		});
		await harness.age('alice', 101);
		expect(await store.prepare('alice', WINDOW)).toMatchObject({ messages: [], storedTurns: 0 });
	});

	test('keeps a session without expiry when ttlSeconds is 0', async () => {
		await store.persist('alice', exchange(1), { ...PERSIST, ttlSeconds: 0 });
		expect((await store.get('alice')).ttlSeconds).toBeNull();
	});

	test('50 concurrent persists to one session keep every turn exactly once and intact', async () => {
		await Promise.all(
			Array.from({ length: 50 }, (_, request) =>
				store.persist(
					'busy',
					{
						messages: [
							{ role: 'user', content: `request ${request} question` },
							{ role: 'assistant', content: `request ${request} answer` },
						],
						at: new Date().toISOString(),
					},
					PERSIST,
				),
			),
		);
		const prepared = await store.prepare('busy', { maxTurns: 0, maxCharacters: 0 });
		expect(prepared.turns).toBe(50);
		const seen: number[] = [];
		for (let index = 0; index < prepared.messages.length; index += 2) {
			const [question, answer] = prepared.messages.slice(index, index + 2);
			const request = Number(/^request (\d+) question$/.exec(question.content)?.[1]);
			expect(question.role).toBe('user');
			expect(answer).toEqual({ role: 'assistant', content: `request ${request} answer` });
			seen.push(request);
		}
		expect(seen.sort((left, right) => left - right)).toEqual(
			Array.from({ length: 50 }, (_, request) => request),
		);
	});

	test('refuses empty and overlong session keys, naming the session key, and writes nothing', async () => {
		for (const badKey of ['', '   ', 'k'.repeat(257)]) {
			await expect(store.persist(badKey, exchange(1), PERSIST)).rejects.toThrow(/session key/);
			await expect(store.prepare(badKey, WINDOW)).rejects.toBeInstanceOf(InvalidContextInputError);
		}
		await expect(store.prepare('k'.repeat(256), WINDOW)).resolves.toMatchObject({ turns: 0 });
	});

	test('refuses a malformed turn or bound without storing anything', async () => {
		const noMessages = { messages: [], at: new Date().toISOString() } as StoredTurn;
		await expect(store.persist('alice', noMessages, PERSIST)).rejects.toThrow(
			/messages: must be a non-empty list/,
		);
		const badRole = {
			messages: [{ role: 'tool', content: 'x' }],
			at: new Date().toISOString(),
		} as unknown as StoredTurn;
		await expect(store.persist('alice', badRole, PERSIST)).rejects.toThrow(/role/);
		await expect(
			store.persist('alice', exchange(1), { ...PERSIST, maxStoredTurns: 0 }),
		).rejects.toThrow(/maxStoredTurns/);
		await expect(store.prepare('alice', { maxTurns: -5, maxCharacters: 0 })).rejects.toThrow(
			/history window: maxTurns/,
		);
		expect((await store.get('alice')).turns).toEqual([]);
	});

	test('a 1 MB message is stored, kept out of a bounded window and of the default cap whole, and trimmed like any turn', async () => {
		const huge = 'y'.repeat(1024 * 1024);
		await store.persist(
			'alice',
			{ messages: [{ role: 'user', content: huge }], at: new Date().toISOString() },
			{ ...PERSIST, maxStoredTurns: 2 },
		);
		const normal = await store.prepare('alice', {
			maxTurns: 20,
			maxCharacters: HISTORY_CHARACTER_LEVELS.normal,
		});
		expect(normal).toMatchObject({ messages: [], turns: 0, truncated: true });
		// "full" (no budget) still replays at most DEFAULT_MAX_HISTORY_CHARACTERS; a custom budget may allow more.
		expect(await store.prepare('alice', { maxTurns: 20, maxCharacters: 0 })).toMatchObject({
			messages: [],
			turns: 0,
			truncated: true,
		});
		expect(
			(await store.prepare('alice', { maxTurns: 20, maxCharacters: 2 * huge.length })).messages[0]
				.content,
		).toHaveLength(huge.length);

		await store.persist('alice', exchange('small'), { ...PERSIST, maxStoredTurns: 2 });
		const afterSmall = await store.prepare('alice', {
			maxTurns: 20,
			maxCharacters: HISTORY_CHARACTER_LEVELS.normal,
		});
		expect(afterSmall).toMatchObject({ turns: 1, truncated: true });

		await store.persist('alice', exchange('smaller'), { ...PERSIST, maxStoredTurns: 2 });
		const { turns } = await store.get('alice');
		expect(turns.every((turn) => turn.messages[0].content.length < 100)).toBe(true);
	});

	test('a 10,000-turn history is bounded by maxStoredTurns', async () => {
		for (let batch = 0; batch < 10; batch++) {
			await Promise.all(
				Array.from({ length: 1000 }, (_, index) =>
					store.persist('long', exchange(batch * 1000 + index), PERSIST),
				),
			);
		}
		expect((await store.get('long')).turns).toHaveLength(200);
		expect(await store.prepare('long', WINDOW)).toMatchObject({
			turns: 20,
			storedTurns: 200,
			truncated: true,
		});
	});
});

describe('memory context store', () => {
	test('forgets the least recently used session beyond maxSessions', async () => {
		const store = new MemoryContextStore({ maxSessions: 3 });
		for (const key of ['a', 'b', 'c']) await store.persist(key, exchange(key), PERSIST);
		await store.prepare('a', WINDOW); // 'a' is now more recently used than 'b'
		await store.persist('d', exchange('d'), PERSIST);
		expect(store.size).toBe(3);
		expect((await store.get('b')).turns).toEqual([]);
		expect((await store.get('a')).turns).toHaveLength(1);
	});
});

describe('history window', () => {
	test('named character levels resolve to their budgets, and custom numbers pass through', () => {
		expect(HISTORY_CHARACTER_LEVELS).toEqual({
			full: 0,
			normal: 16000,
			compact: 6000,
			minimal: 2000,
		});
		expect(resolveCharacterBudget('compact')).toEqual({ ok: true, value: 6000 });
		expect(resolveCharacterBudget(1234)).toEqual({ ok: true, value: 1234 });
		expect(resolveCharacterBudget('huge')).toMatchObject({
			ok: false,
			issues: [expect.stringContaining('full, normal, compact, minimal')],
		});
		expect(resolveCharacterBudget(-1)).toMatchObject({ ok: false });
	});

	test('defaults to 20 turns without a character budget, and rejects negative numbers', () => {
		expect(validateHistoryWindow()).toEqual({
			ok: true,
			value: { maxTurns: 20, maxCharacters: 0, maxScannedTurns: 200 },
		});
		expect(validateHistoryWindow({ maxTurns: -1 })).toMatchObject({
			ok: false,
			issues: [expect.stringContaining('maxTurns')],
		});
	});

	test('does not fill the budget with older turns past one that did not fit', () => {
		const turn = (content: string): string =>
			JSON.stringify({ messages: [{ role: 'user', content }], at: '2025-01-01T00:00:00Z' });
		const prepared = applyHistoryWindow(
			{ entries: [turn('old'), turn('x'.repeat(50)), turn('new')], storedTurns: 3 },
			{ maxTurns: 0, maxCharacters: 20 },
		);
		// Entries written before turns were numbered are numbered by their place in the list.
		expect(prepared.messages).toEqual([{ role: 'user', content: 'new', seq: 3 }]);
		expect(prepared).toMatchObject({ turns: 1, truncated: true });
	});
});
