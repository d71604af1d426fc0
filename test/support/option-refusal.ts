import { InputError } from '../../src/index';

/**
 * What `use` threw or rejected with (issue #48's unknown-option refusals). A use that went through is returned
 * as a plain Error saying so, so the test fails on the error's class and fields rather than hanging on a value.
 */
export async function refusalOf(use: () => unknown): Promise<unknown> {
	try {
		await use();
		return new Error('not refused: the call went through');
	} catch (error) {
		return error;
	}
}

/** Expects an InputError naming `field`, suggesting `meant` (the known option it was probably meant to be). */
export function expectNearMiss(error: unknown, where: string, field: string, meant: string): void {
	expect(error).toBeInstanceOf(InputError);
	expect(error).toMatchObject({
		field,
		message: expect.stringContaining(
			`${where}: unknown option "${field}" (did you mean "${meant}"?); known options: `,
		),
		fix: `Rename ${field} to ${meant}.`,
	});
}
