/** Size and depth limits of a run state, checked before anything recursive (signing, copying) walks one. */

/**
 * Deepest nesting a state may have. A state holds model replies' arguments (at most MAX_NESTING_DEPTH, 64,
 * deep: see protocol.ts) under a few levels of its own; a deeper one was not made by a paused run, and
 * would overflow the stack of the recursive canonical JSON and structuredClone (a RangeError, not a refusal).
 */
export const MAX_STATE_DEPTH = 128;

/** Largest state, in characters of JSON (about): far above a real one, small enough to check in well under a second. */
export const MAX_STATE_CHARACTERS = 32_000_000;

const TOO_LARGE = `is larger than ${MAX_STATE_CHARACTERS} characters`;

/**
 * Why a value cannot be a run state (`is nested deeper than …`, `is larger than …`), or undefined. Walks
 * with an explicit stack and stops as soon as a limit is passed, so its work is bounded by the limits, not
 * by the input: a cyclic value ends as too deep.
 */
export function stateSizeProblem(value: unknown): string | undefined {
	let characters = 0;
	const stack: Array<[unknown, number]> = [[value, 0]];
	while (stack.length > 0) {
		const [item, depth] = stack.pop()!;
		if (typeof item === 'string') characters += item.length + 2;
		else if (typeof item !== 'object' || item === null) characters += 8;
		else {
			if (depth >= MAX_STATE_DEPTH) return `is nested deeper than ${MAX_STATE_DEPTH} levels`;
			// Counted before the children are pushed, so a huge array or object is refused without walking it.
			const keys = Array.isArray(item) ? undefined : Object.keys(item);
			characters += 2 + (keys ? keys.length * 4 : (item as unknown[]).length);
			if (characters > MAX_STATE_CHARACTERS) return TOO_LARGE;
			if (keys) {
				for (const key of keys) {
					characters += key.length;
					stack.push([(item as Record<string, unknown>)[key], depth + 1]);
				}
			} else {
				for (const element of item as unknown[]) stack.push([element, depth + 1]);
			}
		}
		if (characters > MAX_STATE_CHARACTERS) return TOO_LARGE;
	}
	return undefined;
}
