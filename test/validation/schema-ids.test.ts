// Issue #48: a schema's `$id` means something only inside the schema that declares it; ajv's registry keeps none.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { idsHeldByAjv } from '../../src/validation/ajv-dialects';
import {
	assertValidSchema,
	compiledSchemaCounts,
	validateAgainst,
} from '../../src/validation/validate';

const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';
const refusal = (run: () => unknown): string => {
	try {
		run();
	} catch (error) {
		return (error as Error).message;
	}
	return 'accepted';
};
/** An object schema with one required property of one type, under `$id`. */
const requiring = (id: string, property: string, type: string) => ({
	$id: id,
	type: 'object',
	properties: { [property]: { type } },
	required: [property],
});

describe('two schemas with the same $id and other content', () => {
	it.each(['urn:example:answer', 'https://example.com/answer.json'])(
		'each is compiled and checks by its own content (%s)',
		(id) => {
			const first = requiring(id, 'total', 'number');
			const second = requiring(id, 'name', 'string');
			expect(validateAgainst(first, { total: 3 }).ok).toBe(true);
			expect(validateAgainst(second, { name: 'Ada' }).ok).toBe(true);
			expect(validateAgainst(second, { total: 3 })).toEqual({
				ok: false,
				issues: ['args: missing required property "name"'],
			});
			expect(validateAgainst(first, { name: 'Ada' })).toEqual({
				ok: false,
				issues: ['args: missing required property "total"'],
			});
		},
	);

	it("a $ref to the schema's own $id reaches its own definitions, not the other's", () => {
		const tree = (leaf: string) => ({
			$id: 'https://example.com/tree.json',
			definitions: { leaf: { type: leaf } },
			type: 'object',
			properties: {
				leaf: { $ref: 'https://example.com/tree.json#/definitions/leaf' },
				children: { type: 'array', items: { $ref: '#' } },
			},
		});
		const numbers = tree('number');
		const strings = tree('string');
		expect(validateAgainst(numbers, { leaf: 1, children: [{ leaf: 2 }] }).ok).toBe(true);
		expect(validateAgainst(strings, { leaf: 'a', children: [{ leaf: 'b' }] }).ok).toBe(true);
		expect(validateAgainst(numbers, { children: [{ leaf: 'b' }] }).ok).toBe(false);
		expect(validateAgainst(strings, { children: [{ leaf: 2 }] }).ok).toBe(false);
	});

	it('nested $ids and $anchors with the same names in two schemas stay apart', () => {
		const anchored = (type: string) => ({
			$schema: DRAFT_2020,
			$id: 'https://example.com/anchored.json',
			$defs: {
				inner: { $id: 'https://example.com/inner.json', type },
				named: { $anchor: 'value', type },
			},
			type: 'object',
			properties: {
				a: { $ref: 'https://example.com/inner.json' },
				b: { $ref: '#value' },
			},
		});
		const numbers = anchored('number');
		const strings = anchored('string');
		expect(validateAgainst(numbers, { a: 1, b: 2 }).ok).toBe(true);
		expect(validateAgainst(strings, { a: 'x', b: 'y' }).ok).toBe(true);
		expect(validateAgainst(strings, { a: 1, b: 'y' }).ok).toBe(false);
		expect(validateAgainst(strings, { a: 'x', b: 2 }).ok).toBe(false);
		expect(validateAgainst(numbers, { a: 1, b: 'y' }).ok).toBe(false);
	});
});

describe('what stays held', () => {
	it('identical content compiles once, whatever the key order of its objects', () => {
		const one = { $id: 'urn:example:once', type: 'object', properties: { a: { type: 'string' } } };
		validateAgainst(one, { a: 'x' });
		const before = compiledSchemaCounts().cached;
		const reordered = {
			properties: { a: { type: 'string' } },
			type: 'object',
			$id: 'urn:example:once',
		};
		expect(validateAgainst(reordered, { a: 1 }).ok).toBe(false);
		expect(compiledSchemaCounts().cached).toBe(before);
	});

	it('1,000 schemas with distinct $ids (nested ones too): at most 256 kept, and ajv holds none of their ids', () => {
		validateAgainst({ type: 'string' }, 'warm');
		validateAgainst({ $schema: DRAFT_2020, type: 'string' }, 'warm');
		const before = { meta: compiledSchemaCounts().heldByAjv, ids: idsHeldByAjv().sort() };
		for (let index = 0; index < 1_000; index++) {
			const schema = {
				...(index % 2 === 0 ? {} : { $schema: DRAFT_2020 }),
				$id: `https://example.com/run-${index}.json`,
				type: 'object',
				properties: { id: { $id: `https://example.com/run-${index}-id.json`, const: index } },
				required: ['id'],
			};
			expect(validateAgainst(schema, { id: index }).ok).toBe(true);
		}
		const after = compiledSchemaCounts();
		expect(after.cached).toBeLessThanOrEqual(256);
		expect(after.heldByAjv).toBe(before.meta);
		expect(idsHeldByAjv().sort()).toEqual(before.ids);
	}, 60_000);
});

describe('what the cache drops', () => {
	setFlagsFromString('--expose-gc');
	const collectGarbage = runInNewContext('gc') as () => void;

	it('is freed: no ajv instance or code scope keeps a schema once its validator is dropped', async () => {
		const dropped = Array.from({ length: 20 }, (_, index) => {
			const schema = { $id: `https://example.com/dropped-${index}.json`, const: index };
			expect(validateAgainst(schema, index).ok).toBe(true);
			return new WeakRef(schema);
		});
		for (let index = 0; index < 300; index++)
			validateAgainst({ $id: `https://example.com/after-${index}.json`, const: index }, index);
		await new Promise((resolve) => setImmediate(resolve)); // a WeakRef holds its target until the job ends
		collectGarbage();
		expect(dropped.filter((schema) => schema.deref() !== undefined)).toHaveLength(0);
	});
});

describe("an $id that is not the schema's own", () => {
	it("a $ref to another schema's $id is refused, naming whose schema it is", () => {
		expect(
			validateAgainst(requiring('urn:example:orders', 'order', 'string'), { order: 'x' }).ok,
		).toBe(true);
		expect(
			refusal(() =>
				assertValidSchema(
					{ type: 'object', properties: { steal: { $ref: 'urn:example:orders' } } },
					'the args schema of tool "evil"',
				),
			),
		).toBe(
			'the args schema of tool "evil" has $ref "urn:example:orders" at /properties/steal/$ref that does not ' +
				'point to a schema inside this one (schemas are never fetched, and the "$id" of another schema means ' +
				'nothing here). Point it inside the schema: "#/$defs/Name" for a definition, "#" for the whole schema.',
		);
	});

	it.each([
		['draft-07', {}, 'http://json-schema.org/draft-07/schema'],
		['2020-12', { $schema: DRAFT_2020 }, 'https://json-schema.org/draft/2020-12/meta/core'],
	])(
		"a schema that declares its %s meta-schema's $id is checked by its own content",
		(_, declared, id) => {
			const own = { ...declared, $id: id, type: 'object', required: ['mine'] };
			expect(validateAgainst(own, { mine: 1 }).ok).toBe(true);
			expect(validateAgainst(own, {}).ok).toBe(false);
			expect(validateAgainst({ ...declared, type: 'string', minLength: 2 }, 'ab').ok).toBe(true);
			expect(
				refusal(() =>
					assertValidSchema({ ...declared, type: 'string', minLength: -1 }, 'output_schema'),
				),
			).toMatch(/^output_schema is not a valid JSON Schema .*minLength must be >= 0/);
		},
	);
});
