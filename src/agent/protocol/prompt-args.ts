// How a tool's args schema reads in the system prompt: a short type signature where one says it all, else JSON Schema.
import type { JsonSchema } from '../../validation/validate';

/** Property types a signature can name as they are; anything else (enum, pattern, nesting, a description) needs the schema. */
const PLAIN_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const SIGNATURE_KEYS = new Set(['type', 'properties', 'required', 'additionalProperties']);

/**
 * A tool's args as the model reads them. An object of plain-typed properties reads as a signature,
 * `{"id": string, "limit"?: integer}` (`?` marks an optional property), in a third of the tokens of its JSON
 * Schema; any other schema is sent as JSON Schema. Either way a top-level `additionalProperties: false` is
 * left out: the model is told the properties it may use, and validation, which always applies the whole
 * schema, answers an extra one with a precise error. So is `$schema`: which dialect checks the args is validation's concern.
 */
export function argsText(parameters: JsonSchema): string {
	const { $schema: _dialect, ...shown } = parameters;
	return signatureOf(shown) ?? JSON.stringify(withoutClosedFlag(shown));
}

function signatureOf(schema: JsonSchema): string | undefined {
	if (schema.type !== 'object' || Object.keys(schema).some((key) => !SIGNATURE_KEYS.has(key)))
		return undefined;
	if (schema.additionalProperties !== undefined && typeof schema.additionalProperties !== 'boolean')
		return undefined;
	const properties = (schema.properties ?? {}) as Record<string, unknown>;
	const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
	const fields: string[] = [];
	for (const [name, property] of Object.entries(properties)) {
		const type = (property as { type?: unknown } | null)?.type;
		if (
			typeof type !== 'string' ||
			!PLAIN_TYPES.has(type) ||
			Object.keys(property as object).length !== 1
		)
			return undefined;
		fields.push(`${JSON.stringify(name)}${required.includes(name) ? '' : '?'}: ${type}`);
	}
	// A required name that is not a property cannot be said in a signature: the schema says it.
	if (
		required.some(
			(name) => typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(properties, name),
		)
	)
		return undefined;
	return `{${fields.join(', ')}}`;
}

function withoutClosedFlag(parameters: JsonSchema): JsonSchema {
	if (parameters.additionalProperties !== false) return parameters;
	const shown: JsonSchema = { ...parameters };
	delete shown.additionalProperties;
	return shown;
}
