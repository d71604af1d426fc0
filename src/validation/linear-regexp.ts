/**
 * Schema patterns run on RE2 (re2js, pure JavaScript: it installs with --ignore-scripts), whose matching time
 * is linear in the text: `^(a+)+$` cannot freeze the event loop as JavaScript's backtracking RegExp does (issue #26).
 */
import type { RegExpEngine } from 'ajv/dist/types';
import type { RE2JS } from 're2js';
import { loadOnce } from '../core/load-once';
import type { PatternProblem } from './pattern-problem';
import { toRe2Syntax } from './ecmascript-pattern';

/** At most this many RE2 instructions per pattern (`.{0,400}` is about 800); compiling stays in single milliseconds. */
export const MAX_PATTERN_SIZE = 1_000;
/**
 * At most this many characters per pattern: ten per instruction allowed, room for `\p{Letter}` and long classes,
 * while a 100,000-character pattern took RE2 over half a second to parse before its size could be refused.
 */
export const MAX_PATTERN_LENGTH = 10_000;
/**
 * RE2 steps (instructions × characters: the work its slowest path, the NFA, does) the patterns of one validation
 * may take. A count, not a clock, so a value passes or fails alike on an idle machine and a busy one. Derived
 * from the former 50 ms budget at the ~30 ns per step measured here on that path (`(a|b)*a(a|b){20}c$` on 200,000
 * characters: 378 ms): 2,000 texts of 7 characters against a 100-instruction pattern (1,400,000 steps) pass.
 */
export const PATTERN_STEP_BUDGET = 1_666_000;

export type { PatternProblem } from './pattern-problem';

const re2 = loadOnce(() => require('re2js') as typeof import('re2js'));
const MAX_CACHED_PATTERNS = 2_000;
const compiled = new Map<string, RE2JS | PatternProblem>();

/** Counts in messages, the same on every machine (1,666,000), whatever its locale. */
const formatted = (count: number) => count.toLocaleString('en-US');

/** Shown in messages: a pattern may be long. */
export function quotePattern(pattern: string): string {
	return JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern);
}

/** Whether RE2 has a table for `\p{name}` (its spelling: `L`, `Greek`, `Ascii`). */
function runsProperty(name: string): boolean {
	const { RE2JS: Engine } = re2();
	try {
		Engine.compile(`\\p{${name}}`);
		return true;
	} catch {
		return false;
	}
}

function compileOrExplain(pattern: string): RE2JS | PatternProblem {
	if (pattern.length > MAX_PATTERN_LENGTH) {
		return {
			problem: `is ${formatted(pattern.length)} characters long, more than ${formatted(MAX_PATTERN_LENGTH)}`,
			fix: 'Simplify it: list allowed values in "enum", and limit lengths with "maxLength" rather than repeats.',
		};
	}
	const { RE2JS: Engine } = re2();
	const written = toRe2Syntax(pattern, runsProperty);
	if (typeof written !== 'string') return written;
	let program: RE2JS;
	try {
		program = Engine.compile(Engine.translateRegExp(written));
	} catch (error) {
		return explainRefusal(pattern, (error as Error).message);
	}
	if (program.programSize() > MAX_PATTERN_SIZE) {
		return {
			problem: `compiles to ${program.programSize()} RE2 instructions, more than ${MAX_PATTERN_SIZE}`,
			fix: 'Simplify it, e.g. write a length limit as "maxLength" rather than a large repeat such as .{0,5000}.',
		};
	}
	return program;
}

function explainRefusal(pattern: string, message: string): PatternProblem {
	if (/\(\?<?[=!]/.test(pattern)) {
		return {
			problem:
				'uses a lookahead or lookbehind, which the linear-time pattern engine (RE2) cannot run',
			fix:
				'Write each condition as its own pattern under "allOf" (e.g. ' +
				'"allOf":[{"pattern":"[0-9]"},{"pattern":"[a-z]"}]) and a forbidden one as "not":{"pattern":"…"}.',
		};
	}
	if (/\\[1-9]|\\k</.test(pattern)) {
		return {
			problem: 'uses a back-reference, which the linear-time pattern engine (RE2) cannot run',
			fix: 'Remove the back-reference: no linear-time engine can match repeated text; check that part in the workflow after the run.',
		};
	}
	if (/repeat count/.test(message)) {
		return {
			problem:
				'repeats a part more than 1,000 times, which the linear-time pattern engine (RE2) cannot compile',
			fix: 'Write a length limit as "maxLength" (or "minLength") rather than a large repeat such as .{0,5000}.',
		};
	}
	return {
		problem: `is not a valid regular expression (${message.replace(/^error parsing regexp: /, '')})`,
		fix: "Correct the pattern: the syntax is JavaScript's (RE2 runs it), without lookahead, lookbehind or back-references.",
	};
}

function lookup(pattern: string): RE2JS | PatternProblem {
	let found = compiled.get(pattern);
	if (found === undefined) {
		found = compileOrExplain(pattern);
		if (compiled.size >= MAX_CACHED_PATTERNS)
			compiled.delete(compiled.keys().next().value as string);
		compiled.set(pattern, found);
	}
	return found;
}

/** Why the engine refuses this pattern; undefined when it runs it. */
export function patternProblem(pattern: string): PatternProblem | undefined {
	const found = lookup(pattern);
	return 'problem' in found ? found : undefined;
}

/** The RE2 instructions the pattern compiles to (0 for a refused one): schemas have a total limit. */
export function patternSize(pattern: string): number {
	const found = lookup(pattern);
	return 'problem' in found ? 0 : found.programSize();
}

/** RE2 steps counted in the current validation, the texts checked, and why a text was not checked. */
const budget = { steps: 0, texts: 0, refused: undefined as string | undefined };

/** Called at the start of each validation (validation is synchronous: one at a time). */
export function startPatternBudget(): void {
	budget.steps = 0;
	budget.texts = 0;
	budget.refused = undefined;
}

/** Set when a text was not matched as the validation's steps would pass PATTERN_STEP_BUDGET: the value then fails. */
export function patternBudgetRefusal(): string | undefined {
	return budget.refused;
}

/** Counted before matching, at the most the match can cost: an empty text still costs a step per instruction. */
function testWithinBudget(program: RE2JS, pattern: string, text: string): boolean {
	if (budget.refused !== undefined) return false;
	const steps = budget.steps + program.programSize() * Math.max(text.length, 1);
	budget.texts++;
	if (steps > PATTERN_STEP_BUDGET) {
		const what =
			budget.texts === 1
				? `a text of ${formatted(text.length)} characters against pattern ${quotePattern(pattern)}`
				: `${formatted(budget.texts)} texts against the schema's patterns ` +
					`(the last, of ${formatted(text.length)} characters, against ${quotePattern(pattern)})`;
		budget.refused =
			`checking ${what} would take ${formatted(steps)} RE2 steps ` +
			`(instructions × characters), more than the ${formatted(PATTERN_STEP_BUDGET)} one validation may take: ` +
			'shorten the text (the schema can say so with "maxLength") or simplify the pattern';
		return false;
	}
	budget.steps = steps;
	return program.test(text);
}

/**
 * ajv's `code.regExp`: every `pattern` and `patternProperties` key is compiled here. A pattern RE2 cannot
 * run throws (the schema is refused before it is used: checkSchema names where it sits).
 */
export const linearRegExp: RegExpEngine = Object.assign(
	(pattern: string) => {
		const found = lookup(pattern);
		if ('problem' in found)
			throw new Error(`pattern ${quotePattern(pattern)} ${found.problem}. ${found.fix}`);
		return {
			test: (text: string) => testWithinBudget(found, pattern, text),
			toString: () => `re2:${pattern}`,
		};
	},
	// Only read by ajv's standalone code generation, which this package does not use.
	{ code: 'require("n8n-nodes-agent-core/dist/src/validation/linear-regexp").linearRegExp' },
);

/** The matches `findPatternSpans` found, and where it stopped when the step budget ran out before the text's end. */
export interface PatternSpans {
	spans: { start: number; end: number }[];
	stoppedAt?: number;
}

/**
 * Every non-empty match of a pattern `patternProblem` accepts, left to right, for the guardrails' `pattern` check.
 * A test of the whole text first, then each search from `from` is charged what it can cost at most (instructions ×
 * the characters left), against one schema validation's budget (PATTERN_STEP_BUDGET) per 10,000 characters begun:
 * linear in the text whatever its matches. Where the budget runs out, `stoppedAt` says where checking stopped.
 */
export function findPatternSpans(pattern: string, text: string): PatternSpans {
	const found = lookup(pattern);
	if ('problem' in found) throw new Error(`pattern ${quotePattern(pattern)} ${found.problem}`);
	const size = found.programSize();
	const spans: PatternSpans['spans'] = [];
	// A test first: RE2's search without positions is several times faster, and most texts hold no match.
	const allowance = PATTERN_STEP_BUDGET * Math.max(1, Math.ceil(text.length / 10_000));
	let steps = size * (text.length + 1);
	if (steps > allowance) return { spans, stoppedAt: 0 };
	if (!found.test(text)) return { spans };
	const matcher = found.matcher(text);
	// find() goes on from the last match's end (past an empty one), without find(from)'s reset.
	for (let from = 0; from <= text.length; ) {
		steps += size * (text.length - from + 1);
		if (steps > allowance) return { spans, stoppedAt: from };
		if (!matcher.find()) break;
		const start = matcher.start();
		const end = matcher.end();
		if (end > start) spans.push({ start, end });
		from = end > start ? end : end + 1;
	}
	return { spans };
}

/**
 * Whether a pattern `patternProblem` accepts matches somewhere in `text` (RE2's search without positions, several
 * times faster than findPatternSpans'); undefined when the test would cost more than findPatternSpans allows.
 */
export function patternFindsIn(pattern: string, text: string): boolean | undefined {
	const found = lookup(pattern);
	if ('problem' in found) throw new Error(`pattern ${quotePattern(pattern)} ${found.problem}`);
	const allowance = PATTERN_STEP_BUDGET * Math.max(1, Math.ceil(text.length / 10_000));
	if (found.programSize() * (text.length + 1) > allowance) return undefined;
	return found.test(text);
}

/** Whether the pattern matches the empty text (and so somewhere in every text); false for a refused one. */
export function patternMatchesEmpty(pattern: string): boolean {
	const found = lookup(pattern);
	return !('problem' in found) && found.matcher('').find(0);
}
