// What a guardrail finds in texts and values, and the same redacted: secrets, patterns, pii, keys and numbers.
import {
	checkGuardrails,
	findInValue,
	findMatches,
	hasMatch,
	redactInValue,
	redactMatches,
} from '../../src/guardrails';

const [pii, secrets, internal] = checkGuardrails([
	{ name: 'pii', check: 'pii', on: ['answer'], action: 'redact' },
	{ name: 'secrets', check: 'secrets', on: ['tool_call'], action: 'redact' },
	{
		name: 'internal',
		check: 'pattern',
		pattern: 'internal[ -]only|ref-\\d+',
		on: ['answer'],
		action: 'redact',
	},
]);

describe('findMatches and redactMatches', () => {
	test('each pii kind is found with its kind, sorted, and redacted under the guardrail name', () => {
		const text =
			'Mail jane@example.com, call +44 20 7946 0000, card 4111 1111 1111 1111, ' +
			'IBAN GB82 WEST 1234 5698 7654 32, from 10.0.0.1.';
		const matches = findMatches(pii, text);
		expect(matches.map((match) => match.kind)).toEqual([
			'email',
			'phone',
			'credit_card',
			'iban',
			'ip_address',
		]);
		expect(redactMatches(text, matches, 'pii')).toBe(
			'Mail [redacted:pii], call [redacted:pii], card [redacted:pii], IBAN [redacted:pii], from [redacted:pii].',
		);
	});

	test('only the kinds asked for', () => {
		const [cards] = checkGuardrails([
			{ name: 'c', check: 'pii', kinds: ['credit_card'], on: ['answer'], action: 'block' },
		]);
		expect(findMatches(cards, 'jane@example.com 4111111111111111').map((m) => m.kind)).toEqual([
			'credit_card',
		]);
	});

	test('secrets: every shape the redactor knows, and nothing it would leave', () => {
		const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
		const text =
			`key sk-abcdefghijklmnop1234 and AKIAABCDEFGHIJKLMNOP, ${jwt}, ` +
			'Authorization: Bearer abcdefgh12345678, https://x.test/?api_key=hunter22 {"password": "pw"}';
		expect(redactMatches(text, findMatches(secrets, text), 's')).toBe(
			'key [redacted:s] and [redacted:s], [redacted:s], Authorization: Bearer [redacted:s], ' +
				'https://x.test/?api_key=[redacted:s] {"password": "[redacted:s]"}',
		);
		expect(findMatches(secrets, 'sk-short, skeleton key, a token of thanks, max_tokens=5')).toEqual(
			[],
		);
	});

	test('a pattern: each non-empty match, in the engine that runs schema patterns', () => {
		const text = 'This is internal only (ref-42), INTERNAL ONLY is not.';
		expect(redactMatches(text, findMatches(internal, text), 'internal')).toBe(
			'This is [redacted:internal] ([redacted:internal]), INTERNAL ONLY is not.',
		);
	});
});

describe('hasMatch', () => {
	test('answers as findMatches does, for a pattern without positions', () => {
		for (const text of ['internal only here', 'nothing here', 'INTERNAL ONLY', 'jane@example.com'])
			for (const guardrail of [pii, internal])
				expect(hasMatch(guardrail, text)).toBe(findMatches(guardrail, text).length > 0);
	});

	test('a text too long for the pattern budget counts as found', () => {
		const [large] = checkGuardrails([
			{ name: 'large', check: 'pattern', pattern: '[a-z]{500}q', on: ['answer'], action: 'block' },
		]);
		expect(hasMatch(large, 'x'.repeat(20_000))).toBe(true);
		expect(hasMatch(large, 'x'.repeat(100))).toBe(false);
	});
});

describe('findInValue and redactInValue', () => {
	test('every string and key of args, numbers as their text, with paths', () => {
		const args = {
			to: ['jane@example.com'],
			card: 4111111111111111,
			'bob@example.com': { note: 'ok' },
		};
		expect(
			findInValue(pii, args).map(({ path, in: where, kind }) => ({ path, in: where, kind })),
		).toEqual([
			{ path: ['bob@example.com'], in: 'key', kind: 'email' },
			{ path: ['to', 0], in: 'value', kind: 'email' },
			{ path: ['card'], in: 'value', kind: 'credit_card' },
		]);
	});

	test('a value under a secret-named key is a secret whatever it looks like', () => {
		const args = { user: 'jane', password: 'hunter2', nested: { API_KEY: 12345 } };
		expect(findInValue(secrets, args).map((find) => find.path)).toEqual([
			['password'],
			['nested', 'API_KEY'],
		]);
		expect(redactInValue(secrets, args)).toEqual({
			user: 'jane',
			password: '[redacted:secrets]',
			nested: { API_KEY: '[redacted:secrets]' },
		});
	});

	test('redactInValue copies: keys redacted (two equal ones numbered), the input unchanged', () => {
		const args = JSON.parse(
			'{"a@example.com": 1, "b@example.com": 2, "list": ["call +14155552671", 7], "__proto__": "x"}',
		);
		const copy = redactInValue(pii, args);
		expect(copy).toEqual(
			JSON.parse(
				'{"[redacted:pii]": 1, "[redacted:pii] #2": 2, "list": ["call [redacted:pii]", 7], "__proto__": "x"}',
			),
		);
		expect(Object.keys(args)).toContain('a@example.com');
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
	});
});
