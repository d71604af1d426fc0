// The neutral messages carry optional memory metadata (seq, tool_results, summary): kept when valid, refused naming the path when not.
import { InputError } from '../../../src/core/input-error';
import { parseMessages } from '../../../src/core/messages';

const summary = {
	through_seq: 3,
	replaced_turns: 3,
	model: 'm',
	tokens_before: 900,
	tokens_after: 120,
	at: '2025-01-01T00:00:00Z',
};

describe('memory metadata on neutral messages', () => {
	it('keeps seq, tool_results and summary when valid, and drops unknown properties everywhere', () => {
		const parsed = parseMessages([
			{
				role: 'assistant',
				content: 'Earlier: the user is Ada.',
				summary: { ...summary, extra: 1 },
				colour: 'red',
			},
			{ role: 'user', content: 'What did the lookup say?', seq: 4, mood: 'curious' },
			{
				role: 'assistant',
				content: 'It said 42.',
				tool_results: [
					{ step: 1, tool: 'lookup', args: { q: 'x' }, observation: '42', secret: 'no' },
				],
			},
		]);
		expect(parsed).toEqual([
			{ role: 'assistant', content: 'Earlier: the user is Ada.', summary },
			{ role: 'user', content: 'What did the lookup say?', seq: 4 },
			{
				role: 'assistant',
				content: 'It said 42.',
				tool_results: [{ step: 1, tool: 'lookup', args: { q: 'x' }, observation: '42' }],
			},
		]);
	});

	it.each([
		[{ role: 'user', content: 'x', seq: 0 }, 'messages_json[0].seq must be a whole number ≥ 1'],
		[{ role: 'user', content: 'x', seq: 1e20 }, 'messages_json[0].seq must be a whole number ≥ 1'],
		[
			{ role: 'assistant', content: 'x', seq: 2 },
			'messages_json[0].seq belongs on the user message',
		],
		[
			{ role: 'user', content: 'x', tool_results: [] },
			'messages_json[0].tool_results belongs on an assistant answer',
		],
		[
			{
				role: 'assistant',
				content: 'x',
				tool_results: [{ step: 1, tool: 't', args: [], observation: '' }],
			},
			'messages_json[0].tool_results[0].args must be an object',
		],
		[
			{ role: 'assistant', content: 'x', summary: { ...summary, through_seq: -1 } },
			'messages_json[0].summary.through_seq must be a whole number ≥ 1',
		],
		[
			{ role: 'user', content: 'x', summary },
			'messages_json[0].summary belongs on an assistant message',
		],
		[
			{ role: 'assistant', content: 'x', summary: { ...summary, at: 'yesterday' } },
			'messages_json[0].summary.at must be an ISO 8601 time',
		],
	])('refuses %j with an InputError naming the path', (message, text) => {
		let caught: unknown;
		try {
			parseMessages([message]);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(InputError);
		expect((caught as InputError).field).toBe('messages_json');
		expect((caught as Error).message).toContain(text);
	});
});
