import { parseTurn, type TurnRules } from '../../../src/agent/protocol/protocol';
import { protocolSchema } from '../../../src/agent/protocol/protocol-schema';
import { buildSystemPrompt } from '../../../src/agent/protocol/prompt';
import type { Tool } from '../../../src/tools/tool';

const FOUR = { maxParallelCalls: 4 };
const call = (tool: string, args: unknown = {}) => ({ tool, args });
const actions = (calls: unknown, extra: Record<string, unknown> = {}) =>
	JSON.stringify({ type: 'actions', calls, ...extra });
const messageOf = (reply: string, rules: TurnRules = FOUR) => {
	const turn = parseTurn(reply, rules);
	expect(turn.kind).toBe('error');
	return (turn as { message: string }).message;
};

describe('parseTurn: the "actions" form (several tool calls in one reply)', () => {
	it('reads every call in order, with their args', () => {
		expect(parseTurn(actions([call('a', { x: 1 }), call('b'), call('a', { x: 2 })]), FOUR)).toEqual(
			{
				kind: 'actions',
				calls: [
					{ tool: 'a', args: { x: 1 } },
					{ tool: 'b', args: {} },
					{ tool: 'a', args: { x: 2 } },
				],
				reasoning: undefined,
			},
		);
	});

	it('at max_parallel_calls 1 (and by default) "actions" is a protocol error that says to send one action', () => {
		for (const rules of [{ maxParallelCalls: 1 }, {}]) {
			const message = messageOf(actions([call('a')]), rules);
			expect(message).toContain('"actions" is not available');
			expect(message).toContain('Send one action');
		}
	});

	it('refuses more calls than max_parallel_calls, naming both numbers', () => {
		const message = messageOf(actions([call('a'), call('b'), call('c'), call('d'), call('e')]));
		expect(message).toContain('"calls" held 5 calls; at most 4');
		expect(parseTurn(actions([call('a'), call('b'), call('c'), call('d')]), FOUR).kind).toBe(
			'actions',
		);
	});

	it('refuses "calls" that is not an array, or is empty', () => {
		expect(messageOf(actions({ tool: 'a', args: {} }))).toContain('"calls" must be an array');
		expect(messageOf(actions('a,b'))).toContain('but it was a string');
		expect(messageOf(JSON.stringify({ type: 'actions' }))).toContain('but it was missing');
		expect(messageOf(actions([]))).toContain('"calls" was empty');
	});

	it('names the call by its number: not an object, no tool, args not an object', () => {
		expect(messageOf(actions([call('a'), 'b']))).toContain('Call 2 must be an object');
		expect(messageOf(actions([call('a'), call('b'), { args: {} }]))).toContain(
			'Call 3 needs "tool"',
		);
		expect(messageOf(actions([call('a', [1])]))).toContain(
			`Call 1's "args" must be a JSON object, but it was an array`,
		);
	});

	it('refuses a call that is itself a final answer, and a batch that also answers', () => {
		expect(messageOf(actions([call('a'), { type: 'final', answer: 'done' }]))).toContain(
			'Call 2 held "type"',
		);
		expect(messageOf(actions([call('a'), { tool: 'b', args: {}, answer: 'x' }]))).toContain(
			'Call 2 held "answer"',
		);
		expect(messageOf(actions([call('a')], { answer: 'done' }))).toContain('also held an "answer"');
	});

	it('refuses a key given twice inside one call (JSON.parse would keep the last: checked as one tool, run as another)', () => {
		const reply =
			'{"type":"actions","calls":[{"tool":"a","args":{}},{"tool":"read","args":{},"tool":"delete"}]}';
		expect(messageOf(reply)).toContain('Call 2 had the key "tool" twice');
		const escaped = '{"type":"actions","calls":[{"tool":"a","args":{},"t\\u006fol":"b"}]}';
		expect(messageOf(escaped)).toContain('Call 1 had the key "tool" twice');
		// The same key in two different calls, or inside args of different calls, is no duplicate.
		const fine =
			'{"type":"actions","calls":[{"tool":"a","args":{"k":1}},{"tool":"a","args":{"k":2}}]}';
		expect(parseTurn(fine, FOUR).kind).toBe('actions');
	});

	it('a duplicate top-level key still wins over everything inside (an actions reply that ends as a final)', () => {
		const reply = '{"type":"actions","calls":[{"tool":"a","args":{}}],"type":"final","answer":"x"}';
		expect(messageOf(reply)).toContain('the key "type" twice');
	});

	it('refuses calls nested past the depth limit without a stack overflow', () => {
		const deep = '['.repeat(100) + ']'.repeat(100);
		const message = messageOf(`{"type":"actions","calls":[{"tool":"a","args":{"x":${deep}}}]}`);
		expect(message).toContain('levels deep');
	});

	it('a strict json_schema reply writes "args": null for no args', () => {
		const turn = parseTurn(actions([{ tool: 'a', args: null }]), {
			...FOUR,
			nullArgsAsAbsent: true,
		});
		expect(turn).toMatchObject({ kind: 'actions', calls: [{ tool: 'a', args: {} }] });
	});
});

const tool = (name: string): Tool => ({
	name,
	description: `the ${name} tool`,
	parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
	execute: async () => 'ok',
});

describe('the prompt and the json_schema protocol offer "actions" only when max_parallel_calls is above 1', () => {
	it('the system message names the form and the number at 4, and not at 1', () => {
		expect(
			buildSystemPrompt([tool('a')], undefined, undefined, 'on_error', undefined, 4),
		).toContain(', {"type":"actions","calls":[≤4 {"tool","args"}]} or {"type":"final"');
		expect(
			buildSystemPrompt([tool('a')], undefined, undefined, 'on_error', undefined, 1),
		).not.toContain('actions');
	});

	it('the schema gains "actions" and calls of at most max_parallel_calls items, each with a tool and its args', () => {
		const schema = protocolSchema([tool('a'), tool('b')], undefined, 3) as any;
		expect(schema.properties.type.enum).toEqual(['action', 'actions', 'final']);
		expect(schema.properties.calls.maxItems).toBe(3);
		expect(schema.properties.calls.items.properties.tool.enum).toEqual(['a', 'b']);
		expect(schema.properties.calls.items.properties.args.anyOf).toHaveLength(2);
		const single = protocolSchema([tool('a')], undefined, 1) as any;
		expect(single.properties.type.enum).toEqual(['action', 'final']);
		expect(single.properties.calls).toBeUndefined();
	});
});
