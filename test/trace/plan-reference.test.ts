// One definition of a plan step's reference (issue #51) for the plan room and the audit verifier.
import { isReference, isWellFormedReference } from '../../src/trace/plan-reference';

describe("a plan step's reference", () => {
	it('is meant as a reference by its own "$step" key alone, never by one inherited or inside an array', () => {
		expect(isReference({ $step: 1, pointer: '/a' })).toBe(true);
		expect(isReference({ $step: 'one' })).toBe(true);
		expect(isReference([{ $step: 1 }])).toBe(false);
		expect(isReference(Object.create({ $step: 1 }))).toBe(false);
		expect(isReference(JSON.parse('{"__proto__": {"$step": 1}}'))).toBe(false);
		expect(isReference(null)).toBe(false);
	});

	it('is well formed only as a step number and a pointer, nothing more: what the audit verifier lets match any value', () => {
		expect(isWellFormedReference({ $step: 2, pointer: '' })).toBe(true);
		expect(isWellFormedReference({ $step: '2', pointer: '/a' })).toBe(false);
		expect(isWellFormedReference({ $step: 2 })).toBe(false);
		expect(isWellFormedReference({ $step: 2, pointer: '/a', extra: true })).toBe(false);
	});
});
