// The checks a setting row names: each returns the problem as one sentence naming the key, or undefined.
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
	/** The JSON Schema a `bySchema` check applies: where its numbers' bounds are read (finite-numbers.ts). */
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
