// How text PostgreSQL cannot hold (NUL, lone surrogates) is stored: reversibly escaped, so a run reads back exactly.

/**
 * The escape mark: a private-use character. Every stored string has each U+0000, each lone UTF-16
 * surrogate and each U+E000 itself replaced by this mark and the code unit's four upper-case hex digits
 * (U+0000 → "\uE000" + "0000", a lone U+D800 → "\uE000" + "D800", U+E000 → "\uE000" + "E000"), so reading
 * undoes it exactly and the hashes, computed over the run as it happened, still match what is read back.
 * PostgreSQL refuses U+0000 in text and jsonb, and a lone surrogate in jsonb; in a text column pg's driver
 * would turn it into U+FFFD silently (Node's UTF-8 encoder does), which is why text columns are escaped too.
 */
export const ESCAPE_MARK = '\uE000';

// A quick native test first: most text has nothing to escape. Without the `u` flag it sees UTF-16 code units.
const MAY_NEED_ESCAPE = /[\u0000\uD800-\uDFFF\uE000]/;
// Upper-case hex digits as code units.
const HEX_UNITS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 65, 66, 67, 68, 69, 70];
const hexValue = (unit: number) =>
	unit >= 48 && unit <= 57 ? unit - 48 : unit >= 65 && unit <= 70 ? unit - 55 : -1;
const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;

/** Whether the code unit at `index` is escaped (a well-formed surrogate pair is text: its high half is not). */
function needsEscape(text: string, index: number): boolean {
	const unit = text.charCodeAt(index);
	if (unit === 0 || unit === 0xe000) return true;
	if (!isSurrogate(unit)) return false;
	if (unit <= 0xdbff) {
		const next = text.charCodeAt(index + 1);
		return !(next >= 0xdc00 && next <= 0xdfff);
	}
	const previous = index > 0 ? text.charCodeAt(index - 1) : 0;
	return !(previous >= 0xd800 && previous <= 0xdbff);
}

/** Code units as a string, in slices small enough for String.fromCharCode's argument list. */
function fromUnits(units: Uint16Array, length: number): string {
	let text = '';
	for (let start = 0; start < length; start += 8_192)
		text += String.fromCharCode.apply(
			null,
			units.subarray(start, Math.min(start + 8_192, length)) as unknown as number[],
		);
	return text;
}

/**
 * A string as it is stored. Loops over code units (count, then copy) rather than a replace callback per
 * match: a hostile 5 MB text with a million marks is escaped in tens of milliseconds, not seconds.
 */
export function escapeStoredText(text: string): string {
	if (!MAY_NEED_ESCAPE.test(text)) return text;
	let count = 0;
	for (let index = 0; index < text.length; index++) if (needsEscape(text, index)) count++;
	if (count === 0) return text;
	const units = new Uint16Array(text.length + 4 * count);
	let written = 0;
	for (let index = 0; index < text.length; index++) {
		const unit = text.charCodeAt(index);
		if (!needsEscape(text, index)) {
			units[written++] = unit;
			continue;
		}
		units[written] = 0xe000;
		units[written + 1] = HEX_UNITS[(unit >> 12) & 15];
		units[written + 2] = HEX_UNITS[(unit >> 8) & 15];
		units[written + 3] = HEX_UNITS[(unit >> 4) & 15];
		units[written + 4] = HEX_UNITS[unit & 15];
		written += 5;
	}
	return fromUnits(units, written);
}

/** A stored string as it was before escapeStoredText; a mark without four hex digits (not written here) stays. */
export function unescapeStoredText(text: string): string {
	if (!text.includes(ESCAPE_MARK)) return text;
	const units = new Uint16Array(text.length);
	let written = 0;
	for (let index = 0; index < text.length; index++) {
		const unit = text.charCodeAt(index);
		if (unit === 0xe000) {
			const a = hexValue(text.charCodeAt(index + 1));
			const b = hexValue(text.charCodeAt(index + 2));
			const c = hexValue(text.charCodeAt(index + 3));
			const d = hexValue(text.charCodeAt(index + 4));
			if ((a | b | c | d) >= 0) {
				units[written++] = (a << 12) | (b << 8) | (c << 4) | d;
				index += 4;
				continue;
			}
		}
		units[written++] = unit;
	}
	return fromUnits(units, written);
}

/** One container being copied by mapStrings: its source, its copy, its keys (an object) and the next entry. */
interface Frame {
	source: object;
	copy: unknown[] | Record<string, unknown>;
	entries: [string, unknown][] | undefined;
	next: number;
}

/** Levels walked by plain recursion (fast for the shallow values runs store); deeper ones go to an explicit stack. */
const RECURSION_DEPTH = 200;

/**
 * A JSON value with every string (object keys included) passed through `map`; other values as they are. A value
 * nested deeper than RECURSION_DEPTH is walked on with an explicit stack: a hostile row never overflows the stack.
 */
export function mapStrings(value: unknown, map: (text: string) => string, depth = 0): unknown {
	if (typeof value === 'string') return map(value);
	if (depth >= RECURSION_DEPTH) return mapDeep(value, map);
	if (Array.isArray(value)) return value.map((item) => mapStrings(item, map, depth + 1));
	if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
		// fromEntries defines each key as its own property, so a key "__proto__" stays data.
		return Object.fromEntries(
			Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map, depth + 1)]),
		);
	}
	return value;
}

/** mapStrings from an explicit stack, for any depth. */
function mapDeep(value: unknown, map: (text: string) => string): unknown {
	const stack: Frame[] = [];
	const copyOf = (item: unknown): unknown => {
		if (typeof item === 'string') return map(item);
		if (item === null || typeof item !== 'object' || item instanceof Date) return item;
		const copy = Array.isArray(item) ? [] : {};
		const entries = Array.isArray(item) ? undefined : Object.entries(item);
		stack.push({ source: item, copy, entries, next: 0 });
		return copy;
	};
	const root = copyOf(value);
	while (stack.length > 0) {
		const frame = stack[stack.length - 1];
		const { entries } = frame;
		const length = entries ? entries.length : (frame.source as unknown[]).length;
		if (frame.next >= length) {
			stack.pop();
			continue;
		}
		const index = frame.next++;
		if (!entries) {
			(frame.copy as unknown[]).push(copyOf((frame.source as unknown[])[index]));
			continue;
		}
		const [key, item] = entries[index];
		// Defined as its own data property, as Object.fromEntries would: a key "__proto__" stays data.
		Object.defineProperty(frame.copy, map(key), {
			value: copyOf(item),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return root;
}
