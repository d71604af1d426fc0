import { sleep, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import { sharedFieldName, toNodeError, type FieldNamer } from './node-errors';

/** Options → Batch Processing: how many items run at once, and a pause between batches. */
export interface Batching {
	/** Items run at the same time; 1 runs them one after another. */
	size: number;
	/** Milliseconds to wait between batches (e.g. to stay under a provider's rate limit). */
	delayMs: number;
}

export const ONE_AT_A_TIME: Batching = { size: 1, delayMs: 0 };

/**
 * The per-item loop both nodes share: one output item per input item, in input order and paired with it;
 * under continueOnFail() an item's error becomes `{ error }` for that item and the others go on. With a
 * batch size above 1, that many items run at once (as n8n's AI Agent does with Batch Processing); each
 * batch finishes before the next starts, and without continueOnFail() the batch's first failed item (in
 * input order) fails the node once its batch is done. An engine error's fix names its field as `nameOf` says
 * (the node's panel).
 */
export async function mapItems(
	context: IExecuteFunctions,
	run: (itemIndex: number) => Promise<INodeExecutionData>,
	batching: Batching = ONE_AT_A_TIME,
	nameOf: FieldNamer = sharedFieldName,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	const count = context.getInputData().length;
	const size = Math.max(1, Math.floor(batching.size) || 1);
	for (let start = 0; start < count; start += size) {
		if (start > 0 && batching.delayMs > 0) await sleep(batching.delayMs);
		const indexes = Array.from(
			{ length: Math.min(size, count - start) },
			(_, offset) => start + offset,
		);
		const settled = await Promise.allSettled(indexes.map((itemIndex) => run(itemIndex)));
		settled.forEach((outcome, offset) => {
			const itemIndex = indexes[offset];
			if (outcome.status === 'fulfilled') {
				output.push(outcome.value);
				return;
			}
			const nodeError = toNodeError(context, outcome.reason, itemIndex, nameOf);
			if (!context.continueOnFail()) throw nodeError;
			output.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
		});
	}
	return output;
}
