import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from './tool';

/** Result of checking a value against a JSON Schema; issues are short `path: problem` sentences. */
export type ValidationResult<T = unknown> = { ok: true; value: T } | { ok: false; issues: string[] };

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });

/** Validators are compiled once per schema object and reused for every call. */
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = ajv.compile(schema);
    compiled.set(schema, validator);
  }
  return validator;
}

/** Throws a plain Error naming the problem when a schema itself is not valid JSON Schema. */
export function assertValidSchema(schema: JsonSchema, what: string): void {
  try {
    validatorFor(schema);
  } catch (error) {
    throw new Error(`${what} is not a valid JSON Schema: ${(error as Error).message}`);
  }
}

export function validateAgainst<T = unknown>(schema: JsonSchema, value: unknown, rootName = 'args'): ValidationResult<T> {
  const validator = validatorFor(schema);
  if (validator(value)) return { ok: true, value: value as T };
  return { ok: false, issues: renderIssues(validator.errors ?? [], rootName) };
}

/** Renders ajv errors as `path: problem` lines a model (or a person) can act on. */
export function renderIssues(errors: ErrorObject[], rootName: string): string[] {
  const lines = errors.map((error) => {
    const path = rootName + error.instancePath.replace(/\/([^/]*)/g, (_, segment: string) =>
      /^\d+$/.test(segment) ? `[${segment}]` : `.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`,
    );
    return `${path}: ${describeError(error)}`;
  });
  return [...new Set(lines)];
}

function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'required':
      return `missing required property "${params.missingProperty}"`;
    case 'additionalProperties':
      return `unknown property "${params.additionalProperty}" is not allowed`;
    case 'type':
      return `must be ${params.type}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return error.message ?? 'is invalid';
  }
}
