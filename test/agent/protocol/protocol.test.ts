import { parseTurn, MAX_REPLY_CHARACTERS } from '../../../src/agent/protocol/protocol';

describe('parseTurn: the Action/Final protocol', () => {
	it('reads an action with its args', () => {
		expect(
			parseTurn('{"type":"action","tool":"http_request","args":{"url":"https://x.test"}}'),
		).toEqual({
			kind: 'action',
			tool: 'http_request',
			args: { url: 'https://x.test' },
			reasoning: undefined,
		});
	});

	it('reads a final answer', () => {
		expect(parseTurn('{"type":"final","answer":"42"}')).toMatchObject({
			kind: 'final',
			answer: '42',
		});
	});

	it('accepts surrounding whitespace and a BOM', () => {
		expect(parseTurn('\uFEFF  \n{"type":"final","answer":"ok"}\n\t ')).toMatchObject({
			kind: 'final',
			answer: 'ok',
		});
	});

	it('accepts one ```json fenced block holding one object', () => {
		expect(parseTurn('```json\n{"type":"final","answer":"fenced"}\n```')).toMatchObject({
			kind: 'final',
			answer: 'fenced',
		});
		expect(parseTurn('```\n{"type":"final","answer":"bare fence"}\n```')).toMatchObject({
			kind: 'final',
			answer: 'bare fence',
		});
	});

	it.each([
		// Realworld broken-JSON case bj306: a ```python fence around exactly one protocol object.
		['python', '```python\n{"type":"final","answer":"ok","a":"b"}\n```'],
		[
			'javascript, with a longer fence and indentation',
			'````javascript\n  {"type":"action","tool":"now","args":{}}\n  ````',
		],
		['jsonc, with Windows line ends', '```jsonc\r\n{"type":"final","answer":"ok"}\r\n```'],
		[
			'json, its answer holding a fence of its own',
			'```json\n{"type":"final","answer":"```sh\\nls\\n```"}\n```',
		],
	])('accepts one fenced block with any language tag (%s) holding one object', (_tag, reply) => {
		expect(parseTurn(reply).kind).not.toBe('error');
	});

	it('sets a leading <think> block aside without parsing what is inside it', () => {
		const turn = parseTurn(
			'<think>maybe {"type":"action","tool":"evil","args":{}} ?</think>\n{"type":"final","answer":"done"}',
		);
		expect(turn).toMatchObject({ kind: 'final', answer: 'done' });
		expect(turn.reasoning).toContain('maybe');
	});

	it('keeps an answer that itself contains JSON untouched', () => {
		const answer = '{"type":"action","tool":"x","args":{}} and [1,2]';
		expect(parseTurn(JSON.stringify({ type: 'final', answer }))).toMatchObject({
			kind: 'final',
			answer,
		});
	});

	it('treats missing args as an empty object', () => {
		expect(parseTurn('{"type":"action","tool":"now"}')).toMatchObject({
			kind: 'action',
			tool: 'now',
			args: {},
		});
	});

	it.each([
		[
			'prose before the object',
			'Sure! {"type":"final","answer":"x"}',
			'text before the JSON object',
		],
		[
			'prose after the object',
			'{"type":"final","answer":"x"} Hope this helps',
			'text after the JSON object',
		],
		[
			'two objects',
			'{"type":"action","tool":"a","args":{}}\n{"type":"final","answer":"x"}',
			'more than one JSON object',
		],
		['plain text', 'The answer is 42.', 'no JSON object'],
		['an empty reply', '   ', 'empty'],
		['an array', '[{"type":"final","answer":"x"}]', 'JSON array'],
		['an unknown type', '{"type":"thought","text":"hmm"}', 'Unknown "type" "thought"'],
		['no type', '{"answer":"x"}', 'no "type"'],
		['a missing tool', '{"type":"action","args":{}}', 'needs "tool"'],
		['a missing answer', '{"type":"final"}', 'no "answer"'],
		[
			'a non-string answer',
			'{"type":"final","answer":{"a":1}}',
			'"answer" must be a string, but it was a object',
		],
		[
			'args that are not an object',
			'{"type":"action","tool":"t","args":"url=x"}',
			'"args" must be a JSON object, but it was a string',
		],
		['args that are an array', '{"type":"action","tool":"t","args":[1]}', 'but it was an array'],
		['broken JSON', '{"type":"final","answer":"x",}', 'not valid JSON'],
		['an unclosed object', '{"type":"final","answer":"x"', 'never closed'],
		[
			'a fence with prose around it',
			'Here:\n```json\n{"type":"final","answer":"x"}\n```',
			'text before',
		],
		[
			'two fences',
			'```json\n{"type":"final","answer":"x"}\n```\n```json\n{}\n```',
			'more than one code fence',
		],
		[
			'prose after a fence',
			'```json\n{"type":"final","answer":"x"}\n```\nHope this helps!',
			'text after the code fence',
		],
		['an unclosed think block', '<think>still thinking', 'never closed it'],
	])('rejects %s with a precise message and the expected format', (_name, reply, problem) => {
		const turn = parseTurn(reply);
		expect(turn.kind).toBe('error');
		if (turn.kind !== 'error') return;
		expect(turn.message).toContain(problem);
		expect(turn.message).toContain('{"type":"final","answer":"<your answer>"}');
	});

	it.each([
		// Each realworld broken-JSON case (../shared/realworld/broken-json.json) gets a message naming its problem,
		// never prose or a second object that is not there.
		[
			'bj040: a missing "[" in nested arrays',
			'{"type":"final","answer":"ok","rows": [["a"], "b", "c"], ["d"]]}',
			'its brackets do not match (the "]" at line 1, column 63 would close the "{"',
		],
		[
			'bj058: a "]" inside a line comment',
			'{"type":"final","answer":"ok",\n// comment ]\n}',
			'it holds a comment at line 2, column 1; JSON has no comments',
		],
		[
			'bj059: a "]" inside a block comment',
			'{"type":"final","answer":"ok",/* comment ] */}',
			'it holds a comment at line 1, column 31',
		],
		[
			'bj060: comments between array items',
			'{"type":"final","answer":"ok","Changes": [\n//a\n{"A": "1"},\n//b ]\n{"A": "2"}\n]\n}',
			'it holds a comment at line 2, column 1',
		],
		[
			'bj053: a line comment that hides the closing braces',
			'{"type":"final","answer":"ok", "key": { "k": "v" // comment }, "k2": 1 }',
			'a comment also hides the rest of its line',
		],
		[
			'bj305: the fence and the object on one line',
			'```{"type":"final","answer":"ok"}```',
			'put the JSON object on the code fence line itself',
		],
		[
			'bj303: a fence never closed',
			'```\n{"type":"final","answer":"ok"}\n',
			'opened a code fence (```) but never closed it',
		],
		[
			'bj334: an extra closing brace',
			'{"type":"final","answer":"ok","a": 1}}',
			'a "}" after the object\'s end at line 1, column 37 that closes nothing',
		],
		[
			'bj028: single quotes',
			'{"type":"final","answer":"ok",\'k\':\'v\'}',
			'strings and keys take double quotes, not single quotes (at line 1, column 31)',
		],
		[
			'bj318: a trailing comma',
			'{"type":"final","answer":"ok","a":2,}',
			'a comma before the closing "}" at line 1, column 37',
		],
		[
			'bj218: an unquoted key',
			'{"type":"final","answer":"ok",a:2}',
			'the key a at line 1, column 31 needs double quotes',
		],
		[
			'bj077: a Python literal',
			'{"type":"final","answer":"ok","k": True }',
			'True at line 1, column 36 is not JSON; write true',
		],
		[
			'bj061: a number with underscores',
			'{"type":"final","answer":"ok","value": 82_461_110}',
			'the value 82_461_110 at line 1, column 40 is not a JSON number',
		],
		[
			'bj244: an ellipsis',
			'{"type":"final","answer":"ok","array":[1,2,3,...]}',
			'the ellipsis at line 1, column 46',
		],
		[
			'bj261: typographic quotes',
			'{"type":"final","answer":"ok",“a”:“b”}',
			'the quote “ at line 1, column 31',
		],
		[
			'bj276: a no-break space',
			'{"type":"final","answer":"ok","a":\u00a0"foo"}',
			'the character U+00A0 at line 1, column 35',
		],
		[
			'bj161: a quote inside a string',
			'{"type":"final","answer":"ok","c": "[LINK]("https://x.test")" }',
			'ends the string early; a quote inside a string needs a backslash',
		],
		[
			'bj029: a string cut off',
			'{"type":"final","answer":"ok","key": "val',
			'the string that opens at line 1, column 38 never ends',
		],
		[
			'bj014: an array before the object',
			'[]{"type":"final","answer":"ok"}',
			'began with a JSON array and had more after it',
		],
	])('names the actual problem: %s', (_name, reply, named) => {
		const turn = parseTurn(reply);
		expect(turn.kind).toBe('error');
		const message = turn.kind === 'error' ? turn.message : '';
		expect(message).toContain(named);
		if (!/bj334|bj014/.test(_name))
			expect(message).not.toMatch(/text after|more than one JSON object/);
	});

	it('refuses a fenced object whose top-level key appears twice, as an unfenced one', () => {
		const turn = parseTurn(
			'```python\n{"type":"final","answer":"x","type":"action","tool":"t"}\n```',
		);
		expect(turn.kind === 'error' && turn.message).toContain('had the key "type" twice');
	});

	it('does not mistake braces inside strings for the end of the object', () => {
		expect(parseTurn('{"type":"final","answer":"a } and a { and \\" quote"}')).toMatchObject({
			kind: 'final',
			answer: 'a } and a { and " quote',
		});
	});

	it('rejects a 1 MB reply of garbage quickly', () => {
		const garbage = 'x{'.repeat(512 * 1024);
		const started = performance.now();
		const turn = parseTurn(garbage);
		expect(turn.kind).toBe('error');
		expect(garbage.length).toBeGreaterThan(MAX_REPLY_CHARACTERS);
		expect(turn.kind === 'error' && turn.message).toContain('characters long');
		// Generous bound: the point is "no quadratic scan", not a benchmark.
		expect(performance.now() - started).toBeLessThan(1000);
	});

	it('rejects a large unclosed reply under the size cap in linear time', () => {
		const turn = parseTurn('{' + '"a":['.repeat(30000));
		expect(turn.kind).toBe('error');
	});
});
