import { FinalAnswerExtractor } from '../../../src/agent/model/answer/answer-stream';
import { parseTurn } from '../../../src/agent/protocol/protocol';

/** Feeds the reply one character at a time (every possible split point) and returns the text and the final state. */
function extract(reply: string, pieceLength = 1) {
	const extractor = new FinalAnswerExtractor();
	let text = '';
	for (let index = 0; index < reply.length; index += pieceLength)
		text += extractor.push(reply.slice(index, index + pieceLength));
	return { text, state: extractor.state };
}

describe('FinalAnswerExtractor: the answer text of a reply still arriving', () => {
	it.each([
		['plain', '{"type":"final","answer":"Hello there"}'],
		['whitespace and a BOM', '\uFEFF \n {\n  "type" : "final",\n  "answer" : "Hello there"\n}\n'],
		[
			'a <think> block split everywhere',
			'<think>{"type":"final","answer":"no"} </thi </think>\n{"type":"final","answer":"Hello there"}',
		],
		['a ```json fence', '```json\n{"type":"final","answer":"Hello there"}\n```'],
		['a ```JSON fence with CRLF', '```JSON \r\n{"type":"final","answer":"Hello there"}\r\n```'],
		['a bare ``` fence', '```\n{"type":"final","answer":"Hello there"}\n```'],
		// Any language tag, as the protocol accepts it (issue #27; realworld broken-JSON cases bj301, bj302, bj306).
		['a ```python fence', '```python\n{"type":"final","answer":"Hello there"}\n```'],
		[
			'a ```js fence with a tag of two words',
			'```js title="answer" \n{"type":"final","answer":"Hello there"}\n```',
		],
		['a four-backtick fence', '````json\n{"type":"final","answer":"Hello there"}\n````'],
	])('reads the answer after %s, split at every character', (_label, reply) => {
		expect(parseTurn(reply)).toMatchObject({ kind: 'final', answer: 'Hello there' });
		for (const pieceLength of [1, 2, 5, reply.length]) {
			expect(extract(reply, pieceLength)).toEqual({ text: 'Hello there', state: 'closed' });
		}
	});

	it.each([
		['an action', '{"type":"action","tool":"json_transform","args":{}}'],
		['keys in another order', '{"answer":"Hello there","type":"final"}'],
		['prose before the object', 'Sure! {"type":"final","answer":"Hello there"}'],
		['a <think> block that never closes', '<think>{"type":"final","answer":"Hello there"}'],
		['an array', '[{"type":"final","answer":"Hello there"}]'],
		['an answer that is not a string', '{"type":"final","answer":["Hello there"]}'],
		['the object on the fence line', '```json {"type":"final","answer":"Hello there"}\n```'],
	])('says nothing for %s', (_label, reply) => {
		expect(extract(reply).text).toBe('');
	});

	it('decodes every JSON escape, a \\u escape split at each of its characters, and stops at the closing quote', () => {
		const reply =
			'{"type":"final","answer":"a\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\\u00e9j\\ud83d\\ude00k"} trailing';
		const expected = JSON.parse(reply.slice(0, reply.indexOf('}') + 1)).answer;
		for (const pieceLength of [1, 2, 3, 4, 7])
			expect(extract(reply, pieceLength)).toEqual({ text: expected, state: 'closed' });
	});

	it('falls silent at an invalid escape or a raw control character, keeping what came before', () => {
		expect(extract('{"type":"final","answer":"ok \\x more"}')).toEqual({
			text: 'ok ',
			state: 'silent',
		});
		expect(extract('{"type":"final","answer":"ok \\u12G4 more"}')).toEqual({
			text: 'ok ',
			state: 'silent',
		});
		expect(extract('{"type":"final","answer":"ok \n more"}')).toEqual({
			text: 'ok ',
			state: 'silent',
		});
	});

	it('stays undecided through a long reasoning block and only then reads the answer', () => {
		const reasoning = 'step '.repeat(20_000);
		expect(extract(`<think>${reasoning}</think>{"type":"final","answer":"done"}`, 1000)).toEqual({
			text: 'done',
			state: 'closed',
		});
	});
});
