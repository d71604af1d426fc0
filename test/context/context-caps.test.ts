import { MemoryContextStore } from '../../src/context/memory/memory-store';
import { persistSession, prepareSession } from '../../src/context/session/session';
import {
	DEFAULT_MAX_HISTORY_CHARACTERS,
	DEFAULT_MAX_TURN_CHARACTERS,
} from '../../src/context/store';
import { PERSIST } from '../support/context';

/** Issue #12: memory stays bounded by default, whatever the model answered. */
describe('history caps', () => {
	it('a stored turn keeps at most DEFAULT_MAX_TURN_CHARACTERS, each message cut with a visible marker', async () => {
		const store = new MemoryContextStore();
		const answer = 'a'.repeat(1_000_000);
		await persistSession(store, {
			sessionId: 's',
			...PERSIST,
			messages: [
				{ role: 'user', content: 'q' },
				{ role: 'assistant', content: answer },
			],
		});
		const [turn] = (await store.get('agent_core:ctx:s')).turns;
		expect(turn.messages[0].content).toBe('q');
		expect(turn.messages[1].content.length).toBeLessThan(DEFAULT_MAX_TURN_CHARACTERS);
		expect(turn.messages[1].content).toMatch(/… \[cut \d+ of 1000000 characters\]$/);
	});

	it('the stored turn size is configurable, and a nonsense value is refused naming the field', async () => {
		const store = new MemoryContextStore();
		const messages = [
			{ role: 'user', content: 'x'.repeat(5000) },
			{ role: 'assistant', content: 'ok' },
		];
		await persistSession(store, { sessionId: 's', ...PERSIST, messages, maxTurnCharacters: 1000 });
		expect((await store.get('agent_core:ctx:s')).turns[0].messages[0].content.length).toBeLessThan(
			1100,
		);
		await expect(
			persistSession(store, { sessionId: 's', ...PERSIST, messages, maxTurnCharacters: 5 }),
		).rejects.toThrow(/maxTurnCharacters must be an integer ≥ 100/);
	});

	it('a window without a character budget still replays at most DEFAULT_MAX_HISTORY_CHARACTERS, newest turns first', async () => {
		const store = new MemoryContextStore();
		const big = 'b'.repeat(DEFAULT_MAX_TURN_CHARACTERS - 1000);
		for (let turn = 0; turn < 10; turn++) {
			await persistSession(store, {
				sessionId: 's',
				...PERSIST,
				messages: [
					{ role: 'user', content: `${turn}${big}` },
					{ role: 'assistant', content: 'ok' },
				],
			});
		}
		const prepared = await prepareSession(store, {
			sessionId: 's',
			window: { maxTurns: 0, maxCharacters: 0 },
			userMessage: 'new',
		});
		expect(prepared.history_characters).toBeLessThanOrEqual(DEFAULT_MAX_HISTORY_CHARACTERS);
		expect(prepared.truncated).toBe(true);
		expect(prepared.messages_json.at(-3)?.content.startsWith('9')).toBe(true);
	});

	it('an unanswered question in older stored history never reaches the model as two user messages in a row', async () => {
		const store = new MemoryContextStore();
		// As a version that persisted unanswered runs left it.
		await store.persist(
			'agent_core:ctx:s',
			{ messages: [{ role: 'user', content: 'lost question' }], at: new Date().toISOString() },
			PERSIST,
		);
		const prepared = await prepareSession(store, {
			sessionId: 's',
			window: {},
			userMessage: 'new question',
		});
		expect(prepared.messages_json).toEqual([{ role: 'user', content: 'new question' }]);
	});
});
