// What a plan step's reference to an earlier step's result is (issue #51): one definition for the plan room that
// reads and resolves references and for the audit verifier that matches a plan's steps against the calls that ran.

/** The key that makes an object of a step's args a reference: `{"$step": N, "pointer": "/json/pointer"}`. */
export const STEP_KEY = '$step';

/** Whether `value` is meant as a reference: an object with the key "$step" (its form is checked when a plan is read). */
export function isReference(value: unknown): value is Record<string, unknown> {
	return (
		typeof value === 'object' &&
		value !== null &&
		!Array.isArray(value) &&
		Object.prototype.hasOwnProperty.call(value, STEP_KEY)
	);
}

/** Whether `value` is a reference of the exact form a checked plan holds: a step number and a pointer, nothing else. */
export function isWellFormedReference(value: unknown): boolean {
	return (
		isReference(value) &&
		Object.keys(value).length === 2 &&
		typeof value[STEP_KEY] === 'number' &&
		typeof value.pointer === 'string'
	);
}
