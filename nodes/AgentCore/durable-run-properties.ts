// Governance → Durable Runs' two fields (version 2's panel); durable-runs.ts reads them when a run starts.
import type { INodeProperties } from 'n8n-workflow';

/**
 * The default Run Key: the execution, the node's run within it and the item. n8n 1.x re-processes a stalled
 * job under the same execution id, so a run it starts again finds its checkpoint; a loop that runs the node
 * twice in one execution gets two runs.
 */
export const RUN_KEY_DEFAULT = '={{ $execution.id }}:{{ $runIndex }}:{{ $itemIndex }}';

/** The two Governance fields; version 2's panel places them (V2/description.ts). */
export const durableRunProperties: INodeProperties[] = [
	{
		displayName: 'Durable Runs',
		name: 'durableRuns',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description:
			'Whether each completed step is checkpointed in Redis under the Run Key, so that ' +
			'a run n8n starts again after a worker died goes on after its last completed ' +
			'step: no completed model call or tool call is repeated. Needs the Redis and Run ' +
			'State credentials.',
	},
	{
		displayName: 'Run Key',
		name: 'runKey',
		type: 'string',
		default: RUN_KEY_DEFAULT,
		description:
			'What names this run across its attempts. The default (execution, node run, ' +
			'item) holds when n8n 1.x re-processes a stalled job. A retry in n8n 2.x is a ' +
			'new execution: use a key from the request instead, such as its Idempotency-Key ' +
			'header or an order number.',
		displayOptions: { show: { durableRuns: [true] } },
	},
];
