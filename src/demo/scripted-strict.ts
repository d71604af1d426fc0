/**
 * How OpenAI refuses a `response_format` schema sent with `strict: true` that is outside its strict subset
 * (provider-behaviours.md §1.4, from OpenAI's structured-outputs guide [I-sodocs] and the error texts seen
 * in [I-addl], [I-req], [I-min]): the root must be an object; every object sets `additionalProperties:
 * false` and lists every property in `required`; some keywords are not permitted. Written apart from the
 * engine's own strict conversion on purpose: a test of that conversion must be able to fail here.
 */

/** Keywords strict mode refuses, per the guide (fine-tuned-model-only refusals are not emulated). */
const NOT_PERMITTED = [
	'allOf',
	'not',
	'dependentRequired',
	'dependentSchemas',
	'if',
	'then',
	'else',
	'patternProperties',
];

type Schema = Record<string, unknown>;

/** OpenAI prints the context as a Python tuple of path segments. */
function context(path: string[]): string {
	if (path.length === 0) return '()';
	const parts = path.map((segment) => `'${segment}'`);
	return parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(', ')})`;
}

function isObjectSchema(schema: Schema): boolean {
	return (
		schema.type === 'object' ||
		(Array.isArray(schema.type) && schema.type.includes('object')) ||
		typeof schema.properties === 'object'
	);
}

function problemAt(schema: unknown, path: string[]): string | undefined {
	if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
	const node = schema as Schema;
	for (const keyword of NOT_PERMITTED) {
		if (keyword in node) return `In context=${context(path)}, '${keyword}' is not permitted.`;
	}
	// Wording as seen in public reports of strict-mode errors; not in provider-behaviours.md (unconfirmed).
	if (!['type', 'anyOf', '$ref', 'enum', 'const'].some((keyword) => keyword in node))
		return `In context=${context(path)}, schema must have a 'type' key.`;
	if (isObjectSchema(node)) {
		if (node.additionalProperties !== false)
			return `In context=${context(path)}, 'additionalProperties' is required to be supplied and to be false.`;
		const keys = Object.keys((node.properties as Schema | undefined) ?? {});
		const required = Array.isArray(node.required) ? (node.required as string[]) : [];
		const missing = keys.find((key) => !required.includes(key));
		if (missing !== undefined || !Array.isArray(node.required)) {
			return (
				`In context=${context(path)}, 'required' is required to be supplied and to be an array ` +
				`including every key in properties. Missing '${missing ?? keys[0]}'.`
			);
		}
		for (const key of keys) {
			const found = problemAt((node.properties as Schema)[key], [...path, 'properties', key]);
			if (found) return found;
		}
	}
	if (node.items !== undefined) {
		const found = problemAt(node.items, [...path, 'items']);
		if (found) return found;
	}
	for (const union of ['anyOf', 'oneOf'] as const) {
		const branches = Array.isArray(node[union]) ? (node[union] as unknown[]) : [];
		for (const [index, branch] of branches.entries()) {
			const found = problemAt(branch, [...path, union, String(index)]);
			if (found) return found;
		}
	}
	for (const definitions of ['$defs', 'definitions'] as const) {
		for (const [key, definition] of Object.entries(
			(node[definitions] as Schema | undefined) ?? {},
		)) {
			const found = problemAt(definition, [...path, definitions, key]);
			if (found) return found;
		}
	}
	return undefined;
}

type Refusal = { status: number; body: object };

/**
 * The 400 OpenAI answers to a chat-completions `response_format` that strict mode refuses, or undefined
 * when the format is fine (or not strict). `param: "response_format"`, `code: null` [I-addl].
 */
export function strictRefusal(body: { response_format?: unknown }): Refusal | undefined {
	const format = body.response_format as
		| { type?: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } }
		| undefined;
	if (format?.type !== 'json_schema' || format.json_schema?.strict !== true) return undefined;
	const { name = '', schema } = format.json_schema;
	const root = schema as Schema | undefined;
	const problem =
		root && root.type === 'object' && !('anyOf' in root)
			? problemAt(root, [])
			: // The root-type wording is unconfirmed; the rule (root an object, not anyOf) is the guide's.
				`In context=(), schema must be a JSON Schema of 'type: "object"', got 'type: "${String(root?.type ?? 'None')}"'.`;
	if (!problem) return undefined;
	return {
		status: 400,
		body: {
			error: {
				message: `Invalid schema for response_format '${name}': ${problem}`,
				type: 'invalid_request_error',
				param: 'response_format',
				code: null,
			},
		},
	};
}

/**
 * A 400 to any response schema, as from an endpoint or model without structured output: OpenAI's error
 * shape with `param: "response_format"` ([I-addl]; the wording of such servers varies), and Gemini's
 * INVALID_ARGUMENT for an unknown generation-config field ([I-gschema], provider-behaviours.md §2).
 */
export function jsonSchemaRefusal(provider: string, body: any): Refusal | undefined {
	if (provider === 'openai' && body?.response_format?.type === 'json_schema') {
		const message = "Invalid value: 'json_schema'. Supported values are: 'text' and 'json_object'.";
		return {
			status: 400,
			body: {
				error: {
					message,
					type: 'invalid_request_error',
					param: 'response_format.type',
					code: 'invalid_value',
				},
			},
		};
	}
	if (provider === 'gemini' && body?.generationConfig?.responseJsonSchema !== undefined) {
		const message =
			'Invalid JSON payload received. Unknown name "responseJsonSchema" at \'generation_config\': Cannot find field.';
		return { status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
	}
	return undefined;
}
