/** A reply's text as one JSON object, or the sentence that names what keeps it from being one (for the repair turn). */
import {
	type CallDuplicate,
	MAX_NESTING_DEPTH,
	placeOf,
	scanStructure,
	topLevelShape,
} from './json-scan';

/** One JSON object, and the first key one of its `calls` held twice (refused only in an `actions` reply). */
export type ReadObject = { value: Record<string, unknown>; callDuplicate?: CallDuplicate };

/**
 * `{ value }` when `text` (trimmed, unfenced) is exactly one valid JSON object with no top-level key twice;
 * else `{ problem }`, a sentence for the model that names the actual problem and where it is (issue #27
 * item 6: a message that sends the model after prose or a second object that is not there wastes the one
 * repair turn). Linear in the text length.
 */
export function readObject(text: string): ReadObject | { problem: string } {
	// Most replies are one valid object: one pass for what JSON.parse does not check (a key given twice, and
	// the depth, before JSON.parse may nest that deep), then JSON.parse. Anything else, a reply too deep
	// included, is read in full below, which names its problem.
	if (text.startsWith('{')) {
		const shape = topLevelShape(text);
		const parsed = shape.tooDeep ? undefined : parsedOrUndefined(text);
		if (parsed !== undefined)
			return shape.duplicate === undefined
				? { value: parsed as Record<string, unknown>, callDuplicate: shape.callDuplicate }
				: { problem: duplicateProblem(shape.duplicate) };
	}
	if (text.startsWith('[')) return { problem: arrayProblem(text) };
	const start = text.indexOf('{');
	if (start === -1)
		return { problem: 'Your reply contained no JSON object; it looked like plain text.' };
	if (start > 0)
		return {
			problem: 'Your reply had text before the JSON object. Do not write prose around the object.',
		};
	const scan = scanStructure(text);
	if (scan.kind === 'too_deep') return { problem: TOO_DEEP };
	const comment =
		scan.comment === undefined
			? ''
			: ` It also holds a comment at ${placeOf(text, scan.comment)}; JSON has no comments.`;
	if (scan.kind === 'mismatch') {
		const closer = text[scan.at];
		return {
			problem:
				`Your reply was not valid JSON: its brackets do not match (the "${closer}" at ${placeOf(text, scan.at)} would close the "${text[scan.opener]}" ` +
				`opened at ${placeOf(text, scan.opener)}); look for a missing "${closer === ']' ? '[' : '{'}" or an extra "${closer}".${comment}`,
		};
	}
	if (scan.kind === 'unclosed') {
		const where =
			scan.inString !== undefined
				? `the string that opens at ${placeOf(text, scan.inString)} never ends (a quote inside a string needs ` +
					`a backslash before it; else a closing quote is missing, or the reply was cut off)`
				: scan.inComment !== undefined
					? `the comment that opens at ${placeOf(text, scan.inComment)} never ends, and JSON has no comments`
					: `${scan.open} bracket${scan.open === 1 ? ' is' : 's are'} still open at its end`;
		if (scan.comment !== undefined && scan.inComment === undefined && scan.inString === undefined) {
			// A `//` comment runs to the end of its line, taking any bracket after it on that line (bj053).
			return {
				problem:
					`Your reply was not valid JSON: it holds a comment at ${placeOf(text, scan.comment)}, and JSON has ` +
					`no comments; a comment also hides the rest of its line, so the object never closed.`,
			};
		}
		return {
			problem: `Your reply started a JSON object but never closed it: ${where}.${scan.inComment === undefined ? comment : ''}`,
		};
	}
	const rest = text.slice(scan.end + 1).trim();
	const objectText = rest === '' ? text : text.slice(0, scan.end + 1);
	if (scan.comment !== undefined) {
		return {
			problem:
				`Your reply was not valid JSON: it holds a comment at ${placeOf(text, scan.comment)}; JSON has no ` +
				`comments, so leave them out.${rest === '' ? '' : ' It also had text after the object.'}`,
		};
	}
	const parsed = parse(objectText);
	const invalid =
		'error' in parsed ? ` The object itself was not valid JSON either: ${parsed.error}.` : '';
	if (rest.startsWith('}') || rest.startsWith(']')) {
		return {
			problem:
				`Your reply had text after the JSON object: a "${rest[0]}" after the object's end at ` +
				`${placeOf(text, scan.end)} that closes nothing (an extra closing bracket, or an opening one ` +
				`missing).${invalid}`,
		};
	}
	if (rest.replace(/^,\s*/, '').startsWith('{'))
		return {
			problem: `Your reply contained more than one JSON object; send one object per turn.${invalid}`,
		};
	if (rest !== '')
		return {
			problem: `Your reply had text after the JSON object. Do not write prose around the object.${invalid}`,
		};
	if ('error' in parsed) return { problem: `Your reply was not valid JSON: ${parsed.error}.` };
	const { duplicate, callDuplicate } = topLevelShape(text);
	if (duplicate !== undefined) return { problem: duplicateProblem(duplicate) };
	return { value: parsed.value as Record<string, unknown>, callDuplicate };
}

const TOO_DEEP = `Your reply nested JSON objects or arrays more than ${MAX_NESTING_DEPTH} levels deep; send flatter arguments.`;

/** JSON.parse keeps the last of two equal keys: a reply could open as a final answer and end as an action. */
const duplicateProblem = (key: string) =>
	`Your reply's object had the key ${JSON.stringify(key).slice(0, 40)} twice; write each key once.`;

/** The value of valid JSON text; undefined for anything else (valid JSON text is never `undefined`). */
function parsedOrUndefined(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/** A reply opening with "[": a JSON array (of objects, usually), or broken JSON whose first bracket is wrong. */
function arrayProblem(text: string): string {
	const parsed = parse(text);
	if ('value' in parsed) return 'Your reply was a JSON array; send a single object, not an array.';
	const scan = scanStructure(text);
	if (scan.kind === 'closed' && text.slice(scan.end + 1).trim() !== '') {
		return 'Your reply began with a JSON array and had more after it; send a single object and nothing else.';
	}
	return `Your reply opened with "[" where the object's "{" belongs, and was not valid JSON: ${parsed.error}.`;
}

function parse(text: string): { value: unknown } | { error: string } {
	try {
		return { value: JSON.parse(text) as unknown };
	} catch (error) {
		const hint = syntaxHint(text);
		const message = (error as Error).message.slice(0, 200);
		return { error: hint ? `${hint} (${message})` : message };
	}
}

const TYPOGRAPHIC_QUOTES = '“”„‘’‚`´«»';
const BARE_WORD = /[A-Za-z_$][\w$]*/y;
const NUMBER_LIKE = /[\w.+\-/]+(?::[\w.+\-/]+)*/y;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const NOT_JSON_WORDS: Record<string, string> = {
	True: 'true',
	False: 'false',
	None: 'null',
	undefined: 'null',
	NaN: 'null',
	Infinity: 'a number',
};

/**
 * What JSON.parse's own message ("Unexpected token …") leaves the model to guess, named with its place: the
 * first single quote, trailing comma, unquoted key or Python/JavaScript literal outside a string. One pass.
 */
function syntaxHint(text: string): string | undefined {
	let stringEnd = -2;
	for (let index = 0; index < text.length; index++) {
		const character = text[index];
		if (index === stringEnd + 1 && /[\w.$("]/.test(character)) {
			// A word glued to a string's closing quote: that quote was meant to be inside the string ("[LINK]("https…", bj161).
			return `the quote before ${placeOf(text, index)} ends the string early; a quote inside a string needs a backslash (\\")`;
		}
		if (character === '"') {
			for (index++; index < text.length && text[index] !== '"'; index++)
				if (text[index] === '\\') index++;
			stringEnd = index;
		} else if (character === "'") {
			return `strings and keys take double quotes, not single quotes (at ${placeOf(text, index)})`;
		} else if (TYPOGRAPHIC_QUOTES.includes(character)) {
			return `the quote ${character} at ${placeOf(text, index)} is not JSON's; strings and keys take straight double quotes (")`;
		} else if (character === '.' && text[index + 1] === '.') {
			return `the ellipsis at ${placeOf(text, index)} is not JSON; write every item out, or leave the rest out`;
		} else if (character === ',') {
			let next = index + 1;
			while (next < text.length && /\s/.test(text[next])) next++;
			if (text[next] === '}' || text[next] === ']')
				return `a comma before the closing "${text[next]}" at ${placeOf(text, next)} (no comma after the last item)`;
		} else if (/[0-9.-]/.test(character)) {
			// The whole run that starts like a number (82_461_110, 1/3, 10-20, 1.1.1, a UUID) must be one.
			NUMBER_LIKE.lastIndex = index;
			const token = NUMBER_LIKE.exec(text)?.[0] ?? character;
			if (!JSON_NUMBER.test(token))
				return `the value ${token.slice(0, 40)} at ${placeOf(text, index)} is not a JSON number; write a plain number, or a string in double quotes`;
			let next = index + token.length;
			while (next < text.length && /\s/.test(text[next])) next++;
			if (text[next] === ':')
				return `the key ${token.slice(0, 40)} at ${placeOf(text, index)} needs double quotes`;
			index += token.length - 1;
		} else if (/[A-Za-z_$]/.test(character)) {
			BARE_WORD.lastIndex = index;
			const word = BARE_WORD.exec(text)?.[0] ?? character;
			if (word === 'true' || word === 'false' || word === 'null') {
				index += word.length - 1;
				continue;
			}
			let next = index + word.length;
			while (next < text.length && /\s/.test(text[next])) next++;
			if (text[next] === ':')
				return `the key ${word.slice(0, 40)} at ${placeOf(text, index)} needs double quotes`;
			if (NOT_JSON_WORDS[word] !== undefined)
				return `${word} at ${placeOf(text, index)} is not JSON; write ${NOT_JSON_WORDS[word]}`;
			return `the bare word ${word.slice(0, 40)} at ${placeOf(text, index)} needs double quotes if it is a string`;
		} else if (character.charCodeAt(0) > 0x7e) {
			// No-break and zero-width spaces, a BOM: invisible, and not JSON whitespace (bj274–bj282).
			const code = character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
			return `the character U+${code} at ${placeOf(text, index)} is not allowed outside a string (JSON's only spaces are space, tab and line breaks)`;
		}
	}
	return undefined;
}
