// The storage escaping's walk over a stored value (src/audit/stored-text.ts): any depth, the same copy at every depth.
import { escapeStoredText, mapStrings, unescapeStoredText } from '../../src/audit/stored-text';

describe('mapStrings over stored values', () => {
	it('copies a value nested far deeper than the call stack, every string mapped', () => {
		let value: unknown = 'bottom\u0000';
		for (let depth = 0; depth < 100_000; depth++) value = { [`k${depth % 3}`]: [value, 'x'] };
		const escaped = mapStrings(value, escapeStoredText);
		let at = escaped as Record<string, unknown[]>;
		let levels = 0;
		for (let depth = 100_000 - 1; depth >= 0 && at[`k${depth % 3}`]?.[1] === 'x'; depth--) {
			at = at[`k${depth % 3}`][0] as Record<string, unknown[]>;
			levels++;
		}
		expect(levels).toBe(100_000);
		expect(at).toBe(escapeStoredText('bottom\u0000'));
		expect(at).not.toContain('\u0000');
	});

	it('gives the same copy shallow and deep: keys, arrays, null, numbers, dates and "__proto__" kept as data', () => {
		const leaf = () =>
			JSON.parse('{"__proto__": {"x": "a\\u0000"}, "n": null, "k": [1, true, "b"]}');
		let deep: unknown = leaf();
		for (let depth = 0; depth < 500; depth++) deep = [deep];
		let copy = mapStrings(deep, escapeStoredText);
		for (let depth = 0; depth < 500; depth++) copy = (copy as unknown[])[0];
		expect(copy).toEqual(mapStrings(leaf(), escapeStoredText));
		expect(Object.keys(copy as object)).toEqual(['__proto__', 'n', 'k']);
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		expect(mapStrings(copy, unescapeStoredText)).toEqual(leaf());
		const date = new Date(0);
		expect(mapStrings({ date }, escapeStoredText)).toEqual({ date });
	});
});
