import { CIRCULAR, REDACTED, Redactor, secretsInSettings } from '../../src/trace/redact';

/**
 * Output a hostile model or server controls: worst cases for the secret shapes' regular expressions,
 * values nested deeper than any recursion survives, cycles, keys that plain assignment drops, and
 * known secrets spelled in the encodings servers echo them in.
 */

const TWO_HUNDRED_KB = 200_000;

/** Long enough to catch a quadratic pattern (minutes on 200 KB), generous enough that a noisy box cannot fail a linear one (milliseconds). */
const NOT_QUADRATIC_MS = 2_000;

const repeatedTo = (unit: string, length: number) =>
	unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

const millisecondsFor = (work: () => void) => {
	const started = performance.now();
	work();
	return performance.now() - started;
};

describe('Redactor on adversarial text', () => {
	// Each shape's own prefix repeated: every position is a place the pattern may start, and from each start
	// a naive pattern scans the rest of the text before failing.
	const worstCases = [
		'-eyJ',
		'.eyJ',
		'eyJaaaaa.',
		'-eyJaaaaa.eyJaaaaa.',
		'eyJ-',
		'Bearer ',
		'Basic\t',
		'Token ',
		'sk-',
		'-sk-',
		'-AIza',
		'-ghp_',
		'ghp_a',
		'-github_pat_',
		'-xoxb-',
		'-AKIA',
		'?token=',
		'&api_key',
		'"password":"',
		'"password" ',
		'"password":"\\',
		'"token":"\\"',
	];

	it.each(worstCases)(
		'redacts 200 KB of %j repeated in linear time and still catches a secret at its end',
		(unit) => {
			const redactor = new Redactor(['known-secret-value-42']);
			const text = `${repeatedTo(unit, TWO_HUNDRED_KB)} sk-ABCDEFGHIJKLMNOPQRSTUV known-secret-value-42`;
			let result = '';
			const elapsed = millisecondsFor(() => {
				result = redactor.text(text);
			});
			expect(elapsed).toBeLessThan(NOT_QUADRATIC_MS);
			expect(result.endsWith(` ${REDACTED} ${REDACTED}`)).toBe(true);
		},
	);
});

describe('Redactor on long strings', () => {
	const EIGHT_MB = 8_000_000;

	// Patterns like `[...]{16,}` or `(?:[^"\\]|\\.)*` keep a backtracking entry per character in V8 and throw
	// "Maximum call stack size exceeded" on strings of a few megabytes; skipping such strings would leak.
	it.each([
		[
			'a secret JSON field whose value is 16 MB',
			`{"password":"${'x'.repeat(2 * EIGHT_MB)}\\"still the value","user":"bob"}`,
			`{"password":"${REDACTED}","user":"bob"}`,
		],
		['a key-shaped run of megabytes', `key sk-${'a'.repeat(EIGHT_MB)} end`, `key ${REDACTED} end`],
		[
			'a bearer token of megabytes',
			`Authorization: Bearer ${'b'.repeat(EIGHT_MB)}`,
			`Authorization: Bearer ${REDACTED}`,
		],
		[
			'a JWT of megabytes',
			`jwt eyJ${'a'.repeat(EIGHT_MB / 2)}.eyJ${'b'.repeat(EIGHT_MB / 2)}.c2lnbmF0dXJl!`,
			`jwt ${REDACTED}!`,
		],
	])('redacts %s whole', (_name, text, expected) => {
		expect(new Redactor([]).text(text)).toBe(expected);
	});

	it('replaces a known secret anywhere in megabytes of text that almost repeats it', () => {
		const secret = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaab';
		const text = `${'a'.repeat(EIGHT_MB)}b ${secret.slice(0, -1).repeat(1000)} ${secret}`;
		const result = new Redactor([secret]).text(text);
		expect(result).not.toContain(secret);
		expect(result.endsWith(` ${REDACTED}`)).toBe(true);
		expect(result.length).toBe(text.length - 2 * secret.length + 2 * REDACTED.length);
	});

	it('replaces 50 known secrets in 200 KB of text made of their near misses in linear time', () => {
		const secrets = Array.from({ length: 50 }, (_, index) => `secret-${index}-${'x'.repeat(40)}`);
		const redactor = new Redactor(secrets);
		const text = `${repeatedTo(secrets.map((secret) => secret.slice(0, -1)).join(' '), TWO_HUNDRED_KB)} ${secrets[49]}`;
		let result = '';
		expect(millisecondsFor(() => (result = redactor.text(text)))).toBeLessThan(NOT_QUADRATIC_MS);
		expect(result.endsWith(` ${REDACTED}`)).toBe(true);
	});
});

describe('Redactor on hostile values', () => {
	const redactor = new Redactor(['known-secret-value-42']);
	const DEPTH = 100_000;

	it('redacts the bottom of an object nested 100,000 levels deep without overflowing the stack', () => {
		let input: Record<string, unknown> = {
			api_key: 'deep-key',
			note: 'uses known-secret-value-42',
		};
		for (let level = 0; level < DEPTH; level += 1) input = { level, next: input };
		let output = redactor.value(input);
		for (let level = 0; level < DEPTH; level += 1) output = output.next as Record<string, unknown>;
		expect(output).toEqual({ api_key: REDACTED, note: `uses ${REDACTED}` });
	});

	it('redacts the bottom of arrays nested 100,000 levels deep', () => {
		let input: unknown[] = ['sk-ABCDEFGHIJKLMNOPQRSTUV'];
		for (let level = 0; level < DEPTH; level += 1) input = [input];
		let output = redactor.value(input);
		for (let level = 0; level < DEPTH; level += 1) output = output[0] as unknown[];
		expect(output).toEqual([REDACTED]);
	});

	it('replaces a value met again inside itself with [Circular] and redacts the rest', () => {
		const node: Record<string, unknown> = { name: 'loop', token: 'abc-secret-token' };
		node.self = node;
		node.children = [{ parent: node, note: 'known-secret-value-42' }];
		const output = redactor.value(node);
		expect(output).toEqual({
			name: 'loop',
			token: REDACTED,
			self: CIRCULAR,
			children: [{ parent: CIRCULAR, note: REDACTED }],
		});
		expect(() => JSON.stringify(output)).not.toThrow();
	});

	it('copies an object referenced twice (not a cycle) in both places', () => {
		const shared = { note: 'sk-ABCDEFGHIJKLMNOPQRSTUV' };
		expect(redactor.value({ left: shared, right: [shared] })).toEqual({
			left: { note: REDACTED },
			right: [{ note: REDACTED }],
		});
	});

	it('finishes on shared references that would be 2^64 copies if each were copied apart', () => {
		let level: unknown = { note: 'known-secret-value-42' };
		for (let index = 0; index < 64; index += 1) level = [level, level];
		let output = redactor.value(level) as unknown;
		for (let index = 0; index < 64; index += 1) output = (output as unknown[])[1];
		expect(output).toEqual({ note: REDACTED });
	});

	it('keeps __proto__, constructor and prototype keys as own enumerable properties of a plain object', () => {
		const input = JSON.parse(
			'{"__proto__":{"password":"hunter2","ok":1},"constructor":"sk-ABCDEFGHIJKLMNOPQRSTUV","prototype":{"x":1},"toString":"text"}',
		);
		const output = redactor.value(input);
		expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
		expect(Object.keys(output)).toEqual(['__proto__', 'constructor', 'prototype', 'toString']);
		expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({
			password: REDACTED,
			ok: 1,
		});
		expect(JSON.stringify(output)).toBe(
			`{"__proto__":{"password":"${REDACTED}","ok":1},"constructor":"${REDACTED}","prototype":{"x":1},"toString":"text"}`,
		);
	});

	it('redacts secrets in keys and keeps every key when redaction makes two of them equal', () => {
		const input = {
			'sk-AAAAAAAAAAAAAAAAAAAAAA': 1,
			'sk-BBBBBBBBBBBBBBBBBBBBBB': 2,
			[`${REDACTED} #2`]: 3,
			'known-secret-value-42': 4,
			plain: 5,
		};
		const output = redactor.value(input);
		expect(JSON.stringify(output)).not.toMatch(/sk-|known-secret/);
		expect(Object.values(output).sort()).toEqual([1, 2, 3, 4, 5]);
		expect(output).toMatchObject({ [REDACTED]: 1, [`${REDACTED} #2`]: 2, plain: 5 });
	});
});

describe('secretsInSettings on hostile settings', () => {
	it('skips settings that are not objects and ignores inherited properties', () => {
		const inherited = Object.create({
			headers: { 'X-Inherited': 'inherited-value' },
			api_key: 'inherited-key',
		});
		inherited.password = 'own-password';
		const settings = { broken: null, text: 'plain', inherited } as unknown as Record<
			string,
			Record<string, unknown>
		>;
		expect(secretsInSettings(settings)).toEqual(['own-password']);
	});

	it('searches a __proto__ key written in JSON like any other key', () => {
		const settings = JSON.parse('{"http_request":{"__proto__":{"api_key":"under-proto-key"}}}');
		expect(secretsInSettings(settings)).toEqual(['under-proto-key']);
	});

	it('finishes on settings that refer to themselves many times over', () => {
		const wide: Record<string, unknown> = { password: 'loop-password' };
		for (let index = 0; index < 20; index += 1) wide[`branch${index}`] = wide;
		expect(secretsInSettings({ tool: wide })).toEqual(['loop-password']);
	});
});
