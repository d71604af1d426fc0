/** Values checked against JSON Schemas: the one place every schema the engine evaluates is checked, compiled and run. */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { checkAgainstMetaSchema, compileAlone, heldByAjv } from './ajv-dialects';
import { canonicalJson } from './canonical-json';
import { dialectOf, inferredDialectNotice, type SchemaDialect } from './dialect';
import { patternBudgetRefusal, startPatternBudget } from './linear-regexp';
import { SchemaError } from './schema-error';
import { checkSchemaLimits, SCHEMA_LIMITS } from './schema-limits';

/** A JSON Schema object: draft-07, or 2020-12 (by its `$schema`, or its keywords: see dialect.ts). */
export type JsonSchema = Record<string, unknown>;

/** Result of checking a value against a JSON Schema; issues are short `path: problem` sentences. */
export type ValidationResult<T = unknown> =
	| { ok: true; value: T }
	| { ok: false; issues: string[] };

/** A value with at most this many objects, arrays and scalars gets every problem listed; a larger one its first. */
const MAX_VALUE_NODES_FOR_ALL_PROBLEMS = 2_000;

interface Validators {
	schema: JsonSchema;
	dialect: SchemaDialect;
	firstProblem: ValidateFunction;
	/** Whether the schema's text holds `"pattern`: only then can a check run a pattern (RE2) and need its step budget. */
	patterns: boolean;
	/** Compiled on the first mismatch of a small value. */
	allProblems?: ValidateFunction;
}

/**
 * Validators are compiled once per schema *content* and reused. Connected n8n tools and workflow tools
 * hand over a new schema object on every execution; keyed by object, each run would compile again (about
 * 1.5 ms). So: a WeakMap for schema objects seen before, then an LRU keyed by the schema's canonical JSON
 * (keys sorted: one text for one content), bounded. Each is compiled in an ajv instance of its own
 * (compileAlone), so what the LRU drops is gone with its instance, and two schemas with the same `$id` and
 * other content are two entries here, each checked by its own content.
 */
const MAX_COMPILED_SCHEMAS = 256;
const byObject = new WeakMap<JsonSchema, Validators>();
const byText = new Map<string, Validators>();

function validatorsFor(schema: JsonSchema, owner: string): Validators {
	const known = byObject.get(schema);
	if (known) return known;
	// A content compiled before met the limits then: a new object with that text is not checked again (issue #49).
	const early = safeTextOf(schema);
	const seen = early === undefined ? undefined : byText.get(early);
	if (!seen) checkSchemaLimits(schema, owner);
	const text = early ?? canonicalJson(schema);
	let entry = seen ?? byText.get(text);
	if (entry) {
		byText.delete(text);
	} else {
		const dialect = dialectOf(schema, owner);
		const firstProblem = compile(dialect, false, schema, owner);
		entry = { schema, dialect, firstProblem, patterns: text.includes('"pattern') };
		while (byText.size >= MAX_COMPILED_SCHEMAS) byText.delete(byText.keys().next().value!);
	}
	byText.set(text, entry);
	byObject.set(schema, entry);
	return entry;
}

/**
 * The schema's canonical JSON when writing it before its limits are checked is safe: no deeper than twice the
 * limits' JSON depth (no object that contains itself, no recursion to overflow) and no more values than the limit
 * has characters (a part shared many times over is not written out exponentially); else undefined.
 */
function safeTextOf(schema: JsonSchema): string | undefined {
	const shape = measure(schema, 2 * SCHEMA_LIMITS.jsonDepth, SCHEMA_LIMITS.characters, true);
	return shape.tooDeep || shape.large ? undefined : canonicalJson(schema);
}

/** For tests: schemas compiled and kept here, and schema objects ajv itself holds (its meta-schemas only). */
export function compiledSchemaCounts(): { cached: number; heldByAjv: number } {
	return { cached: byText.size, heldByAjv: heldByAjv() };
}

/**
 * Checked against the dialect's meta-schema, then compiled in an ajv instance of its own (compileAlone):
 * nothing of it stays in ajv but its function, so a refusal is final and an `$id` stays inside its schema.
 */
function compile(
	{ dialect }: SchemaDialect,
	allErrors: boolean,
	schema: JsonSchema,
	owner: string,
): ValidateFunction {
	try {
		if (!allErrors) checkAgainstMetaSchema(dialect, schema);
		return compileAlone(dialect, allErrors, schema);
	} catch (error) {
		throw new SchemaError(
			owner,
			`is not a valid JSON Schema ${dialect}: ${(error as Error).message}`,
			`Correct the schema (JSON Schema ${dialect} keywords).`,
		);
	}
}

/** Throws SchemaError naming `owner` (e.g. `output_schema`) when the schema is invalid or past a limit (see schema-limits.ts). */
export function assertValidSchema(schema: JsonSchema, owner: string): void {
	validatorsFor(schema, owner);
}

/**
 * The notice a run gives when `schema` has no `$schema` and is checked as 2020-12 because it uses a keyword
 * only 2020-12 defines; undefined otherwise. Throws SchemaError as assertValidSchema does.
 */
export function schemaDialectNotice(schema: JsonSchema, owner: string): string | undefined {
	const { inferredFrom } = validatorsFor(schema, owner).dialect;
	return inferredFrom && inferredDialectNotice(inferredFrom, owner);
}

/** Values nested deeper than this are refused unchecked: as deep as a reply may nest (protocol MAX_NESTING_DEPTH), so ajv's recursion stays shallow. */
export const MAX_VALUE_DEPTH = 64;

export function validateAgainst<T = unknown>(
	schema: JsonSchema,
	value: unknown,
	rootName = 'args',
): ValidationResult<T> {
	const checked = check(schema, value, rootName);
	if (checked.ok) return { ok: true, value: value as T };
	if ('issues' in checked) return checked;
	return { ok: false, issues: renderIssues(checked.errors, rootName) };
}

/** One problem of a value, where it is (a JSON Pointer into the value) and which keyword found it. */
export interface PlacedProblem {
	instancePath: string;
	keyword: string;
	/** The `path: problem` line, as validateAgainst renders it. */
	line: string;
}

/**
 * Like validateAgainst, with each problem's place and keyword (a plan's check drops the problems a reference
 * stands in for). `complete` is false when the value was too large to list every problem (only the first is),
 * or was refused unchecked (too deep, past the pattern budget): then `problems` is empty and `issues` says why.
 */
export function placedProblems(
	schema: JsonSchema,
	value: unknown,
	rootName = 'args',
): { ok: true } | { ok: false; problems: PlacedProblem[]; complete: boolean; issues: string[] } {
	const checked = check(schema, value, rootName);
	if (checked.ok) return { ok: true };
	if ('issues' in checked)
		return { ok: false, problems: [], complete: false, issues: checked.issues };
	const problems = checked.errors.map((error) => ({
		instancePath: error.instancePath,
		keyword: error.keyword,
		line: renderIssues([error], rootName)[0],
	}));
	return {
		ok: false,
		problems,
		complete: checked.complete,
		issues: renderIssues(checked.errors, rootName),
	};
}

/** The value checked: valid, its ajv errors (every one when `complete`), or refused unchecked with a sentence. */
function check(
	schema: JsonSchema,
	value: unknown,
	rootName: string,
):
	| { ok: true }
	| { ok: false; issues: string[] }
	| { ok: false; errors: ErrorObject[]; complete: boolean } {
	const validators = validatorsFor(schema, 'the schema');
	const shape = measure(value, MAX_VALUE_DEPTH, MAX_VALUE_NODES_FOR_ALL_PROBLEMS);
	if (shape.tooDeep)
		return {
			ok: false,
			issues: [`${rootName}: nests objects or arrays more than ${MAX_VALUE_DEPTH} levels deep`],
		};
	// A schema without patterns never runs one: its checks leave the pattern budget (linear-regexp.ts) alone.
	const { patterns } = validators;
	if (patterns) startPatternBudget();
	let validator = validators.firstProblem;
	let valid = validator(value);
	let complete = false;
	if (!valid && !shape.large && !(patterns && patternBudgetRefusal())) {
		validator = validators.allProblems ??= compile(validators.dialect, true, schema, 'the schema');
		valid = validator(value);
		complete = true;
	}
	const refusal = patterns ? patternBudgetRefusal() : undefined;
	if (refusal) return { ok: false, issues: [`${rootName}: ${refusal}`] };
	if (valid) return { ok: true };
	return { ok: false, errors: validator.errors ?? [], complete };
}

/**
 * Without recursion, so a value nested a million levels deep is measured, not a stack overflow. With
 * `stopWhenLarge`, the walk ends at the first value past `largeFrom` (then `tooDeep` covers only what was walked).
 */
function measure(
	value: unknown,
	maxDepth: number,
	largeFrom: number,
	stopWhenLarge = false,
): { tooDeep: boolean; large: boolean } {
	const stack: Array<[unknown, number]> = [[value, 0]];
	let nodes = 0;
	while (stack.length > 0) {
		const [current, depth] = stack.pop()!;
		nodes++;
		if (stopWhenLarge && nodes > largeFrom) return { tooDeep: false, large: true };
		if (typeof current !== 'object' || current === null) continue;
		if (depth >= maxDepth) return { tooDeep: true, large: true };
		for (const entry of Object.values(current)) stack.push([entry, depth + 1]);
	}
	return { tooDeep: false, large: nodes > largeFrom };
}

/** At most this many `path: problem` lines are rendered; the rest are counted. */
export const MAX_RENDERED_ISSUES = 10;
/** A line longer than this (a model can send a key of any length) is cut. */
const MAX_ISSUE_LENGTH = 300;

/**
 * Renders ajv errors as `path: problem` lines a model (or a person) can act on: the first
 * MAX_RENDERED_ISSUES distinct ones, then a line counting the rest, each line bounded in length.
 */
export function renderIssues(errors: ErrorObject[], rootName: string): string[] {
	const lines = errors.map((error) => {
		const path =
			rootName +
			error.instancePath.replace(/\/([^/]*)/g, (_, segment: string) =>
				/^\d+$/.test(segment)
					? `[${segment}]`
					: `.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`,
			);
		const line = `${path}: ${describeError(error)}`;
		return line.length > MAX_ISSUE_LENGTH ? `${line.slice(0, MAX_ISSUE_LENGTH)}…` : line;
	});
	const unique = [...new Set(lines)];
	if (unique.length <= MAX_RENDERED_ISSUES) return unique;
	return [
		...unique.slice(0, MAX_RENDERED_ISSUES),
		`… and ${unique.length - MAX_RENDERED_ISSUES} more problems`,
	];
}

function describeError(error: ErrorObject): string {
	const params = error.params as Record<string, any>;
	switch (error.keyword) {
		case 'required':
			return `missing required property "${params.missingProperty}"`;
		case 'additionalProperties':
			return `unknown property "${params.additionalProperty}" is not allowed`;
		case 'unevaluatedProperties':
			return `unknown property "${params.unevaluatedProperty}" is not allowed`;
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
