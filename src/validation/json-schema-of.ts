import type { ZodType } from 'zod';
import type { zodToJsonSchema } from 'zod-to-json-schema';
import { DIALECT_URIS } from './dialect';
import { patternProblem } from './linear-regexp';
import type { JsonSchema } from './validate';

/**
 * A tool's argument schema as a JSON Schema object: from zod 4 (`_zod`), zod 3 (`_def`) or a JSON Schema
 * already; always an object schema, without `$schema` unless it declares 2020-12 (the zod converters write
 * draft-07's, the engine's default; see dialect.ts). The zod converters load on the first conversion:
 * only runs with a connected tool sub-node (LangChain tools carry zod schemas) need them (issue #20).
 */
export function toJsonSchemaObject(schema: unknown): JsonSchema {
	let converted: Record<string, unknown>;
	if (schema && typeof schema === 'object' && '_zod' in schema) {
		const { toJSONSchema } = require('zod') as typeof import('zod');
		converted = withoutFormatLookarounds(
			toJSONSchema(schema as unknown as ZodType, { target: 'draft-7', unrepresentable: 'any' }),
			0,
		) as Record<string, unknown>;
	} else if (schema && typeof schema === 'object' && '_def' in schema) {
		converted = (
			require('zod-to-json-schema') as { zodToJsonSchema: typeof zodToJsonSchema }
		).zodToJsonSchema(schema as Parameters<typeof zodToJsonSchema>[0], {
			target: 'jsonSchema7',
			$refStrategy: 'none',
		}) as Record<string, unknown>;
	} else if (schema && typeof schema === 'object') {
		converted = { ...(schema as Record<string, unknown>) };
	} else {
		converted = { type: 'object', properties: { input: { type: 'string' } } };
	}
	const declared =
		typeof converted.$schema === 'string' &&
		converted.$schema.replace(/#$/, '') === DIALECT_URIS['2020-12'];
	const dialect = declared ? { $schema: DIALECT_URIS['2020-12'] } : {};
	delete converted.$schema;
	if (converted.type !== 'object') {
		// A tool taking a bare string (classic LangChain Tool) is offered as {input: string}.
		return { ...dialect, type: 'object', properties: { input: converted }, required: ['input'] };
	}
	return { ...dialect, ...converted };
}

/**
 * zod 4 writes some of its own formats (`z.hostname()`, `z.iso.duration()`, `z.emoji()`) as a `format` with a
 * pattern using lookahead, which RE2 cannot run. Those patterns are zod's, and the tool checks them itself
 * when invoked; here they are left out so the tool is not refused. A pattern of the tool's author (`.regex()`,
 * no `format` beside it) stays, and is refused when RE2 cannot run it.
 */
function withoutFormatLookarounds(value: unknown, depth: number): unknown {
	if (typeof value !== 'object' || value === null || depth > 64) return value;
	if (Array.isArray(value)) return value.map((entry) => withoutFormatLookarounds(entry, depth + 1));
	const copy: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value))
		copy[key] = withoutFormatLookarounds(entry, depth + 1);
	if (
		typeof copy.format === 'string' &&
		typeof copy.pattern === 'string' &&
		patternProblem(copy.pattern)
	)
		delete copy.pattern;
	return copy;
}
