/** One linear pass over the JSON structure a reply opens with: where its object ends, or what keeps it from ending. */

/**
 * Objects and arrays nested deeper than this are refused: no tool's arguments need more, and deeper
 * values could not be redacted, written to the trace or serialised without risk to the process.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * What the scan found, from index 0 (where the object or array opens):
 * - `closed`: the bracket at `end` closes it; `comment` is where the first comment inside it starts;
 * - `mismatch`: the closing bracket at `at` does not match the one opened at `opener` (-1: none is open);
 * - `unclosed`: the text ends with `open` brackets still open, inside the string or comment starting at `inString` / `inComment`;
 * - `too_deep`: the bracket at `at` opens level MAX_NESTING_DEPTH + 1.
 */
export type StructureScan =
	| { kind: 'closed'; end: number; comment?: number }
	| { kind: 'mismatch'; at: number; opener: number; comment?: number }
	| { kind: 'unclosed'; open: number; inString?: number; inComment?: number; comment?: number }
	| { kind: 'too_deep'; at: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Scans `text` from index 0. Aware of strings and escapes, so brackets inside string values do not count;
 * aware of `//` and `/* *\/` comments (which JSON does not allow, but models write), so a bracket in a comment
 * neither closes nor opens anything; a `]` never closes a `{` (realworld broken-JSON cases bj040, bj058–bj060:
 * a missing `[`, or a `]` inside a comment, must not read as text after the object). Linear: every index is
 * visited once, and the nesting stack holds at most MAX_NESTING_DEPTH entries.
 */
export function scanStructure(text: string): StructureScan {
	const openers: number[] = [];
	let comment: number | undefined;
	for (let index = 0; index < text.length; index++) {
		const character = text.charCodeAt(index);
		if (character === QUOTE) {
			const end = stringEnd(text, index);
			if (end === -1) return { kind: 'unclosed', open: openers.length, inString: index, comment };
			index = end;
		} else if (
			character === SLASH &&
			(text.charCodeAt(index + 1) === STAR ||
				(text.charCodeAt(index + 1) === SLASH && !afterUrlScheme(text, index)))
		) {
			comment ??= index;
			const line = text.charCodeAt(index + 1) === SLASH;
			const end = line ? text.indexOf('\n', index + 2) : text.indexOf('*/', index + 2);
			if (end === -1)
				return line
					? { kind: 'unclosed', open: openers.length, comment }
					: { kind: 'unclosed', open: openers.length, inComment: index, comment };
			index = line ? end : end + 1;
		} else if (character === OPEN_BRACE || character === OPEN_BRACKET) {
			if (openers.length >= MAX_NESTING_DEPTH) return { kind: 'too_deep', at: index };
			openers.push(index);
		} else if (character === CLOSE_BRACE || character === CLOSE_BRACKET) {
			const opener = openers.pop();
			// '{' + 2 is '}', '[' + 2 is ']'.
			if (opener === undefined || text.charCodeAt(opener) + 2 !== character)
				return { kind: 'mismatch', at: index, opener: opener ?? -1, comment };
			if (openers.length === 0) return { kind: 'closed', end: index, comment };
		}
	}
	return { kind: 'unclosed', open: openers.length, comment };
}

/** `//` right after a word and a colon is an unquoted URL's (`url:https://…`, bj223), whose problem is the missing quotes. */
function afterUrlScheme(text: string, index: number): boolean {
	return text.charCodeAt(index - 1) === COLON && /[A-Za-z]/.test(text[index - 2] ?? '');
}

/** The index of the quote ending the string that opens at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
	for (let index = start + 1; index < text.length; index++) {
		const character = text.charCodeAt(index);
		if (character === BACKSLASH) index++;
		else if (character === QUOTE) return index;
	}
	return -1;
}

/** True when JSON text nests objects or arrays deeper than MAX_NESTING_DEPTH (the same scan the parser uses). */
export function nestsTooDeep(text: string): boolean {
	return scanStructure(text.trimStart()).kind === 'too_deep';
}

/** "line L, column C" of an index, both counted from 1, for a message that points the model at a place. */
export function placeOf(text: string, index: number): string {
	let line = 1;
	let lineStart = 0;
	for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
		line++;
		lineStart = at + 1;
	}
	return `line ${line}, column ${index - lineStart + 1}`;
}

/** A key given twice inside one element of a top-level `calls` array (an `actions` reply): the call's index and the key. */
export interface CallDuplicate {
	index: number;
	key: string;
}

/**
 * What one pass over `text` (an object starting at index 0) finds: whether a bracket outside a string opens
 * level MAX_NESTING_DEPTH + 1 (`tooDeep`, and the pass stops there; JSON.parse, which reads strings the same
 * way, nests no deeper than this pass counts before it fails), else, for valid JSON, the first key its
 * object holds twice at the top level, compared as JSON decodes them (`"typ\u0065"` is `"type"`), and the
 * first key held twice by one element of its top-level `calls` array (`callDuplicate`: JSON.parse would
 * keep the last, so a call could be checked as one tool and read as another). A string at depth 1 (or 3,
 * inside `calls`) followed by a colon is a key; in valid JSON only JSON's four whitespace characters can
 * stand between them.
 */
export function topLevelShape(text: string): {
	tooDeep: boolean;
	duplicate?: string;
	callDuplicate?: CallDuplicate;
} {
	const keys = new Set<string>();
	let duplicate: string | undefined;
	let callDuplicate: CallDuplicate | undefined;
	let lastKey: string | undefined; // the last key read at depth 1
	let inCalls = false; // inside the top-level "calls" array
	let callIndex = -1;
	let callKeys = new Set<string>();
	let depth = 0;
	for (let index = 0; index < text.length; index++) {
		const character = text.charCodeAt(index);
		if (character === QUOTE) {
			const start = index;
			index = stringEnd(text, index);
			if (index === -1) break;
			const inCall = depth === 3 && inCalls && callDuplicate === undefined;
			if (!(depth === 1 || inCall)) continue;
			let next = index + 1;
			while (isJsonWhitespace(text.charCodeAt(next))) next++;
			if (text.charCodeAt(next) !== COLON) continue;
			// Without a backslash the key is its text as it stands; with one, JSON decodes it.
			const quoted = text.slice(start, index + 1);
			const key = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
			if (depth === 1) {
				lastKey = key;
				if (duplicate !== undefined) continue;
				if (keys.has(key)) duplicate = key;
				else keys.add(key);
			} else if (callKeys.has(key)) callDuplicate = { index: callIndex, key };
			else callKeys.add(key);
		} else if (character === OPEN_BRACE || character === OPEN_BRACKET) {
			if (++depth > MAX_NESTING_DEPTH) return { tooDeep: true };
			if (depth === 2) inCalls = character === OPEN_BRACKET && lastKey === 'calls';
			if (depth === 3 && inCalls) {
				callIndex++;
				callKeys = new Set();
			}
		} else if (character === CLOSE_BRACE || character === CLOSE_BRACKET) depth--;
	}
	return { tooDeep: false, duplicate, callDuplicate };
}

const isJsonWhitespace = (code: number) =>
	code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
