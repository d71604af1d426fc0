// The one check that every number in a config is finite, nested ones included: no setting can be switched off by NaN or Infinity.
import type { JsonSchema } from '../validation/validate';
import { type Check, isPlainObject } from './setting-checks';

type Segment = string | number;

/**
 * The problem with the first number in a setting's value (the value itself, or anywhere in its arrays and
 * objects) that is NaN, Infinity or -Infinity, naming its path and what to give instead; undefined when there is
 * none. JSON.parse reads a number too large for a double (`1e999`) as Infinity, and a panel expression or a
 * library caller can hand over NaN: either would pass a check by comparison (NaN >= 1 is false, so a limit
 * compared that way is never reached; Infinity × 0 is NaN). Run on every row of the settings table before
 * its own check (config.ts), so a setting added later is covered without a line of its own.
 */
export function nonFiniteNumberProblem(
	value: unknown,
	key: string,
	check: Check,
): string | undefined {
	const found = firstNonFinite(value);
	if (!found) return undefined;
	const path = key + found.segments.map(pathPart).join('');
	const written = found.value > 0 ? '1e999' : '-1e999';
	const why = Number.isNaN(found.value)
		? ''
		: ` (JSON reads a number too large for it, such as ${written}, as ${found.value})`;
	return `${path}: ${found.value} is not a finite number${why}; give ${wantedAt(check, found.segments)}`;
}

/** A place in the value: its key or index and the place holding it (a chain, so a step down copies no path). */
interface Place {
	segment: Segment;
	parent?: Place;
}

/** The path of a place from the value's root, built only for the number that is reported. */
function segmentsOf(place: Place | undefined): Segment[] {
	const segments: Segment[] = [];
	for (let at = place; at; at = at.parent) segments.push(at.segment);
	return segments.reverse();
}

/**
 * Depth first in key order, each object once (a library caller's value may hold a cycle); no recursion to overflow,
 * and no path copied per step: a value 100,000 levels deep is walked in linear time (copying took 50 s).
 */
function firstNonFinite(root: unknown): { value: number; segments: Segment[] } | undefined {
	const stack: Array<{ value: unknown; place?: Place }> = [{ value: root }];
	const seen = new Set<object>();
	while (stack.length > 0) {
		const { value, place } = stack.pop()!;
		if (typeof value === 'number') {
			if (!Number.isFinite(value)) return { value, segments: segmentsOf(place) };
			continue;
		}
		if (typeof value !== 'object' || value === null || seen.has(value)) continue;
		seen.add(value);
		const children: Array<[Segment, unknown]> = Array.isArray(value)
			? value.map((item, index) => [index, item])
			: Object.entries(value);
		for (let index = children.length - 1; index >= 0; index--) {
			const [segment, child] = children[index];
			stack.push({ value: child, place: { segment, parent: place } });
		}
	}
	return undefined;
}

/** `.name` for a plain name, `["gpt-4.1"]` for any other key (a model id's dot is not a path step), `[0]` for an index. */
function pathPart(segment: Segment): string {
	if (typeof segment === 'number') return `[${segment}]`;
	return /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
}

/** What the setting takes there, from its declaration: the row's number range, or its schema's description and bounds. */
function wantedAt(check: Check, segments: Segment[]): string {
	if (segments.length === 0 && check.range) {
		const { minimum, maximum, integer } = check.range;
		const kind = integer ? 'an integer' : 'a number';
		return maximum === Number.MAX_SAFE_INTEGER
			? `${kind} ≥ ${minimum}`
			: `${kind} from ${minimum} to ${maximum}`;
	}
	const schema = check.schema && schemaAt(check.schema, segments);
	if (!schema) return 'a finite number';
	const { minimum, exclusiveMinimum, maximum, description, examples } = schema;
	const exclusive = typeof exclusiveMinimum === 'number';
	const lowest = exclusive
		? `more than ${exclusiveMinimum}`
		: typeof minimum === 'number'
			? `from ${minimum}`
			: '';
	const highest =
		typeof maximum === 'number' ? (exclusive ? `, at most ${maximum}` : ` to ${maximum}`) : '';
	const kind =
		typeof description === 'string'
			? description
			: schema.type === 'integer'
				? 'an integer'
				: 'a number';
	const example = Array.isArray(examples) ? `, e.g. ${examples[0]}` : '';
	return `${kind}${lowest ? ` ${lowest}` : ''}${lowest ? highest : highest.replace(/^,? ?(to )?/, ' at most ')}${example}`;
}

/** The part of a schema that declares the value at `segments` (through properties, additionalProperties and items). */
function schemaAt(schema: JsonSchema, segments: Segment[]): JsonSchema | undefined {
	let current: unknown = schema;
	for (const segment of segments) {
		if (!isPlainObject(current)) return undefined;
		const properties = current.properties;
		if (typeof segment === 'number') current = current.items;
		else if (isPlainObject(properties) && Object.hasOwn(properties, segment))
			current = properties[segment];
		else current = current.additionalProperties;
	}
	return isPlainObject(current) ? current : undefined;
}
