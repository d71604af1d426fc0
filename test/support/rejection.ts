/** Settles with the rejection reason, or fails the test when the promise resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
	let value: unknown;
	try {
		value = await promise;
	} catch (error) {
		return error;
	}
	throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
}
