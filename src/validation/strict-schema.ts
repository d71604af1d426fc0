import type { JsonSchema } from './validate';

/**
 * JSON Schemas in OpenAI's strict structured-output subset (provider-behaviours.md §1.4, from OpenAI's
 * guide [I-sodocs] and openai-node's own strictifier [ON-transform]): every object closed with
 * `additionalProperties: false` and every property required, an optional one written as nullable; no
 * keyword outside the subset; within the documented size limits.
 */

/** Keywords strict mode refuses: the guide's list and openai-node's strictifier's, together. */
const REFUSED = [
	'allOf',
	'not',
	'if',
	'then',
	'else',
	'dependentRequired',
	'dependentSchemas',
	'patternProperties',
	'prefixItems',
	'contains',
	'propertyNames',
	'unevaluatedProperties',
	'unevaluatedItems',
	'uniqueItems',
	'minProperties',
	'maxProperties',
	'$anchor',
	'$dynamicRef',
];
/** Annotations with no meaning for the grammar that strict mode may refuse: left out of the strict copy. */
const DROPPED = ['default', 'examples', '$schema', '$id'];
/** Documented limits (Aug 2024; current values unconfirmed, so a schema past them is sent non-strict instead). */
const LIMITS = { properties: 100, depth: 5, enumValues: 500 };

class NotStrict extends Error {}

interface Tally {
	properties: number;
	enumValues: number;
}

/**
 * The schema's strict form (a new object; the input is not changed), or the first reason it has none,
 * naming the path. For a whole response format's root object, or any sub-schema.
 */
export function toStrictSchema(schema: JsonSchema): { schema: JsonSchema } | { problem: string } {
	const tally: Tally = { properties: 0, enumValues: 0 };
	try {
		const strict = convert(schema, '(root)', false, 0, tally);
		if (tally.properties > LIMITS.properties)
			return {
				problem: `${tally.properties} object properties in all, more than the ${LIMITS.properties} strict mode takes`,
			};
		if (tally.enumValues > LIMITS.enumValues)
			return {
				problem: `${tally.enumValues} enum values in all, more than the ${LIMITS.enumValues} strict mode takes`,
			};
		return { schema: strict };
	} catch (error) {
		if (error instanceof NotStrict) return { problem: error.message };
		throw error;
	}
}

function convert(
	schema: unknown,
	path: string,
	optional: boolean,
	depth: number,
	tally: Tally,
): JsonSchema {
	if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
		throw new NotStrict(`${path}: a schema that accepts anything cannot be strict`);
	const source = schema as JsonSchema;
	const refused = REFUSED.find((keyword) => keyword in source);
	if (refused) throw new NotStrict(`${path}: "${refused}" is not supported in strict mode`);
	const copy: JsonSchema = {};
	for (const [key, value] of Object.entries(source)) if (!DROPPED.includes(key)) copy[key] = value;
	if ('oneOf' in copy) {
		copy.anyOf = copy.oneOf;
		delete copy.oneOf;
	}
	if (Array.isArray(copy.enum)) tally.enumValues += copy.enum.length;
	if (!['type', 'anyOf', '$ref', 'enum', 'const'].some((keyword) => keyword in copy))
		throw new NotStrict(`${path}: a schema without "type" (any JSON value) cannot be strict`);

	const isObject =
		copy.type === 'object' ||
		(Array.isArray(copy.type) && copy.type.includes('object')) ||
		typeof copy.properties === 'object';
	if (isObject) {
		if (depth + 1 > LIMITS.depth)
			throw new NotStrict(
				`${path}: objects nested more than ${LIMITS.depth} levels deep cannot be strict`,
			);
		const extra = copy.additionalProperties;
		if (extra !== undefined && extra !== false)
			throw new NotStrict(`${path}: a free-form object (additionalProperties) cannot be strict`);
		const properties = (copy.properties ?? {}) as Record<string, unknown>;
		const keys = Object.keys(properties);
		if (keys.length === 0)
			throw new NotStrict(`${path}: an object without listed properties cannot be strict`);
		const required = new Set(Array.isArray(copy.required) ? (copy.required as string[]) : []);
		tally.properties += keys.length;
		copy.properties = Object.fromEntries(
			keys.map((key) => [
				key,
				convert(properties[key], `${path}.${key}`, !required.has(key), depth + 1, tally),
			]),
		);
		copy.required = keys;
		copy.additionalProperties = false;
	}
	if (copy.items !== undefined) copy.items = convert(copy.items, `${path}[]`, false, depth, tally);
	else if (copy.type === 'array')
		throw new NotStrict(`${path}: an array without "items" cannot be strict`);
	if (Array.isArray(copy.anyOf))
		copy.anyOf = copy.anyOf.map((branch, index) =>
			convert(branch, `${path}.anyOf[${index}]`, false, depth, tally),
		);
	for (const definitions of ['$defs', 'definitions']) {
		const found = copy[definitions] as Record<string, unknown> | undefined;
		if (found)
			copy[definitions] = Object.fromEntries(
				Object.entries(found).map(([key, value]) => [
					key,
					convert(value, `${path}.${definitions}.${key}`, false, depth, tally),
				]),
			);
	}
	return optional ? nullable(copy) : copy;
}

/** The same schema that also accepts null: how strict mode writes a property that may be left out. */
function nullable(schema: JsonSchema): JsonSchema {
	if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
	if (typeof schema.type === 'string' && !('const' in schema) && !('$ref' in schema)) {
		return {
			...schema,
			type: [schema.type, 'null'],
			...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}),
		};
	}
	if (Array.isArray(schema.type) && !('const' in schema) && !('$ref' in schema)) {
		const types = schema.type.includes('null') ? schema.type : [...schema.type, 'null'];
		return {
			...schema,
			type: types,
			...(Array.isArray(schema.enum) && !schema.enum.includes(null)
				? { enum: [...schema.enum, null] }
				: {}),
		};
	}
	return { anyOf: [schema, { type: 'null' }] };
}

/**
 * A value written under the strict form of `schema` with the nulls of its optional properties taken out,
 * so the original schema's own check sees those properties absent, as the model meant them. A required
 * property's null stays (the original check decides on it); values the schema does not describe pass as they are.
 */
export function dropNullOptionals(value: unknown, schema: JsonSchema): unknown {
	if (Array.isArray(value)) {
		const items = schema.items;
		return typeof items === 'object' && items !== null && !Array.isArray(items)
			? value.map((item) => dropNullOptionals(item, items as JsonSchema))
			: value;
	}
	if (typeof value !== 'object' || value === null) return value;
	const properties = schema.properties as Record<string, JsonSchema> | undefined;
	if (typeof properties !== 'object' || properties === null) return value;
	const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
	const result: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value)) {
		if (
			entry === null &&
			!required.has(key) &&
			Object.prototype.hasOwnProperty.call(properties, key)
		)
			continue;
		const inner = Object.prototype.hasOwnProperty.call(properties, key)
			? properties[key]
			: undefined;
		result[key] =
			typeof inner === 'object' && inner !== null ? dropNullOptionals(entry, inner) : entry;
	}
	return result;
}
