// A tool's args as the model is told them: the protocol schema of its replies (the JSON schema mode) and the args' text in the system prompt.
import type { ResponseFormat } from '../../providers/chat-model';
import type { Tool } from '../../tools/tool';
import { dropNullOptionals, toStrictSchema } from '../../validation/strict-schema';
import type { JsonSchema } from '../../validation/validate';
import type { JsonMode } from '../../settings/config';
import type { TurnRules } from './protocol';

/** How a run asks for its replies: the response format, and a notice for the trace when the schema could not be strict. */
export interface ProtocolFormat {
	format: ResponseFormat;
	/** Set when the compiled schema is sent strict: replies then carry null for every field that does not apply. */
	strict: boolean;
	notice?: string;
	/** What replies may contain beyond the plain protocol: a typed answer, nulls for what does not apply. */
	rules: TurnRules;
}

/** Keywords that name or locate a schema document; harmless alone, but they collide once tools' schemas sit side by side. */
const DOCUMENT_KEYWORDS = ['$schema', '$id'];

/** The schema as a part of the protocol schema at JSON pointer `at`, its own `$ref`s still pointing into it. */
function embeddable(schema: JsonSchema, at: string): JsonSchema {
	const copy = rebaseRefs(schema, at, 0) as JsonSchema;
	for (const keyword of DOCUMENT_KEYWORDS) delete copy[keyword];
	return copy;
}

/**
 * `$ref`s from the schema's root (`#`, `#/$defs/Node`) rewritten to where the schema now sits: embedded as
 * is, `{"items":{"$ref":"#"}}` in an output schema would name the whole protocol object and ask the model
 * for protocol objects inside its answer. Depth is bounded by the schema limits (64 JSON levels).
 */
function rebaseRefs(value: unknown, at: string, depth: number): unknown {
	if (typeof value !== 'object' || value === null || depth > 64) return value;
	if (Array.isArray(value)) return value.map((entry) => rebaseRefs(entry, at, depth + 1));
	const copy: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value)) {
		const local =
			key === '$ref' && typeof entry === 'string' && (entry === '#' || entry.startsWith('#/'));
		copy[key] = local ? `#${at}${(entry as string).slice(1)}` : rebaseRefs(entry, at, depth + 1);
	}
	return copy;
}

/**
 * The whole protocol as one JSON Schema: `type`; `tool`, one of the allowed tools' names; `args`, one
 * branch per allowed tool (that tool's own parameters schema, titled with its name); with `max_parallel_calls`
 * above 1, `calls`, 1 to that many `{tool, args}` of the same shapes (an "actions" reply); and `answer`, the
 * run's `output_schema` or a string. The root is one object, not a union of turn shapes, because OpenAI's
 * strict mode refuses a root `anyOf` (provider-behaviours.md §1.4 [I-sodocs]); which args go with which
 * tool is the parser's and ajv's check, as for every reply.
 */
export function protocolSchema(
	tools: readonly Tool[],
	outputSchema?: JsonSchema,
	maxParallelCalls = 1,
): JsonSchema {
	const answer = outputSchema ? embeddable(outputSchema, '/properties/answer') : { type: 'string' };
	if (tools.length === 0) {
		return {
			type: 'object',
			properties: { type: { type: 'string', enum: ['final'] }, answer },
			required: ['type', 'answer'],
			additionalProperties: false,
		};
	}
	const tool = { type: 'string', enum: tools.map((each) => each.name) };
	const args = (at: string) => ({
		anyOf: tools.map((each, index) => ({
			title: `args of ${each.name}`,
			...embeddable(each.parameters, `${at}/anyOf/${index}`),
		})),
	});
	// "actions" (issue #42): the same args branches again, inline: providers' strict modes follow `$ref` to $defs only.
	const calls =
		maxParallelCalls > 1
			? {
					calls: {
						type: 'array',
						minItems: 1,
						maxItems: maxParallelCalls,
						items: {
							type: 'object',
							properties: { tool, args: args('/properties/calls/items/properties/args') },
							required: ['tool', 'args'],
							additionalProperties: false,
						},
					},
				}
			: {};
	return {
		type: 'object',
		properties: {
			type: {
				type: 'string',
				enum: maxParallelCalls > 1 ? ['action', 'actions', 'final'] : ['action', 'final'],
			},
			tool,
			args: args('/properties/args'),
			...calls,
			answer,
		},
		required: ['type'],
		additionalProperties: false,
	};
}

/** The trace's notice when plan mode asks for replies in JSON object mode instead of json_schema. */
export const PLAN_JSON_SCHEMA =
	"json_schema: plan mode's replies (a plan whose args may hold references to earlier steps) do not fit the " +
	'compiled protocol schema; replies are asked for in json_object mode and checked as always';

/**
 * The `json_mode` setting as the run's response format. `json_schema` sends the compiled protocol, strict
 * where every branch converts to OpenAI's strict subset; otherwise non-strict, with a notice naming the
 * first branch that could not. Only a help: every reply is still parsed and checked by ajv.
 */
export function protocolFormat(
	jsonMode: JsonMode,
	tools: readonly Tool[],
	outputSchema?: JsonSchema,
	maxParallelCalls = 1,
	plan = false,
): ProtocolFormat {
	const rules: TurnRules = {
		typedAnswer: outputSchema !== undefined,
		nullArgsAsAbsent: jsonMode === 'json_schema' && !plan,
		maxParallelCalls,
		...(plan ? { plan } : {}),
	};
	if (jsonMode === 'off') return { format: { type: 'text' }, strict: false, rules };
	if (jsonMode === 'json_object') return { format: { type: 'json_object' }, strict: false, rules };
	// A plan's steps hold references ({"$step":…}) where a tool's schema wants a value: no compiled schema admits them.
	if (plan)
		return { format: { type: 'json_object' }, strict: false, rules, notice: PLAN_JSON_SCHEMA };
	const schema = protocolSchema(tools, outputSchema, maxParallelCalls);
	const strict = toStrictSchema(schema);
	const format: ResponseFormat = {
		type: 'json_schema',
		name: 'agent_turn',
		schema,
		...('schema' in strict ? { strictSchema: strict.schema } : {}),
	};
	if ('schema' in strict) return { format, strict: true, rules };
	return {
		format,
		strict: false,
		rules,
		notice: `json_schema: the protocol schema cannot be strict (${firstProblem(tools, outputSchema) ?? strict.problem}); it is sent with strict: false`,
	};
}

/** Which branch stops strict mode, named by its tool (or the output schema). */
function firstProblem(tools: readonly Tool[], outputSchema?: JsonSchema): string | undefined {
	const branches: Array<[string, JsonSchema]> = [
		...tools.map((tool): [string, JsonSchema] => [`${tool.name} args`, tool.parameters]),
	];
	if (outputSchema) branches.push(['output_schema', outputSchema]);
	for (const [name, schema] of branches) {
		const converted = toStrictSchema(embeddable(schema, ''));
		if ('problem' in converted) return `${name}: ${converted.problem}`;
	}
	return undefined;
}

/**
 * A value from a strict reply with its nulls for optional fields taken out again, so the tool's or the
 * output schema's own check sees them absent, as they were meant. Other replies pass unchanged.
 */
export function withoutNullOptionals(
	value: unknown,
	schema: JsonSchema | undefined,
	format: ProtocolFormat,
): unknown {
	return format.strict && schema ? dropNullOptionals(value, schema) : value;
}

/** A call's args as its tool's schema reads them: a strict reply's nulls for optional fields taken out. */
export function callArgs(
	format: ProtocolFormat,
	tools: ReadonlyMap<string, Tool>,
	tool: string,
	args: Record<string, unknown>,
): Record<string, unknown> {
	return withoutNullOptionals(args, tools.get(tool)?.parameters, format) as Record<string, unknown>;
}

// How a tool's args schema reads in the system prompt: a short type signature where one says it all, else JSON Schema.

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
