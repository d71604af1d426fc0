/**
 * JSON with object keys sorted at every level: one text for one value, whatever the key order. The loop
 * breaker compares calls by it, and run states are signed over it.
 *
 * Written as loops that append to one string, with strings and numbers written without a call into
 * JSON.stringify where that gives the same text: the trace's hash chain runs it over every step of every run.
 * The text is the one the map/filter/sort/join version gave, down to its quirks: an `undefined` property is
 * left out, a function or symbol is `null`, and a hole in an array is empty (`[1,,3]`), so no digest changes.
 */
export function canonicalJson(value: unknown): string {
	switch (typeof value) {
		case 'string':
			return quoted(value);
		case 'number':
			// What JSON.stringify writes: ToString for a finite number (-0 as "0"), null otherwise.
			return Number.isFinite(value) ? String(value) : 'null';
		case 'boolean':
			return value ? 'true' : 'false';
		case 'object':
			break;
		default:
			return JSON.stringify(value) ?? 'null';
	}
	if (value === null) return 'null';
	if (Array.isArray(value)) {
		let text = '[';
		for (let index = 0; index < value.length; index++) {
			if (index > 0) text += ',';
			const item: unknown = value[index];
			if (item !== undefined || index in value) text += canonicalJson(item);
		}
		return `${text}]`;
	}
	const keys = sortedKeys(value);
	let text = '{';
	for (const key of keys) {
		const item = (value as Record<string, unknown>)[key];
		if (item === undefined) continue;
		if (text.length > 1) text += ',';
		text += `${quoted(key)}:${canonicalJson(item)}`;
	}
	return `${text}}`;
}

/**
 * `text` as a JSON string. JSON.stringify escapes only `"`, `\`, control characters and lone surrogates;
 * a text without any of those (and without surrogates at all, to keep the test simple) is written as it is.
 */
function quoted(text: string): string {
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
			return JSON.stringify(text);
	}
	return `"${text}"`;
}

/** Up to this many keys are sorted here; more go to Array.prototype.sort. */
const MAX_KEYS_SORTED_BY_INSERTION = 24;

/**
 * An object's own enumerable keys in the default sort's order (by UTF-16 code units, which `<` on strings
 * compares too). The few keys of a trace step or an args object are sorted in place by insertion: the
 * built-in sort sets up a work area for every call, a quarter of what a run allocates in issue #29's
 * allocation profile, and the trace's hash chain sorts the keys of every object of every step.
 */
function sortedKeys(value: object): string[] {
	const keys = Object.keys(value);
	if (keys.length > MAX_KEYS_SORTED_BY_INSERTION) return keys.sort();
	for (let index = 1; index < keys.length; index++) {
		const key = keys[index];
		let at = index - 1;
		for (; at >= 0 && keys[at] > key; at--) keys[at + 1] = keys[at];
		keys[at + 1] = key;
	}
	return keys;
}
