import type { ZodType } from 'zod';
import type { zodToJsonSchema } from 'zod-to-json-schema';
import type { JsonSchema } from './validate';

/**
 * A tool's argument schema as a JSON Schema object: from zod 4 (`_zod`), zod 3 (`_def`) or a JSON Schema
 * already; always an object schema without `$schema`. The zod converters load on the first conversion:
 * only runs with a connected tool sub-node (LangChain tools carry zod schemas) need them (issue #20).
 */
export function toJsonSchemaObject(schema: unknown): JsonSchema {
  let converted: Record<string, unknown>;
  if (schema && typeof schema === 'object' && '_zod' in schema) {
    const { toJSONSchema } = require('zod') as typeof import('zod');
    converted = toJSONSchema(schema as unknown as ZodType, { target: 'draft-7', unrepresentable: 'any' }) as Record<string, unknown>;
  } else if (schema && typeof schema === 'object' && '_def' in schema) {
    converted = (require('zod-to-json-schema') as { zodToJsonSchema: typeof zodToJsonSchema }).zodToJsonSchema(schema as Parameters<typeof zodToJsonSchema>[0], { target: 'jsonSchema7', $refStrategy: 'none' }) as Record<string, unknown>;
  } else if (schema && typeof schema === 'object') {
    converted = { ...(schema as Record<string, unknown>) };
  } else {
    converted = { type: 'object', properties: { input: { type: 'string' } } };
  }
  delete converted.$schema;
  if (converted.type !== 'object') {
    // A tool taking a bare string (classic LangChain Tool) is offered as {input: string}.
    return { type: 'object', properties: { input: converted }, required: ['input'] };
  }
  return converted;
}
