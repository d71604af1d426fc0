// Schema patterns read as ECMAScript with the u flag (as JSON Schema reads them), run by RE2: Unicode properties,
// \s, the dot, and a pattern budget counted in RE2 steps, never in time (issue #38).
import { runAgent } from '../../src/agent/run-agent';
import { SchemaError } from '../../src/validation/schema-error';
import { PATTERN_STEP_BUDGET, patternSize } from '../../src/validation/linear-regexp';
import { assertValidSchema, validateAgainst } from '../../src/validation/validate';
import { action, final, modelFor, probeTool, useScriptedServer } from '../support/agent';

/** A tool's argument schema with one pattern, as a tool declares it. */
const argsWith = (pattern: string) => ({
	type: 'object',
	properties: { code: { type: 'string', pattern } },
	required: ['code'],
});
const accepts = (pattern: string, text: string) =>
	validateAgainst(argsWith(pattern), { code: text }).ok;

const SAMPLES = [
	'',
	'abc',
	'école',
	'ÉCOLE',
	'Ωμέγα',
	'αβγ',
	'Жук',
	'42',
	'\u09ea\u09e8',
	'٣',
	'_',
	' ',
	'\t',
	'\u000b',
	'\u00a0',
	'\ufeff',
	'\u2003',
	'\u2028',
	'\u2029',
	'\n',
	'\r',
	'\u0001',
	'\u2013',
	'😀',
	'a😀b',
	'x\ny',
	'abc\n',
	'\u0003',
	'\u0008',
];

/** The pattern gives the engine's verdict on each sample that JavaScript's `new RegExp(pattern, 'u')` gives, and both verdicts occur. */
function expectSameAsJavaScript(pattern: string): void {
	const native = new RegExp(pattern, 'u');
	const verdicts = SAMPLES.map((text) => ({
		text,
		engine: accepts(pattern, text),
		javascript: native.test(text),
	}));
	expect(verdicts.filter(({ engine, javascript }) => engine !== javascript)).toEqual([]);
	expect(new Set(verdicts.map(({ javascript }) => javascript))).toEqual(new Set([true, false]));
}

describe("Unicode property names in a tool argument pattern match as JavaScript's u RegExp does", () => {
	it.each([
		['a General_Category long name', '^\\p{Letter}+$'],
		[
			'digit, the Decimal_Number alias (JSON-Schema-Test-Suite: "pattern with non-ASCII digits")',
			'^\\p{digit}+$',
		],
		['Script=', '^\\p{Script=Greek}+$'],
		['sc=', '^\\p{sc=Cyrillic}+$'],
		['gc= and General_Category=', '^\\p{gc=Lu}\\p{General_Category=Uppercase_Letter}*$'],
		['a negated property \\P{…}', '^\\P{Letter}+$'],
		['a negated script', '^\\P{Script=Latin}+$'],
		['properties inside a class', '^[\\p{Lowercase_Letter}\\p{Nd}_]+$'],
		['a negated property inside a negated class', '^[^\\P{Script=Greek}]+$'],
		['a binary property by its alias', '^\\p{Alpha}+$'],
		['ASCII, which RE2 spells Ascii', '^\\p{ASCII}+$'],
		["the suite's \\p{Letter}cole, unanchored", '\\p{Letter}cole'],
	])('%s: %s', (_, pattern) => expectSameAsJavaScript(pattern));

	describe('through a run', () => {
		const server = useScriptedServer();

		it("a model's tool call whose argument matches \\p{Script=Greek}\\p{Letter}* runs the tool; one that does not is refused", async () => {
			const { tool, calls } = probeTool('lookup');
			tool.parameters = argsWith('^\\p{Script=Greek}\\p{Letter}*$');
			server().setScript([
				action('lookup', { code: 'Ωμέγα' }),
				action('lookup', { code: 'Omega' }),
				final('done'),
			]);
			const result = await runAgent({
				model: modelFor(server()),
				extraTools: [tool],
				config: { model: 'm', allowed_tools: ['lookup'] },
				prompt: 'q',
			});
			expect(calls).toEqual([{ code: 'Ωμέγα' }]);
			expect(result.trace.map((step) => step.error?.type)).toEqual([
				undefined,
				'invalid_args',
				undefined,
			]);
			expect(result.trace[1].error?.message).toContain(
				'args.code: must match pattern "^\\p{Script=Greek}\\p{Letter}*$"',
			);
		});
	});
});

describe("the rest of ECMAScript's pattern syntax that RE2 reads otherwise is translated", () => {
	it.each([
		[
			'\\s: ECMAScript white space and line terminators (line tab, NBSP, U+FEFF, EM SPACE, U+2029)',
			'^\\s+$',
		],
		['\\S: everything else', '^\\S+$'],
		['\\s and \\S inside classes, repeated', '^[\\sa\\s][^\\S\\S]?[x\\S\\s\\S]*$'],
		['the dot stops at every line terminator (CR, U+2028, U+2029), not only LF', '^.+$'],
		['[\\b] is backspace', '^[\\b]$'],
		['a surrogate pair written as two \\u escapes is one character', '^a?\\uD83D\\uDE00b?$'],
	])('%s: %s', (_, pattern) => expectSameAsJavaScript(pattern));

	// RE2 already read these as ECMAScript does: guards that the rewrite above (of \s, the dot, classes) keeps them.
	it.each([
		['$ does not match before a final newline', '^abc$'],
		['\\d is ASCII only', '^\\d+$'],
		['\\w is ASCII only', '^\\w+$'],
		['\\cC is the control character U+0003', '^\\cC$'],
		['[^] is any character', '^[^]+$'],
	])('still: %s: %s', (_, pattern) => expectSameAsJavaScript(pattern));
});

describe('a pattern the engine cannot read as JavaScript does is refused, with the names it takes', () => {
	const refusal = (pattern: string): SchemaError => {
		try {
			assertValidSchema(argsWith(pattern), 'tool "lookup"');
		} catch (error) {
			return error as SchemaError;
		}
		throw new Error(`${pattern} was taken`);
	};
	const LISTS_NAMES =
		/The engine takes a General_Category \(L or Letter.*Script=<the full script name>.*ASCII_Hex_Digit\/AHex.*White_Space\/space\.$/;

	it.each([
		[
			'Script_Extensions (RE2 has no such tables)',
			'\\p{Script_Extensions=Greek}',
			/that uses \\p\{Script_Extensions=Greek\}: the pattern engine \(RE2\) has no Script_Extensions tables\. Write \\p\{Script=Greek\}/,
		],
		['scx=', '[\\p{scx=Latn}]', /has no Script_Extensions tables/],
		[
			'a binary property RE2 has no table for',
			'^\\p{ID_Start}',
			/that uses \\p\{ID_Start\}, a property the pattern engine \(RE2\) has no table for/,
		],
		[
			"a script's short code",
			'\\P{Script=Grek}',
			/a script name the pattern engine \(RE2\) does not know\. Write the script's full name as Unicode spells it \(Script=Greek, not Script=Grek\)/,
		],
		[
			'a name JavaScript does not know',
			'\\p{letter}',
			/is not a valid regular expression \(Invalid property name\)\. Name the property as JavaScript does/,
		],
	])('%s: %s', (_, pattern, message) => {
		const error = refusal(pattern);
		expect(error).toBeInstanceOf(SchemaError);
		expect(error.field).toBe('tool "lookup"');
		expect(error.message).toMatch(message);
		expect(error.message).toMatch(LISTS_NAMES);
	});

	it("RE2's own spelling of a script, \\p{Greek}, is refused as JavaScript refuses it, with the spelling to use", () => {
		expect(refusal('^\\p{Greek}+$').message).toMatch(
			/is not a valid regular expression \(Invalid property name\)\. Write \\p\{Script=Greek\}/,
		);
	});

	it.each([
		['\\a (RE2 reads a bell)', '^\\a$'],
		['\\_ (RE2 reads an underscore)', '^[a-z\\_]+$'],
	])(
		'an escape the u flag forbids, %s, is refused with the characters that may be escaped',
		(_, pattern) => {
			expect(refusal(pattern).message).toMatch(
				/is not a valid regular expression \(Invalid escape\)\. With the u flag .* write other characters without the backslash/,
			);
		},
	);

	it("RE2 syntax that is not JavaScript's ((?i), \\pL) is refused", () => {
		expect(refusal('(?i)abc').message).toMatch(
			/is not a valid regular expression \(Invalid group\)/,
		);
		expect(refusal('^\\pL$').message).toMatch(/is not a valid regular expression/);
	});

	it('a pattern past 10,000 characters is refused before RE2 parses it', () => {
		expect(refusal(`^[${'\\S'.repeat(5_001)}]$`).message).toMatch(
			/is 10,006 characters long, more than 10,000\. Simplify it/,
		);
	});

	it("a repeat past RE2's 1,000 is refused with the maxLength fix", () => {
		expect(refusal('^a{2000}$').message).toMatch(
			/repeats a part more than 1,000 times.*Write a length limit as "maxLength"/,
		);
	});
});

describe('the pattern budget counts RE2 steps (instructions × characters), so every machine gives the same answer', () => {
	/** Runs `work` while performance.now() and Date.now() leap a second at each reading, as on a machine so busy each match seems to take that long. */
	function underLeapingClock<T>(work: () => T): T {
		const realNow = performance.now.bind(performance);
		let leaps = 0;
		const leaping = jest
			.spyOn(performance, 'now')
			.mockImplementation(() => realNow() + 1_000 * ++leaps);
		const dateLeaping = jest.spyOn(Date, 'now').mockImplementation(() => 1_000 * ++leaps);
		try {
			return work();
		} finally {
			leaping.mockRestore();
			dateLeaping.mockRestore();
		}
	}

	it('2,000 header names of 7 characters against a 101-instruction pattern pass, however slow the machine seems', () => {
		const pattern = '^[A-Za-z][A-Za-z0-9-]{0,48}$';
		expect(patternSize(pattern)).toBe(101);
		const names = Array.from(
			{ length: 2_000 },
			(_, index) => `Hdr${String(index).padStart(4, '0')}`,
		);
		expect(names.every((name) => name.length === 7)).toBe(true);
		const schema = {
			type: 'object',
			propertyNames: { pattern },
			additionalProperties: { type: 'string' },
		};
		const headers = Object.fromEntries(names.map((name) => [name, 'v']));
		expect(underLeapingClock(() => validateAgainst(schema, headers, 'headers'))).toEqual({
			ok: true,
			value: headers,
		});
	});

	it('the answer depends on the texts only: the same validation under a leaping clock gives the same answer', () => {
		const schema = { type: 'object', propertyNames: { pattern: '^[A-Za-z0-9-]{1,40}$' } };
		const headers = Object.fromEntries(
			Array.from({ length: 500 }, (_, index) => [`H${index}`, 'v']),
		);
		const refused = Object.fromEntries(
			Array.from({ length: 500 }, (_, index) => [`H${index}${'x'.repeat(40)}`, 'v']),
		);
		for (const value of [headers, refused, { huge: 'a'.repeat(2_000_000) }]) {
			expect(underLeapingClock(() => validateAgainst(schema, value))).toEqual(
				validateAgainst(schema, value),
			);
		}
		expect(validateAgainst(schema, headers).ok).toBe(true);
	});

	it('a giant text against a large pattern is refused, saying how many steps it would take and the fix', () => {
		const pattern = '(a|b)*a(a|b){20}c$';
		const text = `${'ab'.repeat(100_000)}c`;
		const steps = (patternSize(pattern) * text.length).toLocaleString('en-US');
		expect(validateAgainst({ type: 'string', pattern }, text, 'answer')).toEqual({
			ok: false,
			issues: [
				`answer: checking a text of 200,001 characters against pattern "(a|b)*a(a|b){20}c$" would take ${steps} RE2 steps (instructions × characters), more than the 1,666,000 one validation may take: shorten the text (the schema can say so with "maxLength") or simplify the pattern`,
			],
		});
	});

	it('many texts together past the budget are refused, naming how many and the last pattern', () => {
		const pattern = '^[a-z]+$';
		const perText = Math.ceil(PATTERN_STEP_BUDGET / patternSize(pattern) / 1_000);
		const texts = Array.from({ length: 1_100 }, () => 'a'.repeat(perText));
		const result = validateAgainst(
			{ type: 'array', items: { type: 'string', pattern } },
			texts,
			'answer',
		);
		// Each text alone is far within the budget; the validation's sum is not.
		expect(validateAgainst({ type: 'string', pattern }, texts[0]).ok).toBe(true);
		expect(result).toEqual({
			ok: false,
			issues: [
				expect.stringMatching(
					/^answer: checking \d{3},?\d* texts against the schema's patterns \(the last, of [\d,]+ characters, against "\^\[a-z\]\+\$"\) would take [\d,]+ RE2 steps/,
				),
			],
		});
	});
});
