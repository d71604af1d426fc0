import { dropNullOptionals, toStrictSchema } from '../../src/validation/strict-schema';
import { validateAgainst, type JsonSchema } from '../../src/validation/validate';

/** OpenAI's strict subset (provider-behaviours.md §1.4): what converts, what cannot, and how nulls come back out. */

const strictOf = (schema: JsonSchema) => {
	const converted = toStrictSchema(schema);
	if (!('schema' in converted))
		throw new Error(`expected a strict form, got: ${converted.problem}`);
	return converted.schema;
};
const problemOf = (schema: JsonSchema) => {
	const converted = toStrictSchema(schema);
	if ('schema' in converted)
		throw new Error(`expected no strict form, got ${JSON.stringify(converted.schema)}`);
	return converted.problem;
};

const ORDER: JsonSchema = {
	$schema: 'http://json-schema.org/draft-07/schema#',
	type: 'object',
	properties: {
		id: { type: 'string' },
		region: { type: 'string', enum: ['eu', 'us'] },
		lines: {
			type: 'array',
			items: {
				type: 'object',
				properties: { sku: { type: 'string' }, qty: { type: 'integer', default: 1 } },
				required: ['sku'],
			},
		},
		rush: { oneOf: [{ type: 'boolean' }, { type: 'string', const: 'tomorrow' }] },
	},
	required: ['id'],
};

describe('toStrictSchema', () => {
	it('closes every object and lists every property as required, optional ones nullable', () => {
		const strict = strictOf(ORDER);
		expect(strict).toMatchObject({
			additionalProperties: false,
			required: ['id', 'region', 'lines', 'rush'],
		});
		const properties = strict.properties as Record<string, JsonSchema>;
		expect(properties.id).toEqual({ type: 'string' });
		expect(properties.region).toEqual({ type: ['string', 'null'], enum: ['eu', 'us', null] });
		expect(properties.lines.type).toEqual(['array', 'null']);
		expect(properties.lines.items as JsonSchema).toEqual({
			type: 'object',
			properties: { sku: { type: 'string' }, qty: { type: ['integer', 'null'] } },
			required: ['sku', 'qty'],
			additionalProperties: false,
		});
	});

	it('turns oneOf into anyOf, with a null branch when optional, and drops $schema and default', () => {
		const strict = strictOf(ORDER);
		expect((strict.properties as Record<string, JsonSchema>).rush).toEqual({
			anyOf: [{ type: 'boolean' }, { type: 'string', const: 'tomorrow' }, { type: 'null' }],
		});
		expect(strict).not.toHaveProperty('$schema');
		expect(JSON.stringify(strict)).not.toContain('"default"');
	});

	it('leaves the input schema unchanged', () => {
		const before = JSON.stringify(ORDER);
		strictOf(ORDER);
		expect(JSON.stringify(ORDER)).toBe(before);
	});

	it('accepts every value the original accepted once its absent optional fields are sent as null', () => {
		const strict = strictOf(ORDER);
		const values = [
			{ id: 'A', region: null, lines: null, rush: null },
			{ id: 'B', region: 'eu', lines: [{ sku: 'X', qty: null }], rush: 'tomorrow' },
			{ id: 'C', region: 'us', lines: [], rush: false },
		];
		for (const value of values) {
			expect(validateAgainst(strict, value).ok).toBe(true);
			expect(validateAgainst(ORDER, dropNullOptionals(value, ORDER)).ok).toBe(true);
		}
		expect(validateAgainst(strict, { id: 'A' }).ok).toBe(false);
		expect(
			validateAgainst(strict, { id: 'A', region: null, lines: null, rush: null, extra: 1 }).ok,
		).toBe(false);
	});

	it.each([
		[
			{
				type: 'object',
				properties: { headers: { type: 'object', additionalProperties: { type: 'string' } } },
			},
			'(root).headers: a free-form object (additionalProperties) cannot be strict',
		],
		[
			{ type: 'object', properties: { meta: { type: 'object' } }, required: ['meta'] },
			'(root).meta: an object without listed properties cannot be strict',
		],
		[
			{ type: 'object', properties: { data: { description: 'anything' } } },
			'(root).data: a schema without "type" (any JSON value) cannot be strict',
		],
		[
			{ type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } },
			'(root).a: "allOf" is not supported in strict mode',
		],
		[
			{ type: 'object', properties: { a: { type: 'string', not: { const: 'x' } } } },
			'(root).a: "not" is not supported in strict mode',
		],
		[
			{
				type: 'object',
				properties: { tags: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
			},
			'(root).tags: "uniqueItems" is not supported in strict mode',
		],
		[
			{ type: 'object', properties: { list: { type: 'array' } }, required: ['list'] },
			'(root).list: an array without "items" cannot be strict',
		],
	])('names the path and the reason when a schema cannot be strict: %j', (schema, problem) => {
		expect(problemOf(schema as JsonSchema)).toBe(problem);
	});

	it('refuses schemas past the documented size limits: nesting, properties, enum values', () => {
		let deep: JsonSchema = { type: 'string' };
		for (let level = 0; level < 6; level++)
			deep = { type: 'object', properties: { next: deep }, required: ['next'] };
		expect(problemOf(deep)).toMatch(/objects nested more than 5 levels deep cannot be strict$/);
		const wide = {
			type: 'object',
			properties: Object.fromEntries(
				Array.from({ length: 101 }, (_, index) => [`p${index}`, { type: 'string' }]),
			),
		};
		expect(problemOf(wide)).toBe(
			'101 object properties in all, more than the 100 strict mode takes',
		);
		const enums = {
			type: 'object',
			properties: {
				code: { type: 'string', enum: Array.from({ length: 501 }, (_, index) => `c${index}`) },
			},
			required: ['code'],
		};
		expect(problemOf(enums)).toBe('501 enum values in all, more than the 500 strict mode takes');
	});
});

describe('dropNullOptionals', () => {
	it('takes out the nulls of optional properties, nested ones and in arrays, and keeps a required null for the check to refuse', () => {
		const value = { id: null, region: null, lines: [{ sku: 'X', qty: null }] };
		expect(dropNullOptionals(value, ORDER)).toEqual({ id: null, lines: [{ sku: 'X' }] });
		expect(validateAgainst(ORDER, dropNullOptionals(value, ORDER)).ok).toBe(false);
	});

	it('passes values the schema does not describe as they are', () => {
		expect(dropNullOptionals('text', ORDER)).toBe('text');
		expect(dropNullOptionals({ unknown: null }, ORDER)).toEqual({ unknown: null });
		expect(dropNullOptionals([null, 1], { type: 'array', items: { type: 'integer' } })).toEqual([
			null,
			1,
		]);
	});
});
