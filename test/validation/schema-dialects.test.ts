// JSON Schemas are checked by their own dialect's rules, a keyword no rule would apply is refused by name, and a refused schema leaves nothing behind.
import { runAgent } from '../../src/agent/run-agent';
import { idsHeldByAjv } from '../../src/validation/ajv-dialects';
import {
	assertValidSchema,
	compiledSchemaCounts,
	validateAgainst,
} from '../../src/validation/validate';
import type { Tool } from '../../src/tools/tool';
import { action, final, modelFor, useScriptedServer } from '../support/agent';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';
const refusal = (run: () => unknown): string => {
	try {
		run();
	} catch (error) {
		return (error as Error).message;
	}
	return 'accepted';
};

describe('a refused schema leaves nothing behind', () => {
	it('a schema refused for "minimum": "0" and corrected under the same $id compiles at once', () => {
		const wrong = {
			$id: 'https://example.com/amount.json',
			type: 'object',
			properties: { amount: { type: 'number', minimum: '0' } },
		};
		expect(refusal(() => assertValidSchema(wrong, 'output_schema'))).toMatch(
			/^output_schema is not a valid JSON Schema draft-07: .*minimum must be number/,
		);
		const corrected = {
			$id: 'https://example.com/amount.json',
			type: 'object',
			properties: { amount: { type: 'number', minimum: 0 } },
		};
		expect(refusal(() => assertValidSchema(corrected, 'output_schema'))).toBe('accepted');
		expect(validateAgainst(corrected, { amount: -1 }).ok).toBe(false);
	});

	it('the same schema object refused once is refused again, never checked by the wrong rules on a retry', () => {
		const wrong = {
			type: 'object',
			properties: { amount: { type: 'number', minimum: '0' } },
			required: ['amount'],
		};
		const first = refusal(() => validateAgainst(wrong, { amount: -5 }));
		expect(first).toMatch(/is not a valid JSON Schema draft-07/);
		expect(refusal(() => validateAgainst(wrong, { amount: -5 }))).toBe(first);
		expect(refusal(() => assertValidSchema(wrong, 'output_schema'))).toMatch(
			/^output_schema is not a valid JSON Schema/,
		);
	});

	it('2,000 refusals leave ajv holding the schemas and ids it held before', () => {
		validateAgainst({ type: 'string' }, 'warm');
		validateAgainst({ $schema: DRAFT_2020, type: 'string' }, 'warm');
		const before = { counts: compiledSchemaCounts(), ids: idsHeldByAjv().sort() };
		for (let index = 0; index < 2_000; index++) {
			const draft = index % 2 === 0 ? {} : { $schema: DRAFT_2020 };
			expect(
				refusal(() =>
					assertValidSchema(
						{ ...draft, $id: `https://example.com/refused-${index}.json`, minimum: String(index) },
						'output_schema',
					),
				),
			).toMatch(/is not a valid JSON Schema/);
		}
		expect({ counts: compiledSchemaCounts(), ids: idsHeldByAjv().sort() }).toEqual(before);
	});
});

describe('each schema is checked by its own dialect', () => {
	it('a 2020-12 schema applies dependentRequired and unevaluatedProperties: the forbidden call is refused naming the extra property', () => {
		const pay = {
			$schema: DRAFT_2020,
			type: 'object',
			properties: { amount: { type: 'number' }, card: { type: 'string' } },
			dependentRequired: { card: ['amount'] },
			unevaluatedProperties: false,
		};
		expect(validateAgainst(pay, { amount: 5, card: '4111', admin: true })).toEqual({
			ok: false,
			issues: ['args: unknown property "admin" is not allowed'],
		});
		expect(validateAgainst(pay, { card: '4111' })).toMatchObject({
			ok: false,
			issues: ['args: must have property amount when property card is present'],
		});
		expect(validateAgainst(pay, { amount: 5, card: '4111' }).ok).toBe(true);
	});

	it('without $schema, prefixItems makes the schema 2020-12: items: false closes the tuple instead of refusing every array', () => {
		const pair = {
			type: 'array',
			prefixItems: [{ type: 'string' }, { type: 'number' }],
			items: false,
		};
		expect(validateAgainst(pair, ['a', 1]).ok).toBe(true);
		expect(validateAgainst(pair, ['a', 1, 2]).ok).toBe(false);
		expect(validateAgainst(pair, [1, 'a']).ok).toBe(false);
	});

	it.each([
		['prefixItems', { prefixItems: [{ type: 'string' }] }],
		['unevaluatedProperties', { type: 'object', unevaluatedProperties: false }],
		['dependentRequired', { dependentRequired: { card: ['amount'] } }],
		['minContains', { contains: { type: 'string' }, minContains: 2 }],
	])(
		'a 2020-12 keyword (%s) under an explicit draft-07 $schema is refused by name, with the fix',
		(keyword, schema) => {
			expect(
				refusal(() => assertValidSchema({ $schema: DRAFT_07, ...schema }, 'output_schema')),
			).toBe(
				`output_schema uses "${keyword}" (at /), which JSON Schema draft-07 does not define, so it would be ignored. Remove it, or add "$schema": "${DRAFT_2020}" to the schema's root instead of draft-07.`,
			);
		},
	);

	it('draft-07 keywords 2020-12 dropped are refused by name under 2020-12, never skipped', () => {
		expect(
			refusal(() =>
				assertValidSchema(
					{ $schema: DRAFT_2020, items: [{ type: 'string' }], additionalItems: false },
					'output_schema',
				),
			),
		).toMatch(
			/^output_schema uses "additionalItems" \(at \/\), which JSON Schema 2020-12 does not define/,
		);
		expect(
			refusal(() =>
				assertValidSchema({ $schema: DRAFT_2020, items: [{ type: 'string' }] }, 'output_schema'),
			),
		).toMatch(
			/^output_schema has "items" as an array \(at \/\), draft-07's tuple form, which JSON Schema 2020-12 writes as "prefixItems"/,
		);
		expect(
			refusal(() =>
				assertValidSchema(
					{ type: 'object', properties: { list: { $recursiveRef: '#' } } },
					'output_schema',
				),
			),
		).toMatch(/"\$recursiveRef" \(at \/properties\/list\)/);
	});

	it('a $schema the engine does not check, one inside the schema, and $dynamicRef are refused by name', () => {
		expect(
			refusal(() =>
				assertValidSchema(
					{ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' },
					'output_schema',
				),
			),
		).toMatch(
			/^output_schema declares "\$schema": "http:\/\/json-schema.org\/draft-04\/schema#", a dialect the engine does not check/,
		);
		expect(
			refusal(() =>
				assertValidSchema(
					{ type: 'object', properties: { a: { $schema: DRAFT_2020, prefixItems: [] } } },
					'output_schema',
				),
			),
		).toMatch(/^output_schema has "\$schema" at \/properties\/a, inside the schema/);
		expect(
			refusal(() =>
				assertValidSchema(
					{
						$schema: DRAFT_2020,
						$dynamicAnchor: 'node',
						type: 'array',
						items: { $dynamicRef: '#node' },
					},
					'output_schema',
				),
			),
		).toMatch(/uses "\$dynamicAnchor" \(at \/\), which the engine does not check/);
	});
});

describe('a run says when a schema without $schema is read as 2020-12', () => {
	const server = useScriptedServer();

	it('a tool schema using prefixItems without $schema is checked as 2020-12, and step 1 says so', async () => {
		const calls: unknown[] = [];
		const point: Tool = {
			name: 'plot_point',
			description: 'Plots a labelled point.',
			parameters: {
				type: 'object',
				properties: {
					point: {
						type: 'array',
						prefixItems: [{ type: 'string' }, { type: 'number' }],
						items: false,
					},
				},
				required: ['point'],
			},
			async execute(args) {
				calls.push(args);
				return 'plotted';
			},
		};
		server().setScript([
			action('plot_point', { point: ['a', 1, 2] }),
			action('plot_point', { point: ['a', 1] }),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['plot_point'] },
			extraTools: [point],
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'done' });
		expect(calls).toEqual([{ point: ['a', 1] }]);
		expect(result.trace[0].notices).toContain(
			`the args schema of tool "plot_point" has no "$schema" and uses "prefixItems" (at /properties/point), a JSON Schema 2020-12 keyword: it is checked as 2020-12 (add "$schema": "${DRAFT_2020}" to the schema's root to say so)`,
		);
	});
});
