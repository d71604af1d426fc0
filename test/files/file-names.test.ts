// A file name in the library's errors: secrets redacted, controls and bidi characters escaped (issue #48).
import { runAgent } from '../../src/agent/run-agent';
import type { ChatModel } from '../../src/providers/chat-model';
import { shownFileName } from '../../src';
import { png } from '../support/files';

const KEY = 'sk-proj-' + 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const RAW = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

const unusedModel: ChatModel = {
	provider: 'openai',
	async generate() {
		throw new Error('no model call is expected');
	},
};

const refusal = async (name: string, data: Buffer = png()): Promise<string> => {
	const error = await runAgent({
		model: unusedModel,
		config: { model: 'm', allowed_tools: [] },
		prompt: 'q',
		files: [{ name, data }],
	}).catch((caught: Error) => caught);
	expect(error).toBeInstanceOf(Error);
	return (error as Error).message;
};

describe('runAgent files: a name in an error', () => {
	it.each([
		['a line break and an escape sequence', 'a\nb\u001b[31m.png', '"a\\nb\\x1b[31m.png"'],
		['a right-to-left override', 'invoice\u202egnp.exe', '"invoice\\u202egnp.exe"'],
		['an isolate and a C1 control', 'x\u2067y\u0085.png', '"x\\u2067y\\x85.png"'],
		['a key and a line separator', `${KEY}\u2028.png`, '"[REDACTED]\\u2028.png"'],
	])('with %s is refused, shown escaped', async (_, name, shown) => {
		const message = await refusal(name);
		expect(message).toContain(`${shown} holds a control or bidirectional character`);
		expect(message).not.toMatch(RAW);
		expect(message).not.toContain(KEY);
	});

	it('that looks like a key is redacted when its bytes are refused', async () => {
		const message = await refusal(`${KEY}.png`, Buffer.from('<!-- c --><html></html>'));
		expect(message).toContain('"[REDACTED]');
		expect(message).not.toContain(KEY);
	});
});

describe('shownFileName', () => {
	it('redacts, then escapes each control and bidirectional character', () => {
		expect(shownFileName(`./${KEY}\t\r\u001b\u200f\u061c.png`)).toBe(
			'./[REDACTED]\\t\\r\\x1b\\u200f\\u061c.png',
		);
		expect(shownFileName('plain name (1).png')).toBe('plain name (1).png');
	});
});
