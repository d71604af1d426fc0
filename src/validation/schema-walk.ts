/** One pass over a JSON Schema collecting what the limits count and the edges the checks follow (see schema-limits.ts). */
import { patternProblem, patternSize, quotePattern, type PatternProblem } from './linear-regexp';

/**
 * One pass over a JSON Schema: what it holds (subschemas, keywords, enum values, patterns, nesting) and the
 * edges the checker follows: keywords applied to the same value, keywords applied to a part of it (by slot:
 * one property, any property, an item, a key), and `$ref`s with the base URI each resolves against.
 */

/** Keywords whose value is one subschema applied to the same value. */
const SAME_VALUE_ONE = ['not', 'if', 'then', 'else'];
/** Keywords whose value lists subschemas applied to the same value. */
const SAME_VALUE_LIST = ['allOf', 'anyOf', 'oneOf'];
/** Keywords whose value maps names to subschemas applied to the same value (when that property is present). */
const SAME_VALUE_MAP = ['dependentSchemas', 'dependencies'];
/** Keywords applied to a part of the value, with the slot of that part. */
const PART_ONE: Record<string, string> = {
	additionalProperties: 'otherProperty',
	unevaluatedProperties: 'otherProperty',
	propertyNames: 'key',
	additionalItems: 'item',
	contains: 'item',
	unevaluatedItems: 'item',
	items: 'item',
};
const PART_LIST: Record<string, string> = { items: 'item', prefixItems: 'item' };
/** Definitions are applied only through a `$ref`. */
const DEFINITIONS = ['$defs', 'definitions'];

export type SchemaNode = Record<string, unknown>;

export interface Edge {
	target: SchemaNode;
	/**
	 * undefined: applied to the same value; otherwise the part: `n:<name>` (that property), `anyProperty`
	 * (patternProperties: maybe any), `otherProperty` (additionalProperties: those this schema does not name),
	 * `item`, `key`.
	 */
	slot?: string;
}

export interface RefSite {
	node: SchemaNode;
	ref: string;
	base: string;
	path: string;
}

export interface WalkTally {
	subschemas: number;
	keywords: number;
	enumValues: number;
	patternSize: number;
	deepestSchema: number;
	deepestJson: number;
	pattern?: PatternProblem & { path: string; quoted: string };
}

/** Everything the walk found; `walk` may be called again for a `$ref` target outside the walked tree. */
export class SchemaWalk {
	readonly tally: WalkTally = {
		subschemas: 0,
		keywords: 0,
		enumValues: 0,
		patternSize: 0,
		deepestSchema: 0,
		deepestJson: 0,
	};
	readonly edges = new Map<SchemaNode, Edge[]>();
	readonly paths = new Map<SchemaNode, string>();
	readonly refs: RefSite[] = [];
	/** `$id`s (without fragment) and anchors (`uri#name`) to the schema they name. */
	readonly named = new Map<string, SchemaNode>();

	constructor(
		private readonly maxSchemaDepth: number,
		private readonly maxJsonDepth: number,
		/** Past this many subschemas the schema is refused anyway: the walk stops (a 20,000-property schema is not walked through). */
		private readonly maxSubschemas: number,
	) {}

	/** Walks `schema` at `path`; stops descending past the depth limits (the tally then shows it). */
	walk(schema: unknown, path: string, base: string, schemaDepth: number, jsonDepth: number): void {
		this.tally.deepestSchema = Math.max(this.tally.deepestSchema, schemaDepth);
		this.tally.deepestJson = Math.max(this.tally.deepestJson, jsonDepth);
		if (!isObject(schema) || this.paths.has(schema)) return;
		if (
			schemaDepth > this.maxSchemaDepth ||
			jsonDepth > this.maxJsonDepth ||
			this.tally.subschemas > this.maxSubschemas
		)
			return;
		this.paths.set(schema, path);
		this.tally.subschemas++;
		this.tally.keywords += Object.keys(schema).length;
		const edges: Edge[] = [];
		this.edges.set(schema, edges);
		base = this.noteNames(schema, base);
		const into = (value: unknown, at: string, slot: string | undefined, extraJson: number) => {
			if (isObject(value)) edges.push({ target: value, slot });
			this.walk(value, at, base, schemaDepth + 1, jsonDepth + extraJson);
		};
		for (const [keyword, value] of Object.entries(schema)) {
			const at = `${path}/${escapePointer(keyword)}`;
			if (SAME_VALUE_ONE.includes(keyword)) into(value, at, undefined, 1);
			else if (SAME_VALUE_LIST.includes(keyword) && Array.isArray(value))
				value.forEach((entry, index) => into(entry, `${at}/${index}`, undefined, 2));
			else if (SAME_VALUE_MAP.includes(keyword) && isObject(value))
				eachEntry(value, (name, entry) =>
					Array.isArray(entry)
						? this.plainValue(entry, jsonDepth + 2)
						: into(entry, `${at}/${escapePointer(name)}`, undefined, 2),
				);
			else if (keyword === 'properties' && isObject(value))
				eachEntry(value, (name, entry) =>
					into(entry, `${at}/${escapePointer(name)}`, `n:${name}`, 2),
				);
			else if (keyword === 'patternProperties' && isObject(value))
				eachEntry(
					value,
					(name, entry) => (
						this.notePattern(name, at),
						into(entry, `${at}/${escapePointer(name)}`, 'anyProperty', 2)
					),
				);
			else if (keyword in PART_LIST && Array.isArray(value))
				value.forEach((entry, index) => into(entry, `${at}/${index}`, PART_LIST[keyword], 2));
			else if (keyword in PART_ONE && !Array.isArray(value)) into(value, at, PART_ONE[keyword], 1);
			else if (DEFINITIONS.includes(keyword) && isObject(value))
				eachEntry(value, (name, entry) =>
					this.walk(entry, `${at}/${escapePointer(name)}`, base, schemaDepth + 1, jsonDepth + 2),
				);
			else if (keyword === 'pattern' && typeof value === 'string') this.notePattern(value, at);
			else if (keyword === '$ref' && typeof value === 'string')
				this.refs.push({ node: schema, ref: value, base, path: at });
			else {
				if (keyword === 'enum' && Array.isArray(value)) this.tally.enumValues += value.length;
				if (keyword === 'const') this.tally.enumValues += 1;
				this.plainValue(value, jsonDepth + 1);
			}
		}
	}

	/** `$id` (a new base, or a draft-07 `#name` anchor) and `$anchor`; returns the base for the schema's insides. */
	private noteNames(schema: SchemaNode, base: string): string {
		if (typeof schema.$id === 'string') {
			if (schema.$id.startsWith('#'))
				this.named.set(`${withoutFragment(base)}${schema.$id}`, schema);
			else {
				base = withoutFragment(resolveUri(schema.$id, base));
				this.named.set(base, schema);
			}
		}
		if (typeof schema.$anchor === 'string')
			this.named.set(`${withoutFragment(base)}#${schema.$anchor}`, schema);
		return base;
	}

	private notePattern(pattern: string, at: string): void {
		this.tally.patternSize += patternSize(pattern);
		const problem = this.tally.pattern ? undefined : patternProblem(pattern);
		if (problem) this.tally.pattern = { ...problem, path: at, quoted: quotePattern(pattern) };
	}

	/** A value that is not a schema (enum, default, examples, unknown keywords): only its nesting counts. */
	private plainValue(value: unknown, jsonDepth: number): void {
		if (typeof value !== 'object' || value === null) return;
		this.tally.deepestJson = Math.max(this.tally.deepestJson, jsonDepth);
		if (jsonDepth > this.maxJsonDepth) return;
		for (const entry of Object.values(value)) this.plainValue(entry, jsonDepth + 1);
	}
}

export function isObject(value: unknown): value is SchemaNode {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function eachEntry(map: SchemaNode, visit: (name: string, entry: unknown) => void): void {
	for (const [name, entry] of Object.entries(map)) visit(name, entry);
}

function escapePointer(segment: string): string {
	return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function withoutFragment(uri: string): string {
	const hash = uri.indexOf('#');
	return hash === -1 ? uri : uri.slice(0, hash);
}

/** `ref` against `base` as URIs do; a relative base (no scheme) is joined as text, as ajv does without one. */
export function resolveUri(ref: string, base: string): string {
	if (ref.startsWith('#')) return `${withoutFragment(base)}${ref}`;
	try {
		return new URL(ref, base || undefined).href;
	} catch {
		return ref;
	}
}
