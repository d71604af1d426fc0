import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { ContextStore } from '../../src/context';
import { openContextStore } from '../shared/context-store';
import { mapItems } from '../shared/items';
import { toNodeError } from '../shared/node-errors';
import { runOperation, type Operation } from './operations';
import { storageMismatch } from './storage-match';

/** Every item is handled on its own (its own session); errors stay with their item under continueOnFail(). */
export async function agentContextExecute(
	this: IExecuteFunctions,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const operation = this.getNodeParameter('operation', 0) as Operation;
	let opened: { store: ContextStore; memory: boolean } | undefined;
	try {
		opened = await openContextStore(this);
	} catch (error) {
		const nodeError = toNodeError(this, error, 0);
		if (!this.continueOnFail()) throw nodeError;
		return [
			items.map((_, itemIndex) => ({
				json: { error: nodeError.message },
				pairedItem: { item: itemIndex },
			})),
		];
	}
	const { store, memory } = opened;
	// A hint, not an error: workflows saved before this check keep running as they did (issue #41).
	const mismatch = operation === 'persist' ? storageMismatch(this) : undefined;
	if (mismatch) this.addExecutionHints?.({ message: mismatch, location: 'outputPane' });
	try {
		return [
			await mapItems(this, async (itemIndex) => {
				// Prepare passes the item's files on (a chat upload, an attachment): Agent Core after it sends them.
				const binary = operation === 'prepare' ? items[itemIndex].binary : undefined;
				return {
					json: await runOperation(this, store, operation, itemIndex),
					...(binary ? { binary } : {}),
					pairedItem: { item: itemIndex },
				};
			}),
		];
	} finally {
		if (!memory) await store.close();
	}
}
