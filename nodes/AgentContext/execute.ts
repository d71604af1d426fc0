import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { type ContextStore, RedisContextStore, sharedMemoryContextStore } from '../../src/context';
import { mapItems } from '../shared/items';
import { nodeError, toNodeError } from '../shared/node-errors';
import { redisConnectionFromCredential } from '../shared/redis-credential';
import { runOperation, type Operation } from './operations';
import { storageMismatch } from './storage-match';

/** A store for this execution: Redis opens its own connection (closed in `finally`), memory is the process's one. */
async function openStore(
	context: IExecuteFunctions,
): Promise<{ store: ContextStore; memory: boolean }> {
	const storage = context.getNodeParameter('storage', 0) as 'redis' | 'memory';
	// Read at execute time: each execution may land on another worker, whose memory holds other sessions.
	if (storage === 'memory' && process.env.EXECUTIONS_MODE === 'queue') {
		throw nodeError(
			context,
			'In-Memory storage does not work in queue mode: each execution may run on another worker, which does not see this history',
			0,
			'Set Storage to Redis (and pick a Redis credential). n8n refuses its own Simple Memory in queue mode for the same reason.',
		);
	}
	if (storage === 'memory') return { store: sharedMemoryContextStore(), memory: true };
	const credentials = await context.getCredentials('agentCoreRedisApi');
	const store = new RedisContextStore({ shared: redisConnectionFromCredential(credentials) });
	return { store, memory: false };
}

/** Every item is handled on its own (its own session); errors stay with their item under continueOnFail(). */
export async function agentContextExecute(
	this: IExecuteFunctions,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const operation = this.getNodeParameter('operation', 0) as Operation;
	let opened: { store: ContextStore; memory: boolean } | undefined;
	try {
		opened = await openStore(this);
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
