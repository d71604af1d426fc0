import { compiledSchemaCounts, validateAgainst } from '../../src/validation/validate';

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
});
