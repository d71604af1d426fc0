import * as limits from '../../src/validation/schema-limits';
import { SchemaError } from '../../src/validation/schema-error';
import {
	assertValidSchema,
	compiledSchemaCounts,
	validateAgainst,
} from '../../src/validation/validate';

/** A fresh object each call, as connected n8n tools and workflow tools hand over on every execution. */
const freshSchema = (property = 'input') => ({
	type: 'object',
	properties: { [property]: { type: 'string' } },
	required: [property],
	additionalProperties: false,
});

describe('validateAgainst: compiled validators', () => {
	it('compiles a schema once per content, however many equal objects arrive', () => {
		validateAgainst(freshSchema('same_content'), { same_content: 'x' });
		const before = compiledSchemaCounts();
		for (let run = 0; run < 500; run++) {
			expect(validateAgainst(freshSchema('same_content'), { same_content: `run ${run}` }).ok).toBe(
				true,
			);
		}
		expect(compiledSchemaCounts()).toEqual(before);
	});

	it('keeps at most 256 schemas, and ajv lets go of the ones it drops', () => {
		for (let index = 0; index < 600; index++)
			validateAgainst(freshSchema(`field_${index}`), { [`field_${index}`]: 'x' });
		const counts = compiledSchemaCounts();
		expect(counts.cached).toBeLessThanOrEqual(256);
		// ajv also holds its meta-schemas; without eviction it would hold all 600 compiled here.
		expect(counts.heldByAjv).toBeLessThan(256 + 20);
	});

	it('still validates with a schema whose compiled entry was dropped, and compiles it again when it comes back', () => {
		const early = freshSchema('early');
		expect(validateAgainst(early, { early: 1 })).toEqual({
			ok: false,
			issues: ['args.early: must be string'],
		});
		for (let index = 0; index < 300; index++) validateAgainst(freshSchema(`push_out_${index}`), {});
		expect(validateAgainst(early, { early: 'x', extra: 1 })).toEqual({
			ok: false,
			issues: ['args: unknown property "extra" is not allowed'],
		});
		expect(validateAgainst(freshSchema('early'), {})).toEqual({
			ok: false,
			issues: ['args: missing required property "early"'],
		});
	});

	it('checks the limits of a content once: a new object with a content compiled before is not walked again', () => {
		validateAgainst(freshSchema('limits_once'), { limits_once: 'x' });
		const checkLimits = jest.spyOn(limits, 'checkSchemaLimits');
		try {
			expect(validateAgainst(freshSchema('limits_once'), { limits_once: 1 })).toEqual({
				ok: false,
				issues: ['args.limits_once: must be string'],
			});
			expect(checkLimits).not.toHaveBeenCalled();
			validateAgainst(freshSchema('limits_new_content'), {});
			expect(checkLimits).toHaveBeenCalledTimes(1);
		} finally {
			checkLimits.mockRestore();
		}
	});

	it('refuses a schema that contains itself or shares a part many times over, without writing it out first', () => {
		const cyclic: Record<string, unknown> = { type: 'object' };
		cyclic.properties = { self: cyclic };
		expect(() => assertValidSchema(cyclic, 'output_schema')).toThrow(SchemaError);
		// 2^40 paths through 41 objects: written out in full, it would never end.
		let shared: Record<string, unknown> = { type: 'string' };
		for (let level = 0; level < 40; level++) shared = { anyOf: [shared, shared] };
		expect(() => assertValidSchema(shared, 'output_schema')).toThrow(SchemaError);
	});

	it('a check of a schema without patterns, after one that ran out of pattern budget, leaves the next schema check its own budget', () => {
		const pattern = '^[a-z]+$';
		const texts = Array.from({ length: 2_000 }, () => 'a'.repeat(1_000));
		const refused = validateAgainst({ type: 'array', items: { type: 'string', pattern } }, texts);
		expect(refused.ok).toBe(false);
		expect(validateAgainst(freshSchema('no_patterns'), { no_patterns: 'x' }).ok).toBe(true);
		// A new schema's check against the meta-schema runs the meta-schema's `$anchor` pattern.
		const anchored = { $defs: { id: { $anchor: 'id', type: 'string' } }, $ref: '#id' };
		expect(() => assertValidSchema(anchored, 'output_schema')).not.toThrow();
	});
});
