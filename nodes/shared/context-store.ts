// The conversation store of Agent Context and its memory sub-node: Redis from the credential, or this process's memory.
import type { IExecuteFunctions, IWorkflowNodeContext } from 'n8n-workflow';
import { type ContextStore, RedisContextStore, sharedMemoryContextStore } from '../../src/context';
import { nodeError } from './node-errors';
import { redisConnectionFromCredential } from './redis-credential';

/** What opening a store needs of n8n: the panel, the credential, the node (for errors). */
export type StoreContext = IWorkflowNodeContext & Pick<IExecuteFunctions, 'getCredentials'>;

/**
 * A store for this execution, from the Storage field: Redis opens its own connection (the caller closes it when the
 * execution ends), memory is the process's one (`memory: true`, nothing to close). In-Memory is refused in queue mode.
 */
export async function openContextStore(
	context: StoreContext,
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
