/** Which JSON Schema dialect a schema is checked by, and the keywords each dialect would skip, refused by name. */
import { SchemaError } from './schema-error';
import { SchemaWalk, type SchemaNode } from './schema-walk';
import { SCHEMA_LIMITS } from './schema-limits';

/** The dialects the engine checks, each by ajv's class for it. */
export type Dialect = 'draft-07' | '2020-12';

/** The `$schema` that declares each dialect (ajv's meta-schema ids; a trailing empty fragment `#` is the same). */
export const DIALECT_URIS: Readonly<Record<Dialect, string>> = {
	'draft-07': 'http://json-schema.org/draft-07/schema#',
	'2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

/**
 * Keywords that change what a schema accepts in one dialect and that the other does not define, so that
 * dialect's ajv class would skip them without a word (with `strict: false`, which the engine needs for the
 * annotations tools write). From the 2019-09 and 2020-12 release notes (json-schema.org/draft/2019-09/release-notes,
 * json-schema.org/draft/2020-12/release-notes). Annotations (`title`, `deprecated`, `contentSchema`…) change
 * nothing that is checked, and keywords no JSON Schema dialect defines (`x-…`) are annotations in both.
 */
const UNKNOWN_IN: Readonly<Record<Dialect, readonly string[]>> = {
	'draft-07': [
		'prefixItems',
		'unevaluatedProperties',
		'unevaluatedItems',
		'dependentRequired',
		'dependentSchemas',
		'minContains',
		'maxContains',
		'$anchor',
		'$dynamicRef',
		'$dynamicAnchor',
		'$recursiveRef',
		'$recursiveAnchor',
	],
	// 2019-09's recursion keywords were replaced by $dynamicRef in 2020-12; 2019-09 itself is not checked.
	'2020-12': ['additionalItems', '$recursiveRef', '$recursiveAnchor'],
};

/**
 * Keywords refused in every dialect: ajv's `$dynamicRef` recursed without end on JSON-Schema-Test-Suite cases
 * (dynamicRef.json, "$dynamicRef avoids the root of each schema…": a stack overflow) and misreads others, and
 * the recursion it can take is not one checkSchemaLimits can bound. `$ref` and `$defs` write the same recursion.
 */
const NEVER_CHECKED = ['$dynamicRef', '$dynamicAnchor'];

/** A schema's dialect; `inferredFrom` is set when it has no `$schema` and a 2020-12 keyword chose 2020-12. */
export interface SchemaDialect {
	dialect: Dialect;
	inferredFrom?: { keyword: string; path: string };
}

const DECLARE_2020 = `add "$schema": "${DIALECT_URIS['2020-12']}" to the schema's root`;

/**
 * The dialect `schema` is checked by: its `$schema` when it has one (draft-07 or 2020-12); without, draft-07,
 * unless it uses a keyword only 2020-12 defines (`prefixItems`, `unevaluatedProperties`…), then 2020-12.
 * Throws SchemaError naming `owner` for another `$schema`, or a keyword the chosen dialect does not define.
 * The schema has passed checkSchemaLimits, so the walk is bounded.
 */
export function dialectOf(schema: SchemaNode, owner: string): SchemaDialect {
	const walk = new SchemaWalk(
		SCHEMA_LIMITS.depth,
		SCHEMA_LIMITS.jsonDepth,
		SCHEMA_LIMITS.subschemas,
	);
	walk.walk(schema, '', '', 0, 0);
	const uses = (keywords: readonly string[]) => {
		for (const [node, path] of walk.paths) {
			const keyword = keywords.find((name) => Object.prototype.hasOwnProperty.call(node, name));
			if (keyword) return { keyword, path: path || '/' };
		}
		return undefined;
	};
	const declared = declaredDialect(schema, owner);
	for (const [node, path] of walk.paths) {
		if (node !== schema && '$schema' in node)
			throw new SchemaError(
				owner,
				`has "$schema" at ${path}, inside the schema`,
				"Declare the dialect once, at the schema's root.",
			);
	}
	const only2020 = UNKNOWN_IN['draft-07'].filter(
		(keyword) => !UNKNOWN_IN['2020-12'].includes(keyword),
	);
	const inferredFrom = declared ? undefined : uses(only2020);
	const dialect = declared ?? (inferredFrom ? '2020-12' : 'draft-07');
	const unchecked = uses(NEVER_CHECKED);
	if (unchecked)
		throw new SchemaError(
			owner,
			`uses "${unchecked.keyword}" (at ${unchecked.path}), which the engine does not check`,
			'Write the recursion with "$ref" to a definition in "$defs" (e.g. "items": {"$ref": "#/$defs/Node"}).',
		);
	const unknown = uses(UNKNOWN_IN[dialect]);
	if (unknown)
		throw new SchemaError(
			owner,
			`uses "${unknown.keyword}" (at ${unknown.path}), which JSON Schema ${dialect} does not define, so it would be ignored`,
			fixFor(unknown.keyword, dialect, declared !== undefined),
		);
	if (dialect === '2020-12') {
		const tuple = [...walk.paths].find(([node]) => Array.isArray(node.items));
		if (tuple) {
			throw new SchemaError(
				owner,
				`has "items" as an array (at ${tuple[1] || '/'}), draft-07's tuple form, which JSON Schema 2020-12 writes as "prefixItems"`,
				'Write the tuple as "prefixItems": [...] (and what follows it as "items"), or declare draft-07 with ' +
					'"$schema": "http://json-schema.org/draft-07/schema#" and no 2020-12 keyword.',
			);
		}
	}
	return { dialect, ...(inferredFrom ? { inferredFrom } : {}) };
}

function declaredDialect(schema: SchemaNode, owner: string): Dialect | undefined {
	const uri = schema.$schema;
	if (uri === undefined) return undefined;
	const bare = typeof uri === 'string' ? uri.replace(/#$/, '') : undefined;
	const found = (Object.keys(DIALECT_URIS) as Dialect[]).find(
		(dialect) => DIALECT_URIS[dialect].replace(/#$/, '') === bare,
	);
	if (found) return found;
	throw new SchemaError(
		owner,
		`declares "$schema": ${JSON.stringify(uri).slice(0, 200)}, a dialect the engine does not check`,
		`Use "${DIALECT_URIS['2020-12']}" or "${DIALECT_URIS['draft-07']}" (the keywords differ: see the README's JSON Schema dialects).`,
	);
}

function fixFor(keyword: string, dialect: Dialect, declared: boolean): string {
	if (keyword === '$recursiveRef' || keyword === '$recursiveAnchor')
		return 'Write the recursion with "$ref" (or 2020-12\'s "$dynamicRef" and "$dynamicAnchor"); draft 2019-09 is not checked.';
	if (dialect === '2020-12' && keyword === 'additionalItems')
		return (
			'In 2020-12, write the tuple as "prefixItems" and what follows it as "items"; or declare draft-07 ' +
			'with "$schema": "http://json-schema.org/draft-07/schema#".'
		);
	return declared
		? `Remove it, or ${DECLARE_2020} instead of draft-07.`
		: `Remove it, or ${DECLARE_2020}.`;
}

/** The run's notice when a schema without `$schema` is checked as 2020-12 because of a keyword (`inferredFrom`). */
export function inferredDialectNotice(
	inferredFrom: NonNullable<SchemaDialect['inferredFrom']>,
	owner: string,
): string {
	const { keyword, path } = inferredFrom;
	return `${owner} has no "$schema" and uses "${keyword}" (at ${path}), a JSON Schema 2020-12 keyword: it is checked as 2020-12 (${DECLARE_2020} to say so)`;
}
