/** ajv per JSON Schema dialect: one instance checks schemas against the meta-schema; each schema compiles in its own. */
import type Ajv from 'ajv';
import type { Options, ValidateFunction } from 'ajv';
import { loadOnce } from '../core/load-once';
import type { Dialect } from './dialect';
import { useLinearUniqueItems, useSetEnum } from './linear-keywords';
import { linearRegExp, startPatternBudget } from './linear-regexp';

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
const classes = new Map<Dialect, () => typeof Ajv>();
const classOf = (dialect: Dialect): typeof Ajv => {
	if (!classes.has(dialect)) classes.set(dialect, loadOnce(CLASSES[dialect]));
	return classes.get(dialect)!();
};

/**
 * What every instance is: patterns on RE2 (linear-regexp.ts), `uniqueItems` and `enum` in linear time
 * (linear-keywords.ts), no `loadSchema`, so a `$ref` to a URL is never fetched. `ownProperties`: a required
 * "constructor" or "toString" is not met by the value's prototype (JSON-Schema-Test-Suite required.json).
 */
function makeAjv(dialect: Dialect, options: Options): Ajv {
	const AjvClass = classOf(dialect);
	const ajv = new AjvClass({
		strict: false,
		useDefaults: false,
		validateFormats: false,
		ownProperties: true,
		code: { regExp: linearRegExp },
		...options,
	});
	useLinearUniqueItems(ajv);
	useSetEnum(ajv);
	return ajv;
}

const checkers = new Map<Dialect, Ajv>();

/**
 * Throws ajv's "schema is invalid: …" when `schema` does not match its dialect's meta-schema. One instance
 * per dialect does this for the process: it holds the meta-schema's compiled check and nothing of the
 * schemas it checks (ajv's validateSchema only runs that check).
 */
export function checkAgainstMetaSchema(dialect: Dialect, schema: object): void {
	let checker = checkers.get(dialect);
	if (!checker) checkers.set(dialect, (checker = makeAjv(dialect, {})));
	// The meta-schema's patterns (`$anchor`'s…) run on RE2 too: a budget of their own, not what a check before left.
	startPatternBudget();
	checker.validateSchema(schema, true);
}

/**
 * ajv.compile of one schema in an ajv instance of its own (about 0.2 ms to make, beside 1–2 ms to compile).
 * An instance keeps one registry by `$id` and, in its code scope, every schema and function it compiled,
 * for as long as it lives: a shared one made a later schema with an earlier one's `$id` and other content
 * "already exist" (one n8n workflow's schema broke another's runs until a restart; two MCP tools sharing an
 * `$id` failed the run), kept every schema ever compiled (removeSchema does not empty the code scope), and
 * kept a refused schema half-registered (ajv core.ts `_addSchema`). Here an `$id` means something only
 * inside the schema that declares it, and the instance goes when its function does. The meta-schema check
 * is checkAgainstMetaSchema's, so the instance has no meta-schema and compiles nothing but this schema.
 */
export function compileAlone(
	dialect: Dialect,
	allErrors: boolean,
	schema: object,
): ValidateFunction {
	return makeAjv(dialect, { allErrors, meta: false, validateSchema: false }).compile(schema);
}

/** What an ajv instance holds (internals, read to prove nothing stays): compiled schema objects, schemas by id. */
interface Held {
	_cache: Map<unknown, unknown>;
	schemas: Record<string, unknown>;
	refs: Record<string, unknown>;
}

/** For tests: the most schema objects a long-lived instance (a meta-schema checker) holds. */
export function heldByAjv(): number {
	return Math.max(0, ...[...checkers.values()].map((ajv) => (ajv as unknown as Held)._cache.size));
}

/** For tests: every id a long-lived instance holds a schema under (the meta-schemas'). */
export function idsHeldByAjv(): string[] {
	return [...checkers.values()].flatMap((ajv) => [
		...Object.keys((ajv as unknown as Held).schemas),
		...Object.keys((ajv as unknown as Held).refs),
	]);
}
