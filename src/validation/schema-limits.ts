/** The limits every JSON Schema meets before ajv compiles it: size, nesting, $refs inside the schema only, no runaway recursion, RE2-runnable patterns. */
import { MAX_PATTERN_SIZE } from './linear-regexp';
import { SchemaError } from './schema-error';
import { isObject, resolveUri, SchemaWalk, withoutFragment, type SchemaNode } from './schema-walk';

/**
 * What a JSON Schema may be before the engine compiles it (output schemas, tool argument schemas, workflow
 * and sub-node tool schemas alike): within size limits that keep ajv's compile well under 100 ms, every
 * pattern runnable by RE2, every `$ref` inside the schema, and no recursion that can run forever or
 * multiply at each level. README *Safety limits* lists these numbers.
 */
export const SCHEMA_LIMITS = {
	/** The schema's JSON text. */
	characters: 100_000,
	/** Schema objects, the root and every nested one (a property's schema, an item schema, a definition…). */
	subschemas: 300,
	/** Keywords in all schema objects together (`type`, `description`, `properties`… each count one). */
	keywords: 1_000,
	/** Entries of all `enum`s plus each `const`. */
	enumValues: 1_000,
	/** Schemas nested in schemas (`properties` → a property → its `items` … is three levels). */
	depth: 32,
	/** Any JSON nesting in the schema document (a deep `default` or `enum` value too). */
	jsonDepth: 64,
	/** RE2 instructions of all patterns together (one pattern: MAX_PATTERN_SIZE). */
	patternSize: 5_000,
	/** Schemas applied to any one value of the data, `$ref`s followed (and the same at each level of a recursion). */
	applicationsPerValue: 1_000,
};

/** How deep the check follows a recursive schema: the deepest value a reply may carry (protocol MAX_NESTING_DEPTH). */
const RECURSION_LEVELS = 64;

const checked = new WeakMap<SchemaNode, true>();

/** Throws SchemaError, naming `owner` and the place in the schema, when the schema is past a limit. */
export function checkSchemaLimits(schema: SchemaNode, owner: string): void {
	if (checked.has(schema)) return;
	const refuse = (problem: string, fix: string): never => {
		throw new SchemaError(owner, problem, fix);
	};
	const walk = new SchemaWalk(
		SCHEMA_LIMITS.depth,
		SCHEMA_LIMITS.jsonDepth,
		SCHEMA_LIMITS.subschemas,
	);
	walk.walk(schema, '', '', 0, 0);
	checkTally(walk, refuse);
	let characters: number;
	try {
		characters = JSON.stringify(schema).length;
	} catch {
		return refuse(
			'is not JSON (an object in it contains itself)',
			'Write the schema as JSON text, with "$ref" for recursion.',
		);
	}
	if (characters > SCHEMA_LIMITS.characters)
		refuse(`is ${characters} characters of JSON, more than ${SCHEMA_LIMITS.characters}`, SMALLER);
	const targets = resolveRefs(walk, schema, refuse);
	checkTally(walk, refuse); // again: a $ref may point outside the definitions the first walk covered
	const { tally } = walk;
	if (tally.pattern)
		refuse(
			`has pattern ${tally.pattern.quoted} (at ${tally.pattern.path}) that ${tally.pattern.problem}`,
			tally.pattern.fix,
		);
	if (tally.patternSize > SCHEMA_LIMITS.patternSize)
		refuse(
			`has patterns that compile to ${tally.patternSize} RE2 instructions together, more than ${SCHEMA_LIMITS.patternSize} (${MAX_PATTERN_SIZE} for one)`,
			'Simplify the patterns; limit lengths with "maxLength" rather than repeats.',
		);
	checkApplications(walk, schema, targets, refuse);
	checked.set(schema, true);
}

const SMALLER =
	'Make it smaller: split one tool into several, move long explanations into the description or prompt, and reuse parts with "$ref".';

function checkTally({ tally }: SchemaWalk, refuse: (problem: string, fix: string) => never): void {
	if (tally.deepestSchema > SCHEMA_LIMITS.depth)
		refuse(
			`nests schemas more than ${SCHEMA_LIMITS.depth} levels deep`,
			'Flatten it, or describe a deep structure once in "$defs" and refer to it with "$ref".',
		);
	if (tally.deepestJson > SCHEMA_LIMITS.jsonDepth)
		refuse(`nests JSON more than ${SCHEMA_LIMITS.jsonDepth} levels deep`, 'Flatten it.');
	if (tally.subschemas > SCHEMA_LIMITS.subschemas)
		refuse(
			`has more than ${SCHEMA_LIMITS.subschemas} schema objects (the root and every nested schema)`,
			SMALLER,
		);
	if (tally.keywords > SCHEMA_LIMITS.keywords)
		refuse(`has more than ${SCHEMA_LIMITS.keywords} keywords in all`, SMALLER);
	if (tally.enumValues > SCHEMA_LIMITS.enumValues)
		refuse(
			`has more than ${SCHEMA_LIMITS.enumValues} enum and const values in all`,
			'Check long lists of allowed values in the workflow after the run, or with a "pattern".',
		);
}

/** Each `$ref` to the schema object it names, inside this schema; walks targets the first walk did not reach. */
function resolveRefs(
	walk: SchemaWalk,
	root: SchemaNode,
	refuse: (problem: string, fix: string) => never,
): Map<SchemaNode, SchemaNode> {
	const targets = new Map<SchemaNode, SchemaNode>();
	const rootBase =
		typeof root.$id === 'string' && !root.$id.startsWith('#')
			? withoutFragment(resolveUri(root.$id, ''))
			: '';
	for (let index = 0; index < walk.refs.length && index <= SCHEMA_LIMITS.subschemas; index++) {
		const site = walk.refs[index];
		const uri = resolveUri(site.ref, site.base);
		const document = withoutFragment(uri);
		const fragment = uri.slice(document.length + 1);
		let target: unknown = document === rootBase ? root : walk.named.get(document);
		if (target !== undefined && fragment.startsWith('/')) target = followPointer(target, fragment);
		else if (target !== undefined && fragment !== '')
			target = walk.named.get(`${document}#${fragment}`);
		if (typeof target === 'boolean') continue; // `true` / `false` schemas apply nothing further
		if (!isObject(target)) {
			const remote = /^[a-z][a-z0-9+.-]*:/i.test(site.ref)
				? ' (schemas are never fetched, and the "$id" of another schema means nothing here)'
				: '';
			refuse(
				`has $ref "${site.ref}" at ${site.path} that does not point to a schema inside this one${remote}`,
				'Point it inside the schema: "#/$defs/Name" for a definition, "#" for the whole schema.',
			);
		}
		if (!walk.paths.has(target as SchemaNode)) walk.walk(target, `${site.path}→`, site.base, 1, 1);
		targets.set(site.node, target as SchemaNode);
	}
	return targets;
}

function followPointer(start: unknown, pointer: string): unknown {
	let at = start;
	for (const raw of pointer.slice(1).split('/')) {
		const segment = safeDecode(raw).replace(/~1/g, '/').replace(/~0/g, '~');
		if (typeof at !== 'object' || at === null || !Object.prototype.hasOwnProperty.call(at, segment))
			return undefined;
		at = (at as Record<string, unknown>)[segment];
	}
	return at;
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/**
 * How many schemas apply to one value, level after level: a `$ref` cycle that reaches itself without going
 * into a property or an item recurses forever (ajv: "Maximum call stack size exceeded"); `$ref`s that fan
 * out (`anyOf` of two refs to the same definition, and so on) double the work with every level or chain.
 */
function checkApplications(
	walk: SchemaWalk,
	root: SchemaNode,
	targets: Map<SchemaNode, SchemaNode>,
	refuse: (problem: string, fix: string) => never,
): void {
	const nodes = [...walk.edges.keys()];
	const index = new Map(nodes.map((node, position) => [node, position]));
	const same: number[][] = nodes.map((node) =>
		[...sameValueTargets(walk, node, targets)].map((target) => index.get(target)!),
	);
	const order = topologicalOrder(same, (from) => {
		const site = walk.refs.find((ref) => ref.node === nodes[from]);
		refuse(
			`has $ref "${site?.ref ?? '#'}" at ${site?.path ?? walk.paths.get(nodes[from])} that leads back to a ` +
				`schema applying to the same value, so checking any value would recurse forever`,
			'Recurse only through a part of the value, e.g. {"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}}}.',
		);
	});
	const closure = (seed: Float64Array): Float64Array => {
		for (const from of order)
			if (seed[from] > 0) for (const to of same[from]) seed[to] += seed[from];
		return seed;
	};
	const total = (vector: Float64Array) => vector.reduce((sum, count) => sum + count, 0);
	const tooMany = (level: number) =>
		refuse(
			`has $refs that apply more than ${SCHEMA_LIMITS.applicationsPerValue} schemas to one ` +
				`value${level > 0 ? ` ${level} levels deep` : ''}, and each level or chain of references multiplies ` +
				`them`,
			'Refer to each definition once per property or item (e.g. "items":{"$ref":"#/$defs/Node"}), not from several branches of the same value.',
		);
	let current = closure(unit(nodes.length, index.get(root)!));
	for (let level = 0; level <= RECURSION_LEVELS; level++) {
		if (total(current) > SCHEMA_LIMITS.applicationsPerValue) tooMany(level);
		const next = nextLevel(walk, nodes, index, current, closure);
		if (total(next) === 0 || next.every((count, position) => count === current[position])) return;
		current = next;
	}
}

/** The schemas applied to a part of the value (the worst part: each entry the most over all parts). */
function nextLevel(
	walk: SchemaWalk,
	nodes: SchemaNode[],
	index: Map<SchemaNode, number>,
	current: Float64Array,
	closure: (seed: Float64Array) => Float64Array,
): Float64Array {
	const active = nodes.flatMap((node, position) => (current[position] > 0 ? [position] : []));
	const parts = new Map<string, Float64Array>();
	const part = (slot: string) =>
		parts.get(slot) ?? parts.set(slot, new Float64Array(nodes.length)).get(slot)!;
	part('otherProperty');
	for (const position of active)
		for (const edge of walk.edges.get(nodes[position]) ?? [])
			if (edge.slot?.startsWith('n:')) part(edge.slot);
	const named = [...parts.keys()].filter((slot) => slot.startsWith('n:'));
	for (const position of active) {
		const edges = walk.edges.get(nodes[position]) ?? [];
		const ownNames = new Set(
			edges.map((edge) => edge.slot).filter((slot) => slot?.startsWith('n:')),
		);
		for (const edge of edges) {
			if (!edge.slot) continue;
			const target = index.get(edge.target)!;
			// patternProperties may match any property; additionalProperties applies to those its schema does not name.
			const slots =
				edge.slot === 'anyProperty'
					? [...named, 'otherProperty']
					: edge.slot === 'otherProperty'
						? [...named.filter((slot) => !ownNames.has(slot)), 'otherProperty']
						: [edge.slot];
			for (const slot of slots) part(slot)[target] += current[position];
		}
	}
	const worst = new Float64Array(nodes.length);
	for (const seed of parts.values())
		closure(seed).forEach(
			(count, position) => (worst[position] = Math.max(worst[position], count)),
		);
	return worst;
}

function* sameValueTargets(
	walk: SchemaWalk,
	node: SchemaNode,
	targets: Map<SchemaNode, SchemaNode>,
): Iterable<SchemaNode> {
	for (const edge of walk.edges.get(node) ?? []) if (!edge.slot) yield edge.target;
	const target = targets.get(node);
	if (target) yield target;
}

function unit(length: number, position: number): Float64Array {
	const vector = new Float64Array(length);
	vector[position] = 1;
	return vector;
}

/** Nodes ordered so every edge goes forward; `onCycle` gets the node whose edge closes a cycle. */
function topologicalOrder(edges: number[][], onCycle: (from: number) => never): number[] {
	const state = new Uint8Array(edges.length); // 0 new, 1 on the path, 2 done
	const finished: number[] = [];
	for (let start = 0; start < edges.length; start++) {
		if (state[start] !== 0) continue;
		const stack: Array<[number, number]> = [[start, 0]];
		state[start] = 1;
		while (stack.length > 0) {
			const top = stack[stack.length - 1];
			const [node, next] = top;
			if (next < edges[node].length) {
				top[1]++;
				const to = edges[node][next];
				if (state[to] === 1) onCycle(node);
				if (state[to] === 0) {
					state[to] = 1;
					stack.push([to, 0]);
				}
			} else {
				state[node] = 2;
				finished.push(node);
				stack.pop();
			}
		}
	}
	return finished.reverse();
}
