// Governance → Durable Runs' two fields (version 2's panel); execute/governance/durable-runs.ts reads them when a run starts.
import type { INodeProperties } from 'n8n-workflow';

/**
 * The default Run Key, right on both n8n lines: the request's Idempotency-Key header when the item has one (a
 * Webhook's item), else the execution; then the node's run within it and the item. n8n 1.x re-processes a
 * stalled job under the same execution id; n8n 2.x does not, and the caller's retry of the request (the same
 * header) is a new execution that finds the checkpoint by the header. A loop that runs the node twice in one
 * execution gets two runs.
 */
export const RUN_KEY_DEFAULT =
	"={{ $json.headers?.['idempotency-key'] || $execution.id }}:{{ $runIndex }}:{{ $itemIndex }}";

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
			"What names this run across its attempts. The default takes the request's " +
			'Idempotency-Key header when the item has one, else the execution (with the node ' +
			'run and item): n8n 1.x re-processes a stalled job in the same execution, and in ' +
			'n8n 2.x a caller retrying with the same Idempotency-Key finds the run. Without ' +
			'that header, n8n 2.x starts over: use another key from the request, such as an order number.',
		displayOptions: { show: { durableRuns: [true] } },
	},
];
