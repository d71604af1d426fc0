// References between a plan's steps: `{"$step": N, "pointer": "/json/pointer"}` anywhere inside a step's args.
import { MAX_VALUE_DEPTH } from '../../validation/validate';
import { isReference, STEP_KEY } from '../../trace/plan-reference';
import { parsePointer } from './json-pointer';

export { isReference, STEP_KEY };

/** One reference of a step's args: where it sits, the step it reads and the pointer into that step's observation. */
export interface StepReference {
	/** Keys and indexes from the args down to the reference. */
	path: (string | number)[];
	step: number;
	pointer: string;
	tokens: string[];
}

/**
 * Args holding more objects, arrays and scalars than this are refused, so that a walk of them stays bounded: ten
 * times what the longest reply (MAX_REPLY_CHARACTERS, 200 000 characters) can hold, room for a person's edit.
 */
export const MAX_ARGS_NODES = 1_000_000;

/** Where a value sits, as the schema check names it: `args.customer.ids[0]`. */
export function renderPath(path: readonly (string | number)[]): string {
	return `args${path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')}`;
}

/**
 * Every reference in `args`, in the order they are written, each checked for its form (exactly "$step", a whole
 * number from 1, and "pointer", an RFC 6901 pointer); or the first problem, naming where it is and the fix.
 * Walked with an explicit stack (args may be deep), refusing values past MAX_VALUE_DEPTH levels or MAX_ARGS_NODES.
 */
export function referencesIn(
	args: Record<string, unknown>,
): { references: StepReference[] } | { problem: string } {
	if (isReference(args))
		return {
			problem:
				'"args" itself cannot be a reference; put each reference at a key of the args, as in ' +
				'{"customer_id": {"$step": 1, "pointer": "/id"}}',
		};
	const references: StepReference[] = [];
	const stack: { item: unknown; path: (string | number)[] }[] = [{ item: args, path: [] }];
	let nodes = 0;
	while (stack.length > 0) {
		const { item, path } = stack.pop()!;
		if (++nodes > MAX_ARGS_NODES)
			return { problem: `args hold more than ${MAX_ARGS_NODES} values; send smaller args` };
		if (typeof item !== 'object' || item === null) continue;
		if (path.length >= MAX_VALUE_DEPTH)
			return {
				problem: `args nest objects or arrays more than ${MAX_VALUE_DEPTH} levels deep; send flatter args`,
			};
		if (isReference(item)) {
			const read = readReference(item, path);
			if ('problem' in read) return { problem: `${renderPath(path)}: ${read.problem}` };
			references.push(read.reference);
			continue;
		}
		const entries: [string | number, unknown][] = Array.isArray(item)
			? item.map((value, index) => [index, value])
			: Object.entries(item);
		for (let index = entries.length - 1; index >= 0; index--)
			stack.push({ item: entries[index][1], path: [...path, entries[index][0]] });
	}
	return { references };
}

const FORM =
	'{"$step": <an earlier step\'s number>, "pointer": "<JSON Pointer into its observation>"}';

function readReference(
	value: Record<string, unknown>,
	path: (string | number)[],
): { reference: StepReference } | { problem: string } {
	const extra = Object.keys(value).find((key) => key !== STEP_KEY && key !== 'pointer');
	if (extra !== undefined)
		return {
			problem: `a reference holds exactly "$step" and "pointer", but this one also held ${JSON.stringify(extra).slice(0, 40)}: write ${FORM}`,
		};
	const step = value[STEP_KEY];
	if (typeof step !== 'number' || !Number.isInteger(step) || step < 1)
		return {
			problem: `"$step" must be the number of an earlier step (1, 2, …), but it was ${JSON.stringify(step)?.slice(0, 40) ?? 'missing'}`,
		};
	const pointer = value.pointer;
	if (typeof pointer !== 'string')
		return {
			problem: `the reference to step ${step} needs "pointer", a JSON Pointer string ("" for the whole observation, "/id" for its key "id"): write ${FORM}`,
		};
	const parsed = parsePointer(pointer);
	if ('problem' in parsed)
		return {
			problem: `the reference to step ${step} has the pointer ${JSON.stringify(pointer.slice(0, 60))}, which ${parsed.problem}`,
		};
	return { reference: { path, step, pointer, tokens: parsed.tokens } };
}
