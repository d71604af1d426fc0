import { checkKnownOptions, nearMiss } from '../../src/core/known-options';
import { InputError } from '../../src/core/input-error';

const KNOWN = { provider: true, apiKey: true, baseUrl: true, maxRetries: true } as const;

/** The error checkKnownOptions throws for `given`, or undefined when it lets it through. */
function refusal(
	given: unknown,
	hint?: (name: string) => string | undefined,
): InputError | undefined {
	try {
		checkKnownOptions('createChatModel', given, KNOWN, hint);
		return undefined;
	} catch (error) {
		expect(error).toBeInstanceOf(InputError);
		return error as InputError;
	}
}

describe('checkKnownOptions: an unknown option is refused, never ignored', () => {
	it('lets known options through, undefined values included', () => {
		expect(refusal({ provider: 'openai', apiKey: 'k' })).toBeUndefined();
		expect(refusal({ provider: 'openai', apiKey: 'k', baseUrl: undefined })).toBeUndefined();
		expect(refusal({})).toBeUndefined();
	});

	it("names the unknown option and the known one it was meant to be (the openai SDK's baseURL)", () => {
		const error = refusal({ provider: 'openai', apiKey: 'k', baseURL: 'http://127.0.0.1:1' })!;
		expect(error.field).toBe('baseURL');
		expect(error.message).toBe(
			'createChatModel: unknown option "baseURL" (did you mean "baseUrl"?); known options: provider, apiKey, baseUrl, maxRetries',
		);
		expect(error.fix).toBe('Rename baseURL to baseUrl.');
	});

	it('refuses an unknown option whose value is undefined: a typo is a typo', () => {
		expect(refusal({ provider: 'openai', apiKey: 'k', baseURL: undefined })?.field).toBe('baseURL');
	});

	it('without a near miss, says which options there are', () => {
		const error = refusal({ provider: 'openai', apiKey: 'k', temperature: 0 })!;
		expect(error.field).toBe('temperature');
		expect(error.message).toBe(
			'createChatModel: unknown option "temperature"; known options: provider, apiKey, baseUrl, maxRetries',
		);
		expect(error.fix).toBe(
			"Remove temperature, or use one of createChatModel's options: provider, apiKey, baseUrl, maxRetries.",
		);
	});

	it('names each unknown option (five at most), the first as the field', () => {
		const given = Object.fromEntries(['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7'].map((k) => [k, 1]));
		const error = refusal({ apikey: 'k', ...given })!;
		expect(error.field).toBe('apikey');
		expect(error.message).toMatch(
			/^createChatModel: unknown options "apikey" \(did you mean "apiKey"\?\), "a1", "b2", "c3", "d4" and 3 more;/,
		);
	});

	it('finds near misses by case, separators, one swap and small edits, and not beyond', () => {
		const run = ['model', 'prompt', 'messages', 'sessionId', 'stateSecret', 'runKey'];
		expect(nearMiss('promt', run)).toBe('prompt');
		expect(nearMiss('Prompt', run)).toBe('prompt');
		expect(nearMiss('session_id', run)).toBe('sessionId');
		expect(nearMiss('sesionId', run)).toBe('sessionId');
		expect(nearMiss('stateSercet', run)).toBe('stateSecret');
		expect(nearMiss('messges', run)).toBe('messages');
		expect(nearMiss('run-key', run)).toBe('runKey');
		expect(nearMiss('maxSteps', run)).toBeUndefined();
		expect(nearMiss('mode', run)).toBe('model');
		expect(nearMiss('xy', run)).toBeUndefined();
		expect(nearMiss('modal', ['model', 'mode'])).toBe('model');
	});

	it('refuses keys only an object literal of its own holds: __proto__, constructor, toString', () => {
		expect(refusal(JSON.parse('{"apiKey":"k","__proto__":{"baseUrl":"x"}}'))?.field).toBe(
			'__proto__',
		);
		expect(refusal({ constructor: 1 })?.field).toBe('constructor');
		expect(refusal({ toString: 1 })?.field).toBe('toString');
	});

	it('refuses what is not an options object, naming the options', () => {
		for (const [given, what] of [
			[undefined, 'undefined'],
			[null, 'null'],
			[[], 'an array'],
			['openai', 'string'],
		] as const) {
			const error = refusal(given)!;
			expect(error.field).toBe('options');
			expect(error.message).toBe(`createChatModel takes one options object, not ${what}`);
			expect(error.fix).toBe(
				'Call createChatModel with an object of its options: provider, apiKey, baseUrl, maxRetries.',
			);
		}
	});

	it('shows a hostile name escaped and cut: no control or bidi character, no megabyte in the message', () => {
		const error = refusal({ 'a\nb\u001b[31m\u202egnp.exe': 1, ['x'.repeat(1_000_000)]: 2 })!;
		expect(error.message).toContain('"a\\nb\\u001b[31m\\u202egnp.exe"');
		expect(error.message).not.toMatch(/[\u0000-\u001f\u202e]/);
		expect(error.message).toContain(`"${'x'.repeat(60)}\\u2026"`);
		expect(error.message.length).toBeLessThan(400);
		expect(error.field).toBe('a\\nb\\u001b[31m\\u202egnp.exe');
		expect(error.fix).not.toMatch(/[\u0000-\u001f\u202e]/);
	});

	it('says where an unknown option belongs when the caller knows (a config key, say)', () => {
		const hint = (name: string) =>
			name === 'maxSteps' ? 'a config key: config.max_steps' : undefined;
		expect(refusal({ maxSteps: 3 }, hint)?.message).toMatch(
			/^createChatModel: unknown option "maxSteps" \(a config key: config\.max_steps\);/,
		);
	});
});
