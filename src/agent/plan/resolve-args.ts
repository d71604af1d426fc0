// A step's args at execution: each reference replaced by the value its pointer finds in the earlier step's observation.
import { resolvePointer } from './json-pointer';
import { isReference, MAX_ARGS_NODES, renderPath, STEP_KEY } from './references';
import { parsePointer } from './json-pointer';
import { pathOf, type Place } from '../../guardrails/find';

/** The observations of the steps that ran, by step number: `observations[N]` is step N's observation text. */
export type StepObservations = Readonly<Record<number, string | undefined>>;

/**
 * `args` with every reference replaced (a new value; `args` is left as it is), or the sentence that makes this
 * step a failed one: the reference (where it is, the step and the pointer) and why it could not be read. Each
 * reference gets a value of its own, parsed anew from the observation, so no two places of the args share one.
 * Walked with an explicit stack, so args of any depth are copied without recursion; never throws.
 */
export function resolveArgs(
	args: Record<string, unknown>,
	observations: StepObservations,
): { args: Record<string, unknown> } | { problem: string } {
	const root: Record<string, unknown> = {};
	const stack: { item: unknown; into: object; key: string | number; at: Place }[] = [];
	const pushChildren = (item: object, into: object, parent: Place | undefined) => {
		const entries: [string | number, unknown][] = Array.isArray(item)
			? item.map((value, index) => [index, value])
			: Object.entries(item);
		for (let index = entries.length - 1; index >= 0; index--) {
			const [key, value] = entries[index];
			stack.push({ item: value, into, key, at: { parent, step: key } });
		}
	};
	pushChildren(args, root, undefined);
	let nodes = 0;
	while (stack.length > 0) {
		const { item, into, key, at } = stack.pop()!;
		if (++nodes > MAX_ARGS_NODES)
			return { problem: `args hold more than ${MAX_ARGS_NODES} values` };
		let value: unknown = item;
		if (isReference(item)) {
			const resolved = resolveReference(item, observations);
			if ('problem' in resolved)
				return { problem: `${renderPath(pathOf(at))}: ${resolved.problem}` };
			value = resolved.value;
		} else if (typeof item === 'object' && item !== null) {
			value = Array.isArray(item) ? new Array<unknown>(item.length) : {};
			pushChildren(item, value as object, at);
		}
		// A key "__proto__" is an own key, as JSON.parse makes it, never the object's prototype.
		Object.defineProperty(into, key, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return { args: root };
}

function resolveReference(
	reference: Record<string, unknown>,
	observations: StepObservations,
): { value: unknown } | { problem: string } {
	const step = reference[STEP_KEY];
	const pointer = reference.pointer;
	// readPlan checked the form; a plan that did not come through it is checked here too.
	const parsed = typeof pointer === 'string' ? parsePointer(pointer) : undefined;
	if (
		typeof step !== 'number' ||
		parsed === undefined ||
		'problem' in parsed ||
		Object.keys(reference).length !== 2
	)
		return { problem: 'is not a reference of the form {"$step": N, "pointer": "/…"}' };
	const named = `the reference to step ${step} at ${JSON.stringify(pointer)}`;
	const text = Object.prototype.hasOwnProperty.call(observations, step)
		? observations[step]
		: undefined;
	if (text === undefined)
		return {
			problem: `${named} cannot be read: step ${step} has no observation (it did not run, or failed)`,
		};
	const observation = readObservation(text);
	if (observation === NOT_JSON)
		return {
			problem:
				`${named} cannot be read: step ${step}'s observation is not JSON (it begins ` +
				`${JSON.stringify(text.slice(0, 40))}; a result cut at observation_max_len is not JSON either)`,
		};
	const found = resolvePointer(observation, parsed.tokens);
	return 'problem' in found ? { problem: `${named} finds nothing: ${found.problem}` } : found;
}

const NOT_JSON = Symbol('not JSON');

/** http_request's observation: its summary line (`HTTP 200 OK · application/json · 1234 bytes`), then the body. */
const STATUS_LINE = /^HTTP \d{3}\b[^\n]*\n/;

/** An observation read as JSON; one that starts with http_request's status line is read from the body after it. */
function readObservation(text: string): unknown {
	for (const candidate of [
		text,
		STATUS_LINE.test(text) ? text.replace(STATUS_LINE, '') : undefined,
	]) {
		if (candidate === undefined) continue;
		try {
			return JSON.parse(candidate);
		} catch {
			// not JSON: the next reading, or none
		}
	}
	return NOT_JSON;
}
