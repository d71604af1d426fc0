import {
	memoryTokens,
	messagesTokens,
	planMemory,
	splitHistory,
	turnTokens,
	type MemoryMessage,
} from '../../../src/agent/memory/memory';
import { readObservation } from '../../../src/agent/protocol/prompt';

/** A numbered turn as Agent Context's prepare hands it over: the question with its seq, the answer (with tool results, if any). */
const turn = (
	seq: number,
	question: string,
	answer: string,
	tool_results?: MemoryMessage['tool_results'],
): MemoryMessage[] => [
	{ role: 'user', content: question, seq },
	{ role: 'assistant', content: answer, ...(tool_results ? { tool_results } : {}) },
];
const conversation = (count: number, size = 100): MemoryMessage[] =>
	Array.from({ length: count }, (_, index) =>
		turn(
			index + 1,
			`question ${index + 1} ${'q'.repeat(size)}`,
			`answer ${index + 1} ${'a'.repeat(size)}`,
		),
	).flat();

describe('the history fitted by tokens (issue #31)', () => {
	it('counts tokens as UTF-8 bytes / 3, rounded up, plus 4 per message: above what tokenizers count', () => {
		expect(memoryTokens('abc')).toBe(1);
		expect(memoryTokens('abcd')).toBe(2);
		expect(memoryTokens('é')).toBe(1);
		expect(memoryTokens('日本')).toBe(2);
		expect(messagesTokens([{ role: 'user', content: 'abcdef' }])).toBe(6);
	});

	it('sends a history that fits as it is, and says nothing was left out', () => {
		const history = conversation(3);
		const plan = planMemory(history, 10_000, { compact: true, keepRecent: 2 });
		expect(plan).toMatchObject({ kept: 3, dropped: 0 });
		expect(plan.fold).toBeUndefined();
		// Answers go as the protocol's final object, as the conversation sends them.
		expect(plan.history.map((message) => message.content)).toEqual(
			history.map((message) =>
				message.role === 'assistant'
					? JSON.stringify({ type: 'final', answer: message.content })
					: message.content,
			),
		);
	});

	it('folds the turns older than the newest keepRecent when the history is over budget and every turn is numbered', () => {
		const history = conversation(10);
		const perTurn = turnTokens(splitHistory(history).turns[0]);
		const plan = planMemory(history, perTurn * 5, { compact: true, keepRecent: 3 });
		expect(plan.fold?.turns.map((folded) => folded.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
		expect(plan.kept).toBe(3);
		expect(
			plan.history
				.filter((message) => message.role === 'user')
				.map((message) => message.content.split(' ')[1]),
		).toEqual(['8', '9', '10']);
		expect(plan.fold?.tokensBefore).toBe(perTurn * 7);
	});

	it('keeps fewer than keepRecent verbatim when they alone are over budget, never splitting a turn', () => {
		const history = conversation(6);
		const perTurn = turnTokens(splitHistory(history).turns[0]);
		const plan = planMemory(history, perTurn * 2 + 1, { compact: true, keepRecent: 4 });
		expect(plan.kept).toBe(2);
		expect(plan.fold?.turns.map((folded) => folded.seq)).toEqual([1, 2, 3, 4]);
		expect(plan.tokens).toBeLessThanOrEqual(perTurn * 2 + 1);
	});

	it('leaves the oldest turns out (no summary) when the turns are not numbered by a store, or compaction is off', () => {
		const plain = conversation(8).map(({ seq, ...message }) => message);
		const perTurn = turnTokens(splitHistory(plain).turns[0]);
		for (const [history, compact] of [
			[plain, true],
			[conversation(8), false],
		] as const) {
			const plan = planMemory(history, perTurn * 3, { compact, keepRecent: 2 });
			expect(plan.fold).toBeUndefined();
			expect(plan).toMatchObject({ kept: 3, dropped: 5 });
			expect(plan.tokens).toBeLessThanOrEqual(perTurn * 3);
		}
	});

	it('never leaves a gap: a big turn that does not fit ends the window, older small ones are not used to fill it', () => {
		const history = [
			...turn(1, 'small one', 'ok'),
			...turn(2, 'x'.repeat(3000), 'big'),
			...turn(3, 'small three', 'ok'),
		];
		const plan = planMemory(history, 100, { compact: false, keepRecent: 0 });
		expect(plan).toMatchObject({ kept: 1, dropped: 2 });
	});

	it('replays the summary and remembered tool results inside the observation wrapper, as data, with turns still alternating', () => {
		const summary: MemoryMessage = {
			role: 'assistant',
			content: 'The user is Ada; order 4711 shipped.',
			summary: {
				through_seq: 4,
				replaced_turns: 4,
				model: 'm',
				tokens_before: 900,
				tokens_after: 20,
				at: '2026-11-25T00:00:00.000Z',
			},
		};
		const history: MemoryMessage[] = [
			{ role: 'system', content: 'Be brief.' },
			summary,
			...turn(5, 'Where is my order?', 'It shipped on Monday.', [
				{
					step: 1,
					tool: 'lookup',
					args: { id: '4711' },
					observation: '{"status":"shipped","host":"tracking.example.com"}',
				},
			]),
		];
		const plan = planMemory(history, 10_000, { compact: true, keepRecent: 2 });

		expect(plan.history.map((message) => message.role)).toEqual([
			'system',
			'user',
			'assistant',
			'user',
			'assistant',
		]);
		const [, first, action, observation] = plan.history;
		// The summary sits inside the wrapper, joined with the first question (never two user messages in a row).
		expect(readObservation(first.content.split('\n\n')[0])).toEqual({
			tool: 'memory',
			text: 'Summary of the earlier conversation (turns 1–4 of this conversation):\nThe user is Ada; order 4711 shipped.',
		});
		expect(first.content.endsWith('\n\nWhere is my order?')).toBe(true);
		expect(JSON.parse(action.content)).toEqual({
			type: 'action',
			tool: 'lookup',
			args: { id: '4711' },
		});
		expect(readObservation(observation.content)?.text).toContain('tracking.example.com');
		expect(readObservation(observation.content)?.text).toContain('the tool did not run again');
	});

	it('reads a summary only before the first turn, and keeps assistant text before any question as a turn of its own', () => {
		const stray: MemoryMessage = {
			role: 'assistant',
			content: 'not a summary',
			summary: {
				through_seq: 1,
				replaced_turns: 1,
				model: 'm',
				tokens_before: 1,
				tokens_after: 1,
				at: 'x',
			},
		};
		const split = splitHistory([
			{ role: 'assistant', content: 'Hello!' },
			...turn(1, 'hi', 'hey'),
			stray,
		]);
		expect(split.summary).toBeUndefined();
		expect(split.turns.map((one) => one.messages.length)).toEqual([1, 3]);
	});
});
