/** The engine's ajv instances, one class per JSON Schema dialect, made on first use; and a compile that a refusal leaves no trace of. */
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { loadOnce } from '../core/load-once';
import type { Dialect } from './dialect';
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
 * `$id` stays on: ajv resolves a schema's `"$ref": "#"` through it.) `ownProperties`: a required "constructor" or
 * "toString" is not met by the value's prototype (JSON-Schema-Test-Suite required.json).
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
	return ajv;
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
 * ajv.compile, undone when it throws. ajv registers a schema object (and its `$id`) before it checks it
 * against the meta-schema: a refused schema stayed, so the same object was then compiled unchecked on the
 * next call, and a corrected one with the same `$id` was refused as "already exists" (ajv core.ts `_addSchema`).
 */
export function compileLeavingNoTrace(ajv: Ajv, schema: object): ValidateFunction {
	const held = ajv as unknown as Held;
	const before = {
		cache: new Set(held._cache.keys()),
		schemas: { ...held.schemas },
		refs: { ...held.refs },
	};
	try {
		return ajv.compile(schema);
	} catch (error) {
		for (const key of [...held._cache.keys()]) if (!before.cache.has(key)) held._cache.delete(key);
		restore(held.schemas, before.schemas);
		restore(held.refs, before.refs);
		throw error;
	}
}

/** `registry` as `earlier` was: entries added taken out, entries replaced put back (ajv points `""` at each schema it compiles). */
function restore(registry: Record<string, unknown>, earlier: Record<string, unknown>): void {
	for (const id of Object.keys(registry)) if (!(id in earlier)) delete registry[id];
	Object.assign(registry, earlier);
}
