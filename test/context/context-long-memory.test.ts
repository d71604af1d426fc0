// Long memory in the context stores (issue #31): numbered turns, summaries with an archive, rewind, fork and the busy lock — memory and Redis alike.
import { ConversationError } from '../../src/context/errors';
import { emptySession } from '../../src/context/memory/memory-session';
import { MemoryContextStore } from '../../src/context/memory/memory-store';
import {
	legacyRedisSessionKeys,
	RedisContextStore,
	redisSessionKeys,
} from '../../src/context/redis/redis-store';
import type { ContextStore, StoredSummary, StoredTurn } from '../../src/context/store';
import { contents, exchange, PERSIST, WINDOW } from '../support/context';
import { useTestRedis } from '../support/redis';

const redis = useTestRedis();

const summaryThrough = (
	through: number,
	content = `summary of turns 1-${through}`,
): StoredSummary => ({
	through_seq: through,
	replaced_turns: through,
	model: 'scripted',
	tokens_before: 1000,
	tokens_after: 100,
	at: '2025-01-01T00:00:00.000Z',
	content,
});

/** Every turn number of a session, live and archived, with where it is. */
async function whereTurnsAre(store: ContextStore, session: string): Promise<string[]> {
	const listing = await store.list(session);
	return listing.turns.map((turn) => `${turn.seq}:${turn.state}`);
}

async function refusal(promise: Promise<unknown>): Promise<ConversationError['refusal']> {
	const error = await promise.then(
		() => undefined,
		(caught: unknown) => caught,
	);
	expect(error).toBeInstanceOf(ConversationError);
	return (error as ConversationError).refusal;
}

const stores: Array<
	[
		string,
		() => { store: ContextStore; legacy(session: string, entries: StoredTurn[]): Promise<void> },
	]
> = [
	[
		'memory',
		() => {
			const store = new MemoryContextStore();
			// What an earlier version left: entries without numbers.
			const legacy = async (session: string, entries: StoredTurn[]) => {
				const sessions = (store as unknown as { sessions: Map<string, unknown> }).sessions;
				sessions.set(session, {
					...emptySession(),
					entries: entries.map((turn) => JSON.stringify(turn)),
				});
			};
			return { store, legacy };
		},
	],
	[
		'redis',
		() => {
			const keyPrefix = redis.keyPrefix('memory');
			const store = new RedisContextStore({ connection: { url: redis.url }, keyPrefix });
			const legacy = async (session: string, entries: StoredTurn[]) => {
				await redis.admin.rpush(
					redisSessionKeys(keyPrefix, session).turns,
					...entries.map((turn) => JSON.stringify(turn)),
				);
			};
			return { store, legacy };
		},
	],
];

describe.each(stores)('%s store: long memory', (_name, create) => {
	let store: ContextStore;
	let legacy: (session: string, entries: StoredTurn[]) => Promise<void>;
	beforeEach(() => ({ store, legacy } = create()));
	afterEach(() => store.close());

	const persistTurns = async (session: string, labels: Array<string | number>) => {
		for (const label of labels) await store.persist(session, exchange(label), PERSIST);
	};

	test('numbers each persisted turn and hands the number on with the user message, the answer keeping its tool results', async () => {
		const toolResults = [{ step: 1, tool: 'lookup', args: { id: 7 }, observation: 'price is 42' }];
		await store.persist(
			's',
			{
				messages: [
					{ role: 'user', content: 'q1' },
					{ role: 'assistant', content: 'a1', tool_results: toolResults },
				],
				at: new Date().toISOString(),
			},
			PERSIST,
		);
		const second = await store.append('s', exchange(2), PERSIST);
		expect(second).toEqual({ stored: true, seq: 2, storedTurns: 2, archivedTurns: 0 });
		const prepared = await store.prepare('s', WINDOW);
		expect(prepared.messages).toEqual([
			{ role: 'user', content: 'q1', seq: 1 },
			{ role: 'assistant', content: 'a1', tool_results: toolResults },
			{ role: 'user', content: 'question 2', seq: 2 },
			{ role: 'assistant', content: 'answer 2' },
		]);
		expect(prepared.lastSeq).toBe(2);
	});

	test('a persist with a summary moves exactly the turns it covers to the archive; the next prepare gives system, summary, then the rest', async () => {
		await store.persist('s', exchange(1), { ...PERSIST, systemMessage: 'Be brief.' });
		await persistTurns('s', [2, 3, 4]);
		const result = await store.append('s', exchange(5), PERSIST, { summary: summaryThrough(2) });
		expect(result).toEqual({ stored: true, seq: 5, storedTurns: 3, archivedTurns: 2 });
		const prepared = await store.prepare('s', WINDOW);
		expect(contents(prepared.messages)).toEqual([
			'system: Be brief.',
			'assistant: summary of turns 1-2',
			'user: question 3',
			'assistant: answer 3',
			'user: question 4',
			'assistant: answer 4',
			'user: question 5',
			'assistant: answer 5',
		]);
		expect(prepared.messages[1]).toEqual({
			role: 'assistant',
			content: 'summary of turns 1-2',
			summary: {
				through_seq: 2,
				replaced_turns: 2,
				model: 'scripted',
				tokens_before: 1000,
				tokens_after: 100,
				at: '2025-01-01T00:00:00.000Z',
			},
		});
		expect(prepared.summaryThroughSeq).toBe(2);
		expect(await whereTurnsAre(store, 's')).toEqual([
			'1:summarised',
			'2:summarised',
			'3:live',
			'4:live',
			'5:live',
		]);
		// A later summary replaces it and moves on from where it ended.
		await store.append('s', exchange(6), PERSIST, { summary: summaryThrough(4, 'summary of 1-4') });
		expect(await whereTurnsAre(store, 's')).toEqual([
			'1:summarised',
			'2:summarised',
			'3:summarised',
			'4:summarised',
			'5:live',
			'6:live',
		]);
		expect((await store.list('s')).summary).toMatchObject({
			through_seq: 4,
			characters: 'summary of 1-4'.length,
		});
	});

	test('a summary sent twice with one turn id applies once', async () => {
		await persistTurns('s', [1, 2, 3]);
		const write = { turnId: 'turn-4', summary: summaryThrough(2) };
		const first = await store.append('s', exchange(4), PERSIST, write);
		const again = await store.append('s', exchange(4), PERSIST, write);
		expect(again).toEqual(first);
		expect(await whereTurnsAre(store, 's')).toEqual([
			'1:summarised',
			'2:summarised',
			'3:live',
			'4:live',
		]);
	});

	test('refuses a summary from the future or behind the stored one, naming the field, and writes nothing', async () => {
		await persistTurns('s', [1, 2]);
		expect(
			await refusal(store.append('s', exchange(3), PERSIST, { summary: summaryThrough(3) })),
		).toMatchObject({ code: 'through_seq_ahead', newest: 2 });
		await store.append('s', exchange(3), PERSIST, { summary: summaryThrough(2) });
		expect(
			await refusal(store.append('s', exchange(4), PERSIST, { summary: summaryThrough(1) })),
		).toMatchObject({ code: 'through_seq_behind', stored: 2 });
		const error = await store
			.append('s', exchange(4), PERSIST, { summary: summaryThrough(1e9) })
			.catch((caught: Error) => caught);
		expect((error as Error).message).toMatch(
			/summary\.through_seq is 1000000000, but session .* has no turn after 3/,
		);
		expect(await whereTurnsAre(store, 's')).toEqual(['1:summarised', '2:summarised', '3:live']);
	});

	test('rewind moves later turns to the archive marked rewound; new turns get new numbers; a rewind inside the summary brings its turns back', async () => {
		await persistTurns('s', [1, 2, 3, 4, 5]);
		expect(await store.rewind('s', 3, {})).toEqual({
			archived: 2,
			restored: 0,
			summary_dropped: false,
			live_turns: 3,
		});
		expect(await whereTurnsAre(store, 's')).toEqual([
			'1:live',
			'2:live',
			'3:live',
			'4:rewound',
			'5:rewound',
		]);
		await store.append('s', exchange('six'), PERSIST, { summary: summaryThrough(2) });
		expect(await whereTurnsAre(store, 's')).toEqual([
			'1:summarised',
			'2:summarised',
			'3:live',
			'4:rewound',
			'5:rewound',
			'6:live',
		]);
		expect(contents((await store.prepare('s', WINDOW)).messages)).toEqual([
			'assistant: summary of turns 1-2',
			'user: question 3',
			'assistant: answer 3',
			'user: question six',
			'assistant: answer six',
		]);

		expect(await store.rewind('s', 1, {})).toEqual({
			archived: 2,
			restored: 1,
			summary_dropped: true,
			live_turns: 1,
		});
		expect(await whereTurnsAre(store, 's')).toEqual([
			'1:live',
			'2:rewound',
			'3:rewound',
			'4:rewound',
			'5:rewound',
			'6:rewound',
		]);
		expect(contents((await store.prepare('s', WINDOW)).messages)).toEqual([
			'user: question 1',
			'assistant: answer 1',
		]);
		expect(
			(await store.append('s', exchange(7), PERSIST)).stored && (await store.list('s')).last_seq,
		).toBe(7);
	});

	test('rewind refuses a turn out of range, a non-number, an unknown session, and a busy session, naming the field', async () => {
		await persistTurns('s', [1, 2]);
		expect(await refusal(store.rewind('s', 1e9, {}))).toMatchObject({
			code: 'turn_out_of_range',
			last: 2,
		});
		expect(await refusal(store.rewind('s', -1, {}))).toMatchObject({
			code: 'bad_turn',
			turn: '-1',
		});
		expect(await refusal(store.rewind('s', 1.5, {}))).toMatchObject({ code: 'bad_turn' });
		expect(await refusal(store.rewind('nobody', 1, {}))).toMatchObject({ code: 'not_found' });
		await store.prepare('s', WINDOW, { mode: 'take', id: 'run', ttlMs: 60_000 });
		const busy = await store.rewind('s', 1, {}).catch((error: ConversationError) => error);
		expect(busy).toMatchObject({ field: 'session_id', refusal: { code: 'busy' } });
		expect(await whereTurnsAre(store, 's')).toEqual(['1:live', '2:live']);
	});

	test('fork copies the turns up to N into a new session and leaves the source untouched; an existing target is refused', async () => {
		await store.persist('src', exchange(1), { ...PERSIST, systemMessage: 'system' });
		await persistTurns('src', [2, 3, 4]);
		expect(await store.fork('src', 'copy', 2, { ttlSeconds: 600 })).toEqual({
			turns: 2,
			summary: false,
			restored: 0,
			last_seq: 2,
		});
		expect(contents((await store.prepare('copy', WINDOW)).messages)).toEqual([
			'system: system',
			'user: question 1',
			'assistant: answer 1',
			'user: question 2',
			'assistant: answer 2',
		]);
		expect(await whereTurnsAre(store, 'src')).toEqual(['1:live', '2:live', '3:live', '4:live']);
		expect(
			(await store.append('copy', exchange('next'), PERSIST)).stored &&
				(await store.list('copy')).last_seq,
		).toBe(3);
		expect(await refusal(store.fork('src', 'copy', 1, { ttlSeconds: 600 }))).toMatchObject({
			code: 'target_exists',
			target: expect.stringContaining('copy'),
		});
		expect(await refusal(store.fork('src', 'src', 1, { ttlSeconds: 600 }))).toMatchObject({
			code: 'target_exists',
		});
		expect(await refusal(store.fork('src', 'other', 5, { ttlSeconds: 600 }))).toMatchObject({
			code: 'turn_out_of_range',
			least: 1,
			last: 4,
		});
		expect(await refusal(store.fork('src', 'other', 0, { ttlSeconds: 600 }))).toMatchObject({
			code: 'bad_turn',
		});
		expect(await refusal(store.fork('ghost', 'other', 1, { ttlSeconds: 600 }))).toMatchObject({
			code: 'not_found',
		});
	});

	test('fork keeps the summary when it covers only turns up to N, and otherwise restores the summarised turns up to N', async () => {
		await persistTurns('src', [1, 2, 3]);
		await store.append('src', exchange(4), PERSIST, { summary: summaryThrough(2) });
		expect(await store.fork('src', 'after', 3, { ttlSeconds: 600 })).toMatchObject({
			turns: 1,
			summary: true,
			restored: 0,
		});
		expect(contents((await store.prepare('after', WINDOW)).messages)).toEqual([
			'assistant: summary of turns 1-2',
			'user: question 3',
			'assistant: answer 3',
		]);
		// The fork has the summarised turns in its own archive, so a rewind there brings them back too.
		expect(await whereTurnsAre(store, 'after')).toEqual(['1:summarised', '2:summarised', '3:live']);
		expect(await store.rewind('after', 1, {})).toMatchObject({
			restored: 1,
			summary_dropped: true,
		});

		expect(await store.fork('src', 'inside', 1, { ttlSeconds: 600 })).toMatchObject({
			turns: 1,
			summary: false,
			restored: 1,
		});
		expect(contents((await store.prepare('inside', WINDOW)).messages)).toEqual([
			'user: question 1',
			'assistant: answer 1',
		]);
		expect(await whereTurnsAre(store, 'src')).toEqual([
			'1:summarised',
			'2:summarised',
			'3:live',
			'4:live',
		]);
	});

	test('sessions written before turns were numbered keep working: numbered by position on read, and for good on the first write', async () => {
		await legacy('old', [exchange(1), exchange(2), exchange(3)]);
		const prepared = await store.prepare('old', WINDOW);
		expect(
			prepared.messages.filter((message) => message.role === 'user').map((message) => message.seq),
		).toEqual([1, 2, 3]);
		expect((await store.get('old')).turns.map((turn) => turn.seq)).toEqual([1, 2, 3]);
		expect(await store.append('old', exchange(4), PERSIST)).toMatchObject({ seq: 4 });
		expect(await store.rewind('old', 2, {})).toMatchObject({ archived: 2 });
		expect(await whereTurnsAre(store, 'old')).toEqual([
			'1:live',
			'2:live',
			'3:rewound',
			'4:rewound',
		]);
		await legacy('old-2', [exchange('a'), exchange('b')]);
		expect(await store.fork('old-2', 'old-2-fork', 1, { ttlSeconds: 60 })).toMatchObject({
			turns: 1,
			last_seq: 1,
		});
	});

	test('session keys with braces and percent signs keep their own sessions', async () => {
		for (const session of ['{x}', 'a{b}c', '}{', '%7B', '{']) {
			await persistTurns(session, [`for ${session}`]);
			await store.fork(session, `${session}-fork`, 1, { ttlSeconds: 60 });
			expect(contents((await store.prepare(`${session}-fork`, WINDOW)).messages)[0]).toBe(
				`user: question for ${session}`,
			);
			expect(await store.rewind(session, 0, {})).toMatchObject({ archived: 1, live_turns: 0 });
		}
	});
});

describe('a conversation in the layout before Redis Cluster support (no hash tag, no numbers)', () => {
	test('is moved into the new layout and numbered by the first rewind, fork or summary, atomically, and keeps its expiry', async () => {
		const keyPrefix = redis.keyPrefix('old-layout');
		const store = new RedisContextStore({ connection: { url: redis.url }, keyPrefix });
		try {
			const old = legacyRedisSessionKeys(keyPrefix, 'chat')!;
			await redis.admin.rpush(
				old.turns,
				...[1, 2, 3, 4].map((label) => JSON.stringify(exchange(label))),
			);
			await redis.admin.expire(old.turns, 900);
			expect(await store.fork('chat', 'chat-copy', 2, { ttlSeconds: 60 })).toMatchObject({
				turns: 2,
				last_seq: 2,
			});
			expect(
				await store.append('chat', exchange(5), PERSIST, { summary: summaryThrough(2) }),
			).toMatchObject({ stored: true, seq: 5, archivedTurns: 2 });
			expect(await store.rewind('chat', 3, {})).toMatchObject({ archived: 2, live_turns: 1 });
			expect(await whereTurnsAre(store, 'chat')).toEqual([
				'1:summarised',
				'2:summarised',
				'3:live',
				'4:rewound',
				'5:rewound',
			]);
			expect(await redis.admin.exists(old.turns)).toBe(0);
			expect(await redis.admin.ttl(redisSessionKeys(keyPrefix, 'chat').seq)).toBeGreaterThan(0);
		} finally {
			await store.close();
		}
	});
});
