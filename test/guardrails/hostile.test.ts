// Hostile texts and values against every check: long runs built to make a scan quadratic, deep and cyclic args,
// look-alikes of secrets, and a pattern whose work the budget cuts short (what is left unchecked counts as found).
import { checkGuardrails, findInValue, findMatches, redactInValue } from '../../src/guardrails';

const every = checkGuardrails([
	{ name: 'pii', check: 'pii', on: ['answer'], action: 'redact' },
	{ name: 'secrets', check: 'secrets', on: ['answer'], action: 'redact' },
	{
		name: 'urls',
		check: 'urls',
		allowed_hosts: ['api.example.com'],
		on: ['answer'],
		action: 'block',
	},
	{ name: 'pattern', check: 'pattern', pattern: 'internal only', on: ['answer'], action: 'block' },
	{
		name: 'keywords',
		check: 'keywords',
		keywords: ['a a a a a a a a b'],
		on: ['answer'],
		action: 'block',
	},
]);
const kindsFound = (text: string) =>
	new Set(every.flatMap((guardrail) => findMatches(guardrail, text).map((match) => match.kind)));

describe('hostile texts', () => {
	test.each([
		['100 KB of digits', '7'.repeat(100_000)],
		['100 KB of a@a.a@', 'a@a.a@'.repeat(17_000)],
		['100 KB of dotted single letters', 'a.'.repeat(50_000)],
		['100 KB of ://', '://'.repeat(34_000)],
		['100 KB of colons and digits', '1:'.repeat(50_000)],
		['100 KB of phone separators', '1-'.repeat(50_000)],
		['100 KB of IBAN openings', 'GB82'.repeat(25_000)],
		['100 KB of -eyJ', '-eyJ'.repeat(25_000)],
		['100 KB of one word repeated', 'a '.repeat(50_000)],
	])('%s: finds nothing it should not, and ends', (_, text) => {
		expect(kindsFound(text)).toEqual(new Set());
	});

	test('100 KB of single digits apart by spaces: card windows stay bounded, Luhn decides', () => {
		const text = '0 '.repeat(50_000);
		// Zeros pass Luhn: every 13-to-19-digit window is a "card"; the scan still ends, and finds them.
		expect(findMatches(every[0], text).some((match) => match.kind === 'credit_card')).toBe(true);
	});

	test('many real cards in a long text are each found', () => {
		const text = 'pay 4111 1111 1111 1111 now; '.repeat(2_000);
		expect(findMatches(every[0], text).filter((m) => m.kind === 'credit_card')).toHaveLength(2_000);
	});

	test('text that looks like a secret but is not one is left alone', () => {
		expect(
			findMatches(
				every[1],
				'sk-short AKIA1234 ghp_tooShort Bearer abc eyJhbGciOiJIUzI1NiJ9 "tokens": 5 max_tokens=10',
			),
		).toEqual([]);
	});
});

describe('a pattern the budget cuts short', () => {
	test('what is left unchecked is found as "unchecked", to its end: nothing passes unread', () => {
		const [costly] = checkGuardrails([
			{ name: 'costly', check: 'pattern', pattern: 'a(?:.*b)?', on: ['answer'], action: 'redact' },
		]);
		const text = 'a'.repeat(20_000);
		const matches = findMatches(costly, text);
		const last = matches[matches.length - 1];
		expect(last).toMatchObject({ kind: 'unchecked', end: text.length });
		expect(last.start).toBeLessThan(text.length);
	});
});

describe('hostile values', () => {
	const nested = (depth: number, leaf: unknown) => {
		let value: unknown = leaf;
		for (let level = 0; level < depth; level += 1)
			value = level % 2 === 0 ? { [`k${level}`]: value } : [value];
		return value;
	};

	test.each([1_000, 100_000])(
		'args nested %i levels are walked and copied without recursion',
		(depth) => {
			const args = nested(depth, 'mail jane@example.com');
			const finds = findInValue(every[0], args);
			expect(finds).toHaveLength(1);
			expect(finds[0].path).toHaveLength(depth);
			let copy = redactInValue(every[0], args) as unknown;
			for (let level = depth - 1; level >= 0; level -= 1)
				copy =
					level % 2 === 0 ? (copy as Record<string, unknown>)[`k${level}`] : (copy as unknown[])[0];
			expect(copy).toBe('mail [redacted:pii]');
		},
	);

	test('a cyclic value ends, each container read once', () => {
		const args: Record<string, unknown> = { to: 'jane@example.com' };
		args.self = args;
		args.list = [args, args];
		expect(findInValue(every[0], args)).toHaveLength(1);
		const copy = redactInValue(every[0], args) as Record<string, unknown>;
		expect(copy.to).toBe('[redacted:pii]');
		expect(copy.self).toBe(copy);
	});

	test('a key holding a secret shape is found in the key', () => {
		expect(findInValue(every[1], { 'sk-abcdefghijklmnop1234': 1 })).toMatchObject([
			{ in: 'key', path: ['sk-abcdefghijklmnop1234'] },
		]);
	});
});
