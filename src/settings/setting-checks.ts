// The checks of a setting's value, each giving one sentence naming the key or undefined: a row's own, and every number finite.
import { MAX_PERIOD_SECONDS } from '../budget/ledger';
import { MAX_COST_USD, MAX_PRICE_PER_MILLION } from '../budget/model-catalogue';
import { loadOnce } from '../core/load-once';
import type { JsonSchema } from '../validation/validate';

/** The validator, loaded on the first check that needs it: the panels read this table without checking anything. */
const validation = loadOnce(
	() => require('../validation/validate') as typeof import('../validation/validate'),
);

declare const valueType: unique symbol;

/**
 * A check of one config value; `range` is set for numbers, so the panel can show the same bounds. `Value` is the
 * type a value that passes has: the config's type is read from the checks (AgentConfig in ./config).
 */
export type Check<Value = unknown> = ((value: unknown, key: string) => string | undefined) & {
	readonly range?: NumberRange;
	/** The JSON Schema a `bySchema` check applies: where its numbers' bounds are read (nonFiniteNumberProblem). */
	readonly schema?: JsonSchema;
	readonly [valueType]?: Value;
};

/** The bounds a number check enforces. */
export interface NumberRange {
	minimum: number;
	maximum: number;
	integer: boolean;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberCheck(minimum: number, maximum: number, integer: boolean): Check<number> {
	const check = (value: unknown, key: string) => {
		const ok =
			typeof value === 'number' &&
			Number.isFinite(value) &&
			(!integer || Number.isInteger(value)) &&
			value >= minimum &&
			value <= maximum;
		if (ok) return undefined;
		const kind = integer ? 'an integer' : 'a number';
		return maximum === Number.MAX_SAFE_INTEGER
			? `${key} must be ${kind} ≥ ${minimum}`
			: `${key} must be ${kind} from ${minimum} to ${maximum}`;
	};
	return Object.assign(check, { range: { minimum, maximum, integer } });
}

/** A whole number from `minimum` to `maximum` (no upper bound when omitted). */
export const integer = (minimum: number, maximum = Number.MAX_SAFE_INTEGER): Check<number> =>
	numberCheck(minimum, maximum, true);

/** Any finite number from `minimum` to `maximum`. */
export const decimal = (minimum: number, maximum: number): Check<number> =>
	numberCheck(minimum, maximum, false);

/** The same bounds with a message of its own (that says why the bound is there). */
export function withMessage<Value>(
	check: Check<Value>,
	message: (key: string) => string,
): Check<Value> {
	return Object.assign(
		(value: unknown, key: string) => (check(value, key) ? message(key) : undefined),
		{ range: check.range },
	);
}

/** One of a few strings, listed in the message as `"a", "b" or "c"` (or `one of "a", "b"` with `listStyle` 'one of'). */
export function oneOf<const Value extends string>(
	values: readonly Value[],
	listStyle: 'or' | 'one of' = 'or',
): Check<Value> {
	const quoted = values.map((value) => `"${value}"`);
	const list =
		listStyle === 'one of'
			? `one of ${quoted.join(', ')}`
			: quoted.length === 1
				? quoted[0]
				: `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
	return (value, key) =>
		typeof value === 'string' && (values as readonly string[]).includes(value)
			? undefined
			: `${key} must be ${list}`;
}

export const boolean: Check<boolean> = (value, key) =>
	typeof value === 'boolean' ? undefined : `${key} must be true or false`;

export const nonEmptyString =
	(what: string): Check<string> =>
	(value, key) =>
		typeof value === 'string' && value.trim() !== ''
			? undefined
			: `${key} must be a non-empty string (${what})`;

export const toolNames: Check<string[]> = (value, key) =>
	Array.isArray(value) && value.every((name) => typeof name === 'string')
		? undefined
		: `${key} must be an array of tool names`;

export const settingsPerTool: Check<Record<string, Record<string, unknown>>> = (value, key) =>
	isPlainObject(value) && Object.values(value).every(isPlainObject)
		? undefined
		: `${key} must be an object mapping tool names to settings objects`;

/** A check by JSON Schema, its problems as `key.path: problem` lines. */
export function bySchema<Value>(schema: JsonSchema, example: string): Check<Value> {
	const check = (value: unknown, key: string) => {
		const result = validation().validateAgainst(schema, value, key);
		return result.ok ? undefined : `${result.issues.join('; ')} (e.g. ${example})`;
	};
	return Object.assign(check, { schema });
}

/** A JSON Schema the engine can compile. */
export const jsonSchema: Check<JsonSchema> = (value, key) => {
	if (!isPlainObject(value))
		return `${key} must be a JSON Schema object, e.g. {"type":"object","properties":{"total":{"type":"number"}},"required":["total"]}`;
	try {
		validation().assertValidSchema(value, key);
		return undefined;
	} catch (error) {
		return (error as Error).message;
	}
};

export const SHARED_BUDGET_SCHEMA: JsonSchema = {
	type: 'object',
	properties: {
		scope: { type: 'string', minLength: 1, maxLength: 200 },
		tokens: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
		cost: { type: 'number', exclusiveMinimum: 0, maximum: MAX_COST_USD },
		period_seconds: { type: 'integer', minimum: 1, maximum: MAX_PERIOD_SECONDS },
	},
	required: ['scope', 'period_seconds'],
	anyOf: [{ required: ['tokens'] }, { required: ['cost'] }],
	additionalProperties: false,
};

/** One price in `prices`: 0 is a price (a free or self-hosted model), a negative one is not. */
const PRICE: JsonSchema = {
	type: 'number',
	minimum: 0,
	maximum: MAX_PRICE_PER_MILLION,
	description: 'a price in USD per million tokens',
	examples: [2.5],
};

export const PRICES_SCHEMA: JsonSchema = {
	type: 'object',
	additionalProperties: {
		type: 'object',
		properties: {
			input_per_million: PRICE,
			output_per_million: PRICE,
			cached_input_per_million: PRICE,
			cache_write_per_million: PRICE,
		},
		required: ['input_per_million', 'output_per_million'],
		additionalProperties: false,
	},
};

type Segment = string | number;

/**
 * The problem with the first number in a setting's value (the value itself, or anywhere in its arrays and
 * objects) that is NaN, Infinity or -Infinity, naming its path and what to give instead; undefined when there is
 * none. JSON.parse reads a number too large for a double (`1e999`) as Infinity, and a panel expression or a
 * library caller can hand over NaN: either would pass a check by comparison (NaN >= 1 is false, so a limit
 * compared that way is never reached; Infinity × 0 is NaN). Run on every row of the settings table before
 * its own check (config.ts), so a setting added later is covered without a line of its own.
 */
export function nonFiniteNumberProblem(
	value: unknown,
	key: string,
	check: Check,
): string | undefined {
	const found = firstNonFinite(value);
	if (!found) return undefined;
	const path = key + found.segments.map(pathPart).join('');
	const written = found.value > 0 ? '1e999' : '-1e999';
	const why = Number.isNaN(found.value)
		? ''
		: ` (JSON reads a number too large for it, such as ${written}, as ${found.value})`;
	return `${path}: ${found.value} is not a finite number${why}; give ${wantedAt(check, found.segments)}`;
}

/** A place in the value: its key or index and the place holding it (a chain, so a step down copies no path). */
interface Place {
	segment: Segment;
	parent?: Place;
}

/** The path of a place from the value's root, built only for the number that is reported. */
function segmentsOf(place: Place | undefined): Segment[] {
	const segments: Segment[] = [];
	for (let at = place; at; at = at.parent) segments.push(at.segment);
	return segments.reverse();
}

/**
 * Depth first in key order, each object once (a library caller's value may hold a cycle); no recursion to overflow,
 * and no path copied per step: a value 100,000 levels deep is walked in linear time (copying took 50 s).
 */
function firstNonFinite(root: unknown): { value: number; segments: Segment[] } | undefined {
	const stack: Array<{ value: unknown; place?: Place }> = [{ value: root }];
	const seen = new Set<object>();
	while (stack.length > 0) {
		const { value, place } = stack.pop()!;
		if (typeof value === 'number') {
			if (!Number.isFinite(value)) return { value, segments: segmentsOf(place) };
			continue;
		}
		if (typeof value !== 'object' || value === null || seen.has(value)) continue;
		seen.add(value);
		const children: Array<[Segment, unknown]> = Array.isArray(value)
			? value.map((item, index) => [index, item])
			: Object.entries(value);
		for (let index = children.length - 1; index >= 0; index--) {
			const [segment, child] = children[index];
			stack.push({ value: child, place: { segment, parent: place } });
		}
	}
	return undefined;
}

/** `.name` for a plain name, `["gpt-4.1"]` for any other key (a model id's dot is not a path step), `[0]` for an index. */
function pathPart(segment: Segment): string {
	if (typeof segment === 'number') return `[${segment}]`;
	return /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
}

/** What the setting takes there, from its declaration: the row's number range, or its schema's description and bounds. */
function wantedAt(check: Check, segments: Segment[]): string {
	if (segments.length === 0 && check.range) {
		const { minimum, maximum, integer } = check.range;
		const kind = integer ? 'an integer' : 'a number';
		return maximum === Number.MAX_SAFE_INTEGER
			? `${kind} ≥ ${minimum}`
			: `${kind} from ${minimum} to ${maximum}`;
	}
	const schema = check.schema && schemaAt(check.schema, segments);
	if (!schema) return 'a finite number';
	const { minimum, exclusiveMinimum, maximum, description, examples } = schema;
	const exclusive = typeof exclusiveMinimum === 'number';
	const lowest = exclusive
		? `more than ${exclusiveMinimum}`
		: typeof minimum === 'number'
			? `from ${minimum}`
			: '';
	const highest =
		typeof maximum === 'number' ? (exclusive ? `, at most ${maximum}` : ` to ${maximum}`) : '';
	const kind =
		typeof description === 'string'
			? description
			: schema.type === 'integer'
				? 'an integer'
				: 'a number';
	const example = Array.isArray(examples) ? `, e.g. ${examples[0]}` : '';
	return `${kind}${lowest ? ` ${lowest}` : ''}${lowest ? highest : highest.replace(/^,? ?(to )?/, ' at most ')}${example}`;
}

/** The part of a schema that declares the value at `segments` (through properties, additionalProperties and items). */
function schemaAt(schema: JsonSchema, segments: Segment[]): JsonSchema | undefined {
	let current: unknown = schema;
	for (const segment of segments) {
		if (!isPlainObject(current)) return undefined;
		const properties = current.properties;
		if (typeof segment === 'number') current = current.items;
		else if (isPlainObject(properties) && Object.hasOwn(properties, segment))
			current = properties[segment];
		else current = current.additionalProperties;
	}
	return isPlainObject(current) ? current : undefined;
}
