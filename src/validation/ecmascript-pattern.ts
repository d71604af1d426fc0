/** JSON Schema patterns (ECMAScript, `u` flag) checked as JavaScript checks them, then written in RE2's syntax. */
import type { PatternProblem } from './pattern-problem';
import { propertyNameFix, re2PropertyName } from './unicode-properties';

/**
 * `\s` as ECMA-262 defines it (§22.2.2.9 CharacterClassEscape: WhiteSpace §12.2 and LineTerminator §12.3): tab,
 * line tab, form feed, ZWNBSP (U+FEFF), the Space_Separator (Zs) characters, LF, CR, U+2028 and U+2029. RE2's own
 * `\s` is ASCII only (`[\t\n\f\r ]`), so it is written out. Ranges of code points, ascending, not touching.
 */
const WHITESPACE: ReadonlyArray<readonly [number, number]> = [
	[0x09, 0x0d],
	[0x20, 0x20],
	[0xa0, 0xa0],
	[0x1680, 0x1680],
	[0x2000, 0x200a],
	[0x2028, 0x2029],
	[0x202f, 0x202f],
	[0x205f, 0x205f],
	[0x3000, 0x3000],
	[0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

const hex = (codePoint: number) => `\\x{${codePoint.toString(16)}}`;
const rangesText = (ranges: ReadonlyArray<readonly [number, number]>) =>
	ranges
		.map(([first, last]) => (first === last ? hex(first) : `${hex(first)}-${hex(last)}`))
		.join('');

function complement(
	ranges: ReadonlyArray<readonly [number, number]>,
): Array<readonly [number, number]> {
	const gaps: Array<readonly [number, number]> = [];
	let next = 0;
	for (const [first, last] of ranges) {
		if (first > next) gaps.push([next, first - 1]);
		next = last + 1;
	}
	if (next <= MAX_CODE_POINT) gaps.push([next, MAX_CODE_POINT]);
	return gaps;
}

const WHITESPACE_TEXT = rangesText(WHITESPACE);
const NOT_WHITESPACE_TEXT = rangesText(complement(WHITESPACE));
/** ECMAScript's `.` without the `s` flag: anything but a line terminator (§22.2.2.7); RE2's `.` excludes only LF. */
const ANY_BUT_LINE_TERMINATOR = '[^\\n\\r\\x{2028}\\x{2029}]';

/**
 * The pattern rewritten for RE2, or why it cannot run. re2js's translateRegExp runs after this: it writes `\c`, `\u`,
 * `[^]` and named groups in RE2's syntax.
 */
export function toRe2Syntax(
	pattern: string,
	runsProperty: (name: string) => boolean,
): string | PatternProblem {
	const invalid = ecmaScriptSyntaxProblem(pattern, runsProperty);
	if (invalid) return invalid;
	let written = '';
	let inClass = false;
	/** \s and \S already written out in the current class: a repeat adds nothing but text for RE2 to parse. */
	const writtenInClass = new Set<string>();
	for (let index = 0; index < pattern.length; ) {
		const character = pattern[index];
		if (character === '\\') {
			const escaped = pattern[index + 1];
			if (escaped === 'p' || escaped === 'P') {
				const close = pattern.indexOf('}', index);
				const name = re2PropertyName(pattern.slice(index + 3, close), runsProperty);
				if (typeof name !== 'string') return name;
				written += `\\${escaped}{${name}}`;
				index = close + 1;
			} else if (escaped === 's' || escaped === 'S') {
				const ranges = escaped === 's' ? WHITESPACE_TEXT : NOT_WHITESPACE_TEXT;
				if (!inClass) written += `[${ranges}]`;
				else if (!writtenInClass.has(escaped)) written += ranges;
				writtenInClass.add(escaped);
				index += 2;
			} else if (escaped === 'b' && inClass) {
				written += hex(0x08); // [\b] is backspace in ECMAScript (§22.2.2.9 ClassEscape); RE2 refuses it
				index += 2;
			} else {
				const pair = surrogatePairAt(pattern, index);
				written += pair ? hex(pair) : pattern.slice(index, index + 2);
				index += pair ? 12 : 2;
			}
			continue;
		}
		if (inClass) inClass = character !== ']';
		else if (character === '[') ((inClass = true), writtenInClass.clear());
		written += !inClass && character === '.' ? ANY_BUT_LINE_TERMINATOR : character;
		index++;
	}
	return written;
}

/**
 * `\uD83D\uDE00` is one character (😀) with the `u` flag (ECMA-262 §22.2.1.1, RegExpUnicodeEscapeSequence);
 * re2js would read two lone surrogates. The code point of a pair of such escapes at `index`, else undefined.
 */
function surrogatePairAt(pattern: string, index: number): number | undefined {
	const match = /^\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/i.exec(
		pattern.slice(index, index + 12),
	);
	if (!match) return undefined;
	return 0x10000 + ((parseInt(match[1], 16) - 0xd800) << 10) + (parseInt(match[2], 16) - 0xdc00);
}

/**
 * Whether JavaScript takes the pattern with the `u` flag, as JSON Schema reads patterns (2020-12 Validation
 * §6.3.3 and Core §6.4). Only parsed, never run: V8 compiles a RegExp when it first matches, so this cannot hang.
 */
function ecmaScriptSyntaxProblem(
	pattern: string,
	runsProperty: (name: string) => boolean,
): PatternProblem | undefined {
	try {
		new RegExp(pattern, 'u');
		return undefined;
	} catch (error) {
		const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /s, '');
		return {
			problem: `is not a valid regular expression (${reason})`,
			fix: fixFor(pattern, reason, runsProperty),
		};
	}
}

function fixFor(pattern: string, reason: string, runsProperty: (name: string) => boolean): string {
	if (/property name/i.test(reason)) return propertyNameFix(pattern, runsProperty);
	if (/escape/i.test(reason)) {
		return (
			'With the u flag (as JSON Schema reads patterns) only ^ $ \\ . * + ? ( ) [ ] { } | / and, in a class, - ' +
			'may be escaped: write other characters without the backslash (e.g. _ rather than \\_).'
		);
	}
	return (
		"Correct the pattern: the syntax is JavaScript's with the u flag (RE2 runs it), without lookahead, " +
		'lookbehind or back-references.'
	);
}
