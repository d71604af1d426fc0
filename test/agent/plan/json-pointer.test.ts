// JSON Pointer as RFC 6901 defines it: the examples of its §5 (the document and each pointer with its value), and the
// pointers it does not allow.
import { parsePointer, resolvePointer } from '../../../src/agent/plan/json-pointer';

/** RFC 6901 §5, "JSON String Representation": the example document. */
const RFC_DOCUMENT = {
	foo: ['bar', 'baz'],
	'': 0,
	'a/b': 1,
	'c%d': 2,
	'e^f': 3,
	'g|h': 4,
	'i\\j': 5,
	'k"l': 6,
	' ': 7,
	'm~n': 8,
};

/** RFC 6901 §5: each pointer (as a JSON string) and the value it evaluates to in the document above. */
const RFC_CASES: [string, unknown][] = [
	['', RFC_DOCUMENT],
	['/foo', ['bar', 'baz']],
	['/foo/0', 'bar'],
	['/', 0],
	['/a~1b', 1],
	['/c%d', 2],
	['/e^f', 3],
	['/g|h', 4],
	['/i\\j', 5],
	['/k"l', 6],
	['/ ', 7],
	['/m~0n', 8],
];

const at = (value: unknown, pointer: string) => {
	const parsed = parsePointer(pointer);
	if ('problem' in parsed) throw new Error(parsed.problem);
	return resolvePointer(value, parsed.tokens);
};

describe('JSON Pointer (RFC 6901)', () => {
	it.each(RFC_CASES)('§5: %j evaluates to the value the RFC gives', (pointer, expected) => {
		expect(at(RFC_DOCUMENT, pointer)).toEqual({ value: expected });
	});

	it('decodes ~1 before ~0, so "~01" is the key "~1", not "/"', () => {
		expect(parsePointer('/~01')).toEqual({ tokens: ['~1'] });
		expect(at({ '~1': 'tilde-one', '/': 'slash' }, '/~01')).toEqual({ value: 'tilde-one' });
	});

	it('refuses a pointer that does not start with "/", and a "~" not followed by 0 or 1', () => {
		expect(parsePointer('foo')).toEqual({ problem: expect.stringContaining('start with "/"') });
		expect(parsePointer('/a~2b')).toEqual({ problem: expect.stringContaining('"~0" for "~"') });
		expect(parsePointer('/a~')).toEqual({ problem: expect.stringContaining('"~1" for "/"') });
	});

	it('names where the way ends: a missing key, an index past the end, "-", a leading zero, a scalar', () => {
		expect(at(RFC_DOCUMENT, '/bar')).toEqual({ problem: 'the observation has no key "bar"' });
		expect(at(RFC_DOCUMENT, '/foo/2')).toEqual({
			problem: '"/foo" is an array of 2 items; "2" is not one of its indexes (0 to 1)',
		});
		expect(at(RFC_DOCUMENT, '/foo/-')).toEqual({
			problem: expect.stringContaining('"-" is not one'),
		});
		expect(at(RFC_DOCUMENT, '/foo/01')).toEqual({
			problem: expect.stringContaining('"01" is not one'),
		});
		expect(at(RFC_DOCUMENT, '/foo/0/x')).toEqual({
			problem: '"/foo/0" is a string, which has no "x" in it',
		});
	});

	it('finds only own keys: "/__proto__" or "/constructor" of a plain object is no value', () => {
		expect(at({}, '/constructor')).toEqual({ problem: 'the observation has no key "constructor"' });
		expect(at(JSON.parse('{"__proto__": 5}'), '/__proto__')).toEqual({ value: 5 });
	});
});
