// JSON Pointer (RFC 6901): a pointer's text read into its reference tokens, and the value it points at.

/** A pointer longer than this is refused: no honest reference into an observation needs more. */
export const MAX_POINTER_LENGTH = 1_000;

/**
 * The reference tokens of `pointer` (RFC 6901 §3–4): "" is the whole value; otherwise each "/" opens a token,
 * in which "~1" stands for "/" and "~0" for "~" (decoded in that order); any other "~" is an error.
 */
export function parsePointer(pointer: string): { tokens: string[] } | { problem: string } {
	if (pointer.length > MAX_POINTER_LENGTH)
		return { problem: `is ${pointer.length} characters long; at most ${MAX_POINTER_LENGTH}` };
	if (pointer === '') return { tokens: [] };
	if (!pointer.startsWith('/'))
		return {
			problem: `must be "" (the whole observation) or start with "/", as "/customer/id" or "/items/0/id" does`,
		};
	const tokens = pointer.slice(1).split('/');
	for (const token of tokens) {
		const bad = /~(?![01])/.exec(token);
		if (bad)
			return {
				problem: `holds a "~" not followed by 0 or 1 (write "~0" for "~" and "~1" for "/" in a key)`,
			};
	}
	return { tokens: tokens.map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~')) };
}

/** RFC 6901 §4: an array index is "0" or digits without a leading zero ("-" names no element yet). */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The value `tokens` point at in `value`, or the sentence that says at which token the way ends. Never throws. */
export function resolvePointer(
	value: unknown,
	tokens: readonly string[],
): { value: unknown } | { problem: string } {
	let current = value;
	for (const [index, token] of tokens.entries()) {
		const where = index === 0 ? 'the observation' : `"${encodeTokens(tokens.slice(0, index))}"`;
		if (Array.isArray(current)) {
			if (!ARRAY_INDEX.test(token) || Number(token) >= current.length)
				return {
					problem: `${where} is an array of ${current.length} items; "${encodeToken(token).slice(0, 40)}" is not one of its indexes (0 to ${current.length - 1})`,
				};
			current = current[Number(token)];
		} else if (typeof current === 'object' && current !== null) {
			if (!Object.prototype.hasOwnProperty.call(current, token))
				return { problem: `${where} has no key ${JSON.stringify(token).slice(0, 60)}` };
			current = (current as Record<string, unknown>)[token];
		} else {
			return {
				problem: `${where} is ${current === null ? 'null' : `a ${typeof current}`}, which has no "${encodeToken(token).slice(0, 40)}" in it`,
			};
		}
	}
	return { value: current };
}

/** A token written back as it is in a pointer. */
export const encodeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

const encodeTokens = (tokens: readonly string[]) =>
	tokens.map((token) => `/${encodeToken(token)}`).join('');
