/** The engine's ajv instances, one class per JSON Schema dialect, made on first use; and a compile that a refusal leaves no trace of. */
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { loadOnce } from '../core/load-once';
import { DIALECT_URIS, type Dialect } from './dialect';
import { useLinearUniqueItems, useSetEnum } from './linear-keywords';
import { linearRegExp } from './linear-regexp';

/**
 * ajv's class for each dialect: `ajv` (draft-07) and `ajv/dist/2020`, whose meta-schema is 2020-12 and which
 * implements `prefixItems`, `unevaluated*`, `dependent*`, `min/maxContains` and `$dynamicRef` (ajv.js.org/json-schema.html).
 * Loaded only when a schema of that dialect is first compiled (loading cost, issue #20).
 */
const CLASSES: Readonly<Record<Dialect, () => typeof Ajv>> = {
	'draft-07': () => (require('ajv') as typeof import('ajv')).default,
	'2020-12': () =>
		(require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default as unknown as typeof Ajv,
};

/**
 * One instance that stops at the first problem and one that lists them all (for the `path: problem` lines of
 * a small value), per dialect. Their patterns run on RE2 (linear-regexp.ts), `uniqueItems` and `enum` in linear
 * time (linear-keywords.ts); none has `loadSchema`, so a `$ref` to a URL is never fetched. (ajv's registry by
 * `$id` stays on while one schema compiles: ajv resolves its `"$ref": "#"` through it; see compileAlone.)
 * `ownProperties`: a required "constructor" or "toString" is not met by the value's prototype
 * (JSON-Schema-Test-Suite required.json).
 */
function makeAjv(dialect: Dialect, allErrors: boolean): Ajv {
	const AjvClass = CLASSES[dialect]();
	const ajv = new AjvClass({
		allErrors,
		strict: false,
		useDefaults: false,
		validateFormats: false,
		ownProperties: true,
		code: { regExp: linearRegExp },
	});
	useLinearUniqueItems(ajv);
	useSetEnum(ajv);
	warmMetaSchema(ajv, dialect);
	return ajv;
}

/**
 * Compiles the dialect's meta-schema now, under each name a schema may give it (none, its URI, its URI
 * with `#`), so what ajv adds to check a schema against it is there before the first compileAlone takes
 * its snapshot: otherwise compileAlone would take it out again, and every compile would compile the
 * meta-schema anew.
 */
function warmMetaSchema(ajv: Ajv, dialect: Dialect): void {
	const uri = DIALECT_URIS[dialect].replace(/#$/, '');
	for (const named of [{}, { $schema: uri }, { $schema: `${uri}#` }]) ajv.validateSchema(named);
}

const instances = new Map<string, Ajv>();
const loaders = new Map<string, () => Ajv>();

/** The instance for `dialect`, made on first use. */
export function ajvFor(dialect: Dialect, allErrors: boolean): Ajv {
	const key = `${dialect}/${allErrors ? 'all' : 'first'}`;
	let load = loaders.get(key);
	if (!load) {
		load = loadOnce(() => {
			const ajv = makeAjv(dialect, allErrors);
			instances.set(key, ajv);
			return ajv;
		});
		loaders.set(key, load);
	}
	return load();
}

/** What an ajv instance holds (its internals, read to prove a refusal leaves nothing): compiled schema objects, and schemas by id. */
interface Held {
	_cache: Map<unknown, unknown>;
	schemas: Record<string, unknown>;
	refs: Record<string, unknown>;
}

/** For tests: the most schema objects any instance made so far holds, its meta-schemas included. */
export function heldByAjv(): number {
	return Math.max(0, ...[...instances.values()].map((ajv) => (ajv as unknown as Held)._cache.size));
}

/** For tests: every id any instance holds a schema under (its meta-schemas' included). */
export function idsHeldByAjv(): string[] {
	return [...instances.values()].flatMap((ajv) => [
		...Object.keys((ajv as unknown as Held).schemas),
		...Object.keys((ajv as unknown as Held).refs),
	]);
}

/**
 * ajv.compile of one schema on its own: whatever the compile adds to the instance (the schema object, its
 * `$id` and the `$id`s inside it) is taken out again, whether it compiled or threw. ajv keeps one registry by
 * `$id` per instance and the instances are the process's: an `$id` left there made a later schema with the
 * same `$id` and other content "already exist" (one n8n workflow's schema broke another's runs until a
 * restart), and a refused schema stayed half-registered (ajv core.ts `_addSchema`). ajv resolves every `$ref`
 * while it compiles, so the function it returns needs nothing from the registry afterwards: an `$id` means
 * something only inside the schema that declares it, and the instance holds no schema of a run or a tool.
 */
export function compileAlone(ajv: Ajv, schema: object): ValidateFunction {
	const held = ajv as unknown as Held;
	const before = {
		cache: new Set(held._cache.keys()),
		schemas: { ...held.schemas },
		refs: { ...held.refs },
	};
	try {
		return ajv.compile(schema);
	} finally {
		for (const key of [...held._cache.keys()]) if (!before.cache.has(key)) held._cache.delete(key);
		restore(held.schemas, before.schemas);
		restore(held.refs, before.refs);
	}
}

/**
 * The `$id` an ajv compile error says is taken, when `ajv` holds it: with every compile alone, only the
 * dialect's meta-schemas are held, so a schema that declares one of their ids is the only way to meet it.
 */
export function heldIdNamedIn(ajv: Ajv, message: string): string | undefined {
	const named = /^(?:schema with key or id|reference) "([^"]*)"/.exec(message)?.[1];
	const held = ajv as unknown as Held;
	return named !== undefined && (named in held.schemas || named in held.refs) ? named : undefined;
}

/** `registry` as `earlier` was: entries added taken out, entries replaced put back (ajv points `""` at each schema it compiles). */
function restore(registry: Record<string, unknown>, earlier: Record<string, unknown>): void {
	for (const id of Object.keys(registry)) if (!(id in earlier)) delete registry[id];
	Object.assign(registry, earlier);
}
