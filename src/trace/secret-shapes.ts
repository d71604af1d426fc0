/**
 * The shapes of credentials the redactor finds without being told the value: well-known key formats,
 * bearer tokens, JWTs, secret-named query parameters, `name=value` pairs and JSON fields.
 *
 * The text may be written by a hostile model or server, so every step is linear in its length and needs
 * no stack that grows with it (a 16 MB string is tested).
 */

import { mergeSpans, replaceSpans, type Span } from '../core/spans';

/** What every secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Field names whose values are secrets, in headers, args and settings. Exact names: `max_tokens` is not one. */
/** The names, one alternative each (`[-_]?` allows `api-key`, `api_key` and `apikey`). */
const SECRET_KEY_NAMES = [
	'authorization',
	'proxy-authorization',
	'cookie',
	'set-cookie',
	'x-api-key',
	'x-goog-api-key',
	'x-auth-token',
	'api[-_]?key',
	'apikey',
	'access[-_]?token',
	'refresh[-_]?token',
	'id[-_]?token',
	'auth[-_]?token',
	'session[-_]?token',
	'token',
	'secret',
	'client[-_]?secret',
	'password',
	'passwd',
	'private[-_]?key',
];
export const SECRET_KEY = new RegExp(`^(${SECRET_KEY_NAMES.join('|')})$`, 'i');

/**
 * A credential shape: `apply` replaces it in a text; `triggers` are literals of which a text holds at least
 * one whenever `apply` could change it, so a text holding none of them is passed over unread.
 */
interface Shape {
	triggers: readonly string[];
	apply: (text: string) => string;
	/** Where `apply` would put `[REDACTED]` in the text as it is (the guardrails' `secrets` check reads this). */
	find: (text: string) => Span[];
}

const byPattern = (triggers: readonly string[], pattern: RegExp, replacement: string): Shape => ({
	triggers,
	apply: (text) => text.replace(pattern, replacement),
	find: (text) => patternSpans(text, pattern, replacement.startsWith('$1')),
});

/**
 * Each match of `pattern`; when its replacement keeps group 1 (a name, `Bearer `), the span starts after it and
 * the spaces after it.
 */
function patternSpans(text: string, pattern: RegExp, keepsFirstGroup: boolean): Span[] {
	const spans: Span[] = [];
	for (const match of text.matchAll(pattern)) {
		const end = match.index + match[0].length;
		let start = match.index + (keepsFirstGroup ? match[1].length : 0);
		while (start < end && /\s/.test(text[start])) start += 1;
		spans.push({ start, end });
	}
	return spans;
}

/** A shape found in code: `apply` replaces exactly what `find` finds. */
const byFinder = (triggers: readonly string[], find: (text: string) => Span[]): Shape => ({
	triggers,
	apply: (text) => replaceSpans(text, find(text), REDACTED),
	find,
});

/**
 * Shapes are applied in order, each one to the result of the one before.
 * Why these patterns are linear: each starts with a literal, a failing match can only scan a run the next
 * start cannot lie in, and every open-ended repetition is `{n}` then `*`, because V8 keeps a backtracking
 * entry per character for `{n,}` with a large n and overflows on strings of several megabytes.
 * JWTs and JSON fields need more than a regular expression can do in linear time; they are found in code.
 */
const SECRET_SHAPES: readonly Shape[] = [
	byPattern(
		['Bearer', 'Basic', 'Token'],
		/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8}[A-Za-z0-9._~+/=-]*/g,
		`$1 ${REDACTED}`,
	),
	byPattern(['sk-'], /\bsk-[A-Za-z0-9_-]{16}[A-Za-z0-9_-]*/g, REDACTED),
	byPattern(['AIza'], /\bAIza[0-9A-Za-z_-]{35}\b/g, REDACTED),
	byPattern(
		['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
		/\bgh[pousr]_[A-Za-z0-9]{30}[A-Za-z0-9]*\b/g,
		REDACTED,
	),
	byPattern(['github_pat_'], /\bgithub_pat_[A-Za-z0-9_]{30}[A-Za-z0-9_]*\b/g, REDACTED),
	byPattern(
		['xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-'],
		/\bxox[abprs]-[A-Za-z0-9-]{10}[A-Za-z0-9-]*/g,
		REDACTED,
	),
	byPattern(['AKIA'], /\bAKIA[0-9A-Z]{16}\b/g, REDACTED),
	byFinder(['eyJ'], findJsonWebTokens),
	byPattern(
		['='],
		/([?&](?:api[_-]?key|apikey|access_token|token|key|secret|password|sig|signature)=)[^&\s"'#]+/gi,
		`$1${REDACTED}`,
	),
	// The same in plain `name=value` text (a config line, a shell line), for names that are secret on their own.
	byPattern(
		['='],
		/\b((?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|client[_-]?secret|secret|password|passwd|token)=)[^&\s"'#]+/gi,
		`$1${REDACTED}`,
	),
	byFinder(['"'], findSecretJsonFields),
];

/**
 * True when a text holds a trigger of some shape. One scan instead of a pass per shape: most texts a run
 * writes (keys, names, numbers as text, prose) hold none. An alternation of literals is linear.
 */
const MAY_HOLD_SHAPE = new RegExp(
	[...new Set(SECRET_SHAPES.flatMap((shape) => shape.triggers))]
		.map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
		.join('|'),
);

/** `text` with every secret shape replaced, each shape applied to the result of the one before. */
export function redactShapes(text: string): string {
	if (!MAY_HOLD_SHAPE.test(text)) return text;
	let result = text;
	for (const shape of SECRET_SHAPES) {
		// A shape that cannot change the text is skipped; the test runs on the text as the shapes before left it.
		if (shape.triggers.some((literal) => result.includes(literal))) result = shape.apply(result);
	}
	return result;
}

/**
 * Where `redactShapes` would replace a secret in `text`, each shape read on the text as it is (not as the shapes
 * before it left it), overlapping finds joined. Linear, as the shapes are.
 */
export function findShapes(text: string): Span[] {
	if (!MAY_HOLD_SHAPE.test(text)) return [];
	const found: Span[] = [];
	for (const shape of SECRET_SHAPES)
		if (shape.triggers.some((literal) => text.includes(literal))) found.push(...shape.find(text));
	return mergeSpans(found);
}

/** Maximal runs of JWT characters; 23 is the shortest token `eyJ·····.eyJ·····.·····`. */
const TOKEN_RUN = /[A-Za-z0-9_.-]{23}[A-Za-z0-9_.-]*/g;

/**
 * `eyJ<5+>.eyJ<5+>.<5+>` (base64url segments), starting at a word boundary. A regular expression that
 * starts at every `eyJ` rescans the run after it each time: quadratic on "-eyJ" repeated. Instead each run
 * of token characters is found once and its dot-separated segments are checked in one pass.
 */
function findJsonWebTokens(text: string): Span[] {
	const spans: Span[] = [];
	for (const run of text.matchAll(TOKEN_RUN)) {
		const segments = run[0].split('.');
		let offset = run.index;
		for (let index = 0; index < segments.length; index += 1) {
			const start = index + 2 < segments.length ? tokenStart(segments[index]) : -1;
			if (
				start >= 0 &&
				segments[index + 1].startsWith('eyJ') &&
				segments[index + 1].length >= 8 &&
				segments[index + 2].length >= 5
			) {
				const end = offset + segments.slice(index, index + 3).join('.').length;
				spans.push({ start: offset + start, end });
				offset = end + 1;
				index += 2;
			} else {
				offset += segments[index].length + 1;
			}
		}
	}
	return spans;
}

/** Where a JWT header starts in a segment: the first `eyJ` after a word boundary, with 5 more characters; or -1. */
function tokenStart(segment: string): number {
	let start = segment.indexOf('eyJ');
	// Inside a segment only "-" is a non-word character; the segment's own start follows "." or a non-token character.
	while (start > 0 && segment[start - 1] !== '-') start = segment.indexOf('eyJ', start + 1);
	return start >= 0 && segment.length - start >= 8 ? start : -1;
}

/** A JSON key (escapes allowed, up to 100 characters) and its colon; its decoded name is tested against SECRET_KEY. */
const JSON_KEY_OPENING = /"((?:[^"\\\n]|\\.){1,100})"\s*:\s*/g;

const JSON_NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A key's name as JSON reads it (`"\u0070assword"` is `password`); the raw text when it is no valid JSON string. */
function decodedKey(raw: string): string {
	// Without a backslash there is no escape, and JSON reads the name as written (or fails on a control character).
	if (!raw.includes('\\')) return raw;
	try {
		return JSON.parse(`"${raw}"`) as string;
	} catch {
		return raw;
	}
}

/**
 * The string and number values of secret-named fields in JSON text, the names those of `value`'s
 * SECRET_KEY however the key is spelled (case, escapes), so the text of a value says what its copy says.
 * A string value's end is found by a scan that skips escapes: `(?:[^"\\]|\\.)*` would keep a backtracking
 * entry per character and overflow on long values. An unterminated string value is not a JSON field.
 */
function findSecretJsonFields(text: string): Span[] {
	const spans: Span[] = [];
	JSON_KEY_OPENING.lastIndex = 0;
	for (let opening = JSON_KEY_OPENING.exec(text); opening; opening = JSON_KEY_OPENING.exec(text)) {
		const valueStart = opening.index + opening[0].length;
		// Every quote may open a key: a miss resumes the search just after this one.
		JSON_KEY_OPENING.lastIndex = opening.index + 1;
		if (!SECRET_KEY.test(decodedKey(opening[1]))) continue;
		if (text[valueStart] === '"') {
			let position = valueStart + 1;
			while (position < text.length && text[position] !== '"')
				position += text[position] === '\\' ? 2 : 1;
			if (position >= text.length) break;
			spans.push({ start: valueStart + 1, end: position });
			JSON_KEY_OPENING.lastIndex = position + 1;
		} else {
			JSON_NUMBER.lastIndex = valueStart;
			if (!JSON_NUMBER.test(text)) continue;
			spans.push({ start: valueStart, end: JSON_NUMBER.lastIndex });
			JSON_KEY_OPENING.lastIndex = JSON_NUMBER.lastIndex;
		}
	}
	return spans;
}
