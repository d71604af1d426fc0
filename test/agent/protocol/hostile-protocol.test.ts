import {
	MAX_NESTING_DEPTH,
	MAX_REPLY_CHARACTERS,
	parseTurn,
	type ParsedTurn,
} from '../../../src/agent/protocol/protocol';
import { runAgent } from '../../../src/agent/run-agent';
import { final, modelFor, useScriptedServer } from '../../support/agent';
import { useEventLoopWatchdog } from '../../support/watchdog';

/**
 * Replies built to make the protocol reader slow, each as long as a reply may be (MAX_REPLY_CHARACTERS):
 * every one is read in linear time (a quadratic reading of 200,000 characters takes seconds) and gets the
 * repair message that names its actual problem.
 */
const LIMIT = MAX_REPLY_CHARACTERS;
/** `unit` repeated to fill the reply up to the limit, between `head` and `tail`. */
const filled = (head: string, unit: string, tail = '') =>
	head + unit.repeat(Math.floor((LIMIT - head.length - tail.length) / unit.length)) + tail;

/** The parsed turn and how long it took; the reply is checked to be at (or just under) the limit. */
function timedParse(reply: string): { turn: ParsedTurn; ms: number } {
	expect(reply.length).toBeLessThanOrEqual(LIMIT);
	expect(reply.length).toBeGreaterThan(LIMIT - 100);
	const started = performance.now();
	const turn = parseTurn(reply);
	return { turn, ms: performance.now() - started };
}

/** Well under what a quadratic pass over 200,000 characters costs, with room for a busy shared machine. */
const LINEAR_MS = 400;

describe('hostile protocol replies of 200,000 characters', () => {
	useEventLoopWatchdog('protocol');

	it.each([
		// The old fence pattern backtracked over every run of spaces: quadratic.
		[
			'a fence whose body is one long run of spaces with no closing fence',
			filled('```json\n{', ' ', 'x'),
			'opened a code fence (```) but never closed it',
		],
		[
			'a fence line of backtick runs glued to text',
			filled('```\n{"type":"final","answer":"', 'x```', '"}'),
			'never closed it',
		],
		[
			'a fence body of lines that each start with spaces and a fence',
			filled('```\n', '   ```x\n', '```'),
			'more than one code fence',
		],
		[
			'unclosed block comments one after another',
			filled('{"type":"final",', '/* '),
			'the comment that opens at line 1, column 17 never ends',
		],
		[
			'line comments on one line',
			filled('{"type":"final",', '//'),
			'holds a comment at line 1, column 17',
		],
		[
			'a comment, then closing brackets that never match',
			filled('{"a":[/* x */', ']', ''),
			'its brackets do not match',
		],
		[
			'an unclosed string of backslashes and quotes',
			filled('{"answer":"', '\\"'),
			'the string that opens at line 1, column 11 never ends',
		],
		[
			'commas each followed by a long gap',
			filled('{"answer":"x"', ',' + ' '.repeat(49), '}'),
			'a comma before the closing "}"',
		],
		[
			'one endless number-like token',
			filled('{"type":"final","answer":', '1_', '}'),
			'is not a JSON number',
		],
		[
			'a line break per character before the problem',
			filled('{"type":"final","answer":"x"', '\n', ']'),
			'the "]" at line',
		],
		['strings glued to each other', filled('{"answer":', '""', '}'), 'ends the string early'],
		[
			'closing braces after the object',
			filled('{"type":"final","answer":"x"}', '}'),
			'a "}" after the object\'s end',
		],
		[
			'objects after the object',
			filled('{"type":"final","answer":"x"}', '{}'),
			'more than one JSON object',
		],
	])('%s: read in linear time, its problem named', (_name, reply, named) => {
		const { turn, ms } = timedParse(reply);
		expect(turn.kind).toBe('error');
		expect(turn.kind === 'error' && turn.message).toContain(named);
		expect(ms).toBeLessThan(LINEAR_MS);
	});

	it('nesting far past the limit stops at level 65, however long the reply', () => {
		const { turn, ms } = timedParse(filled('{"args":', '['));
		expect(turn.kind === 'error' && turn.message).toContain(
			`more than ${MAX_NESTING_DEPTH} levels deep`,
		);
		expect(ms).toBeLessThan(LINEAR_MS);
	});

	it('an object of 200,000 characters with a duplicate key at its end is refused, in linear time', () => {
		const head = '{"type":"final","answer":"x",';
		const keys: string[] = [];
		for (let index = 0, length = head.length; length < LIMIT - 40; index++)
			length += keys[keys.push(`"k${index}":1,`) - 1].length;
		const { turn, ms } = timedParse(`${head}${keys.join('')}"type":"action","tool":"t"}`);
		expect(turn.kind === 'error' && turn.message).toContain('had the key "type" twice');
		expect(ms).toBeLessThan(LINEAR_MS);
	});

	it('a valid fenced object of 200,000 characters, any language tag, is accepted in linear time', () => {
		const { turn, ms } = timedParse(
			filled('```python\n{"type":"final","answer":"', 'a```b ', '"}\n```'),
		);
		expect(turn).toMatchObject({ kind: 'final' });
		expect(turn.kind === 'final' && (turn.answer as string).length).toBeGreaterThan(LIMIT - 100);
		expect(ms).toBeLessThan(LINEAR_MS);
	});
});

describe('a hostile reply through the engine', () => {
	useEventLoopWatchdog('protocol');
	const server = useScriptedServer();

	it('a 200,000-character fence of spaces gets one repair turn naming the unclosed fence, then the run ends final', async () => {
		const hostile = filled('```json\n{', ' ', 'x');
		server().setScript([hostile, final('recovered')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm' },
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'recovered' });
		expect(server().requests).toHaveLength(2);
		expect(result.trace[0].error).toMatchObject({ type: 'parse_error' });
		expect(result.trace[0].error!.message).toContain(
			'Your reply opened a code fence (```) but never closed it.',
		);
		// The repair turn the model got carries the same sentence.
		expect(server().requests[1].messages.at(-1)!.content).toContain('never closed it');
	});
});
