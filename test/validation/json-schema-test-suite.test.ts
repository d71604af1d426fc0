// The official JSON-Schema-Test-Suite (draft7, draft2020-12) through the engine's own entry: every case agrees, or is a listed deviation.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SchemaError } from '../../src/validation/schema-error';
import { assertValidSchema, validateAgainst, type JsonSchema } from '../../src/validation/validate';

/** Where the suite is: beside the repository (as CI checks it out), or JSON_SCHEMA_TEST_SUITE. */
const SUITE =
	process.env.JSON_SCHEMA_TEST_SUITE ??
	join(__dirname, '..', '..', '..', 'shared', 'json-schema-test-suite');
const DIRECTORIES = { draft7: 'draft7', 'draft2020-12': 'draft2020-12' } as const;
const OPTIONAL = ['optional/ecmascript-regex.json', 'optional/bignum.json'];

/**
 * Where the engine deliberately answers otherwise, each with its reason: `file` and `group` (the case group's
 * description) and, when not the whole group, `test` (the test's description). A listed case that starts
 * agreeing fails too, so the list stays true.
 */
interface Deviation {
	directory?: keyof typeof DIRECTORIES;
	file: string;
	group: string;
	test?: string;
	reason: string;
}

const NEVER_FETCHED =
	'a $ref to a schema outside this one (a remote one, or a meta-schema): schemas are never fetched, so it is refused (schema-limits.ts)';
const DYNAMIC =
	'$dynamicRef / $dynamicAnchor are refused by name (dialect.ts): ajv recursed without end on one of these cases';
const AJV_UNEVALUATED =
	"ajv 8's unevaluatedItems / unevaluatedProperties do not see every annotation JSON Schema 2020-12 asks for";
const DEVIATIONS: readonly Deviation[] = [
	{ file: 'refRemote.json', group: '*', reason: NEVER_FETCHED },
	{ file: 'ref.json', group: 'remote ref, containing refs itself', reason: NEVER_FETCHED },
	{
		directory: 'draft7',
		file: 'definitions.json',
		group: 'validate definition against metaschema',
		reason: NEVER_FETCHED,
	},
	{
		directory: 'draft2020-12',
		file: 'defs.json',
		group: 'validate definition against metaschema',
		reason: NEVER_FETCHED,
	},
	{
		directory: 'draft2020-12',
		file: 'vocabulary.json',
		group: '*',
		reason:
			'a custom meta-schema as "$schema": only draft-07 and 2020-12 are checked, another "$schema" is refused by name',
	},
	{
		directory: 'draft2020-12',
		file: 'ref.json',
		group: 'refs with relative uris and defs',
		reason:
			'nested relative "$id"s: the $ref check (schema-limits.ts) cannot place the target, so the schema is refused',
	},
	{
		directory: 'draft2020-12',
		file: 'ref.json',
		group: 'relative refs with absolute uris and defs',
		reason:
			'nested "$id"s: the $ref check (schema-limits.ts) cannot place the target, so the schema is refused',
	},
	{
		directory: 'draft2020-12',
		file: 'ref.json',
		group: 'URN ref with nested pointer ref',
		reason:
			'a URN "$id": the $ref check (schema-limits.ts) resolves URLs only, so the schema is refused',
	},
	{
		directory: 'draft7',
		file: 'ref.json',
		group: 'ref overrides any sibling keywords',
		reason: "ajv 8 applies a $ref's sibling keywords in draft-07 too (stricter)",
	},
	{
		directory: 'draft7',
		file: 'ref.json',
		group: '$ref prevents a sibling $id from changing the base uri',
		reason: "ajv 8 lets a $ref's sibling $id change the base URI in draft-07",
	},
	{
		file: 'properties.json',
		group: 'properties whose names are Javascript object property names',
		test: '__proto__ not valid',
		reason: 'ajv 8 reads a "__proto__" property through the prototype',
	},
	{ directory: 'draft2020-12', file: 'dynamicRef.json', group: '*', reason: DYNAMIC },
	{
		directory: 'draft2020-12',
		file: 'unevaluatedItems.json',
		group: 'unevaluatedItems with $dynamicRef',
		reason: DYNAMIC,
	},
	{
		directory: 'draft2020-12',
		file: 'unevaluatedProperties.json',
		group: 'unevaluatedProperties with $dynamicRef',
		reason: DYNAMIC,
	},
	...[
		'unevaluatedItems with nested items',
		'unevaluatedItems depends on adjacent contains',
		'unevaluatedItems depends on multiple nested contains',
		'unevaluatedItems and contains interact to control item dependency relationship',
		'unevaluatedItems with minContains = 0',
		'unevaluatedItems can see annotations from if without then and else',
	].map((group) => ({
		directory: 'draft2020-12' as const,
		file: 'unevaluatedItems.json',
		group,
		reason: AJV_UNEVALUATED,
	})),
	...[
		'unevaluatedProperties with if/then/else, then not defined',
		'unevaluatedProperties can see annotations from if without then and else',
	].map((group) => ({
		directory: 'draft2020-12' as const,
		file: 'unevaluatedProperties.json',
		group,
		reason: AJV_UNEVALUATED,
	})),
	// Regular expressions: none. Patterns are read as ECMA 262 with the u flag and rewritten for RE2 (ecmascript-pattern.ts),
	// so every ecmascript-regex case agrees; a regex deviation found later belongs here, one entry per group.
];

interface Case {
	directory: keyof typeof DIRECTORIES;
	file: string;
	group: string;
	test: string;
	schema: unknown;
	data: unknown;
	valid: boolean;
}

function cases(): Case[] {
	const found: Case[] = [];
	for (const directory of Object.keys(DIRECTORIES) as Array<keyof typeof DIRECTORIES>) {
		const folder = join(SUITE, 'tests', DIRECTORIES[directory]);
		const files = [...readdirSync(folder).filter((name) => name.endsWith('.json')), ...OPTIONAL];
		for (const file of files) {
			const groups = JSON.parse(readFileSync(join(folder, file), 'utf8')) as Array<{
				description: string;
				schema: unknown;
				tests: Array<{ description: string; data: unknown; valid: boolean }>;
			}>;
			for (const group of groups)
				for (const test of group.tests)
					found.push({
						directory,
						file,
						group: group.description,
						test: test.description,
						schema: group.schema,
						data: test.data,
						valid: test.valid,
					});
		}
	}
	return found;
}

/**
 * The engine takes schema objects only (a config's boolean schema is refused before this), so a boolean root
 * is run as its object equivalent. A draft7 schema without `$schema` is draft-07 to the engine unless it uses a
 * 2020-12 keyword; the draft2020-12 cases declare their dialect, as a schema of theirs must to be read so.
 */
function asEngineSchema(directory: keyof typeof DIRECTORIES, schema: unknown): JsonSchema {
	const object = schema === true ? {} : schema === false ? { not: {} } : (schema as JsonSchema);
	if (directory === 'draft2020-12' && object.$schema === undefined)
		return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...object };
	return object;
}

/** The engine's answer: valid, invalid, the schema refused (a SchemaError), or anything else it threw. */
function answer(
	directory: keyof typeof DIRECTORIES,
	schema: unknown,
	data: unknown,
): boolean | string {
	const engineSchema = asEngineSchema(directory, schema);
	try {
		assertValidSchema(engineSchema, 'the schema');
	} catch (error) {
		if (error instanceof SchemaError) return 'refused';
		return `threw ${String(error)}`;
	}
	try {
		return validateAgainst(engineSchema, data).ok;
	} catch (error) {
		return `threw ${String(error)}`;
	}
}

const present = existsSync(join(SUITE, 'tests', 'draft2020-12'));
const describeSuite = present ? describe : describe.skip;
if (!present) {
	const line = `JSON-Schema-Test-Suite not found at ${SUITE}: clone https://github.com/json-schema-org/JSON-Schema-Test-Suite there or set JSON_SCHEMA_TEST_SUITE`;
	if (process.env.CI === 'true')
		test('the JSON-Schema-Test-Suite is present (CI)', () => {
			throw new Error(line);
		});
	else console.log(line);
}

describeSuite('JSON-Schema-Test-Suite through validateAgainst', () => {
	const listed = (entry: Case) =>
		DEVIATIONS.find(
			(deviation) =>
				(!deviation.directory || deviation.directory === entry.directory) &&
				deviation.file === entry.file &&
				(deviation.group === '*' || deviation.group === entry.group) &&
				(!deviation.test || deviation.test === entry.test),
		);

	it('agrees with every case of draft7 and draft2020-12 except the listed deviations, and every listed deviation still deviates', () => {
		const disagreements: string[] = [];
		const deviating = new Set<Deviation>();
		for (const entry of cases()) {
			const got = answer(entry.directory, entry.schema, entry.data);
			const agrees = got === entry.valid;
			const deviation = listed(entry);
			if (deviation && !agrees) deviating.add(deviation);
			else if (!agrees)
				disagreements.push(
					`${entry.directory}/${entry.file} | ${entry.group} | ${entry.test}: expected ${entry.valid ? 'valid' : 'invalid'}, got ${got}`,
				);
		}
		const stale = DEVIATIONS.filter((deviation) => !deviating.has(deviation)).map(
			(deviation) =>
				`${deviation.file} | ${deviation.group} | ${deviation.test ?? '*'}: listed, but no case deviates`,
		);
		expect([...disagreements, ...stale]).toEqual([]);
	});
});
