// Governance → Durable Runs (version 2): the run key an item's run is checkpointed under, and where.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { CheckpointStore } from '../../src';
import { nodeError } from '../shared/node-errors';
import type { ExecutionRedis } from './execution-redis';
import { governanceSwitch } from './panel-versions';

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
      'Whether each completed step is checkpointed in Redis under the Run Key, so that a run n8n starts again after a worker died goes on after its last completed step: no completed model call or tool call is repeated. Needs the Redis and Run State credentials.',
  },
  {
    displayName: 'Run Key',
    name: 'runKey',
    type: 'string',
    default: RUN_KEY_DEFAULT,
    description:
      'What names this run across its attempts. The default (execution, node run, item) holds when n8n 1.x re-processes a stalled job. A retry in n8n 2.x is a new execution: use a key from the request instead, such as its Idempotency-Key header or an order number.',
    displayOptions: { show: { durableRuns: [true] } },
  },
];

/**
 * The item's durable-run options, none unless Governance → Durable Runs is on. The run key is kept per
 * workflow, node and n8n setup (`<workflow id>:<node name>:<Run Key>@<instance>`): two Agent Core nodes given
 * the same key from one request are two runs, a key from a request never meets another workflow's runs, and
 * two setups sharing a Redis (staging and production, or one whose database was reset, where execution ids
 * start at 1 again) never meet each other's. The instance is n8n's instance id, derived from its encryption
 * key: the same on the main and every worker of a setup. Its first 16 hex digits tell setups apart.
 */
export async function readDurableRun(context: IExecuteFunctions, itemIndex: number, redis: ExecutionRedis): Promise<{ runKey?: string; checkpoints?: CheckpointStore }> {
  if (!governanceSwitch(context, itemIndex, 'durableRuns')) return {};
  const value = context.getNodeParameter('runKey', itemIndex, '') as unknown;
  const key = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
  if (key === '') {
    throw nodeError(
      context,
      `Run Key is ${typeof value === 'string' || value === undefined || value === null ? 'empty' : `not text but ${Array.isArray(value) ? 'an array' : typeof value}`}`,
      itemIndex,
      "Set Run Key to what names this run across its attempts: the default {{ $execution.id }}:{{ $runIndex }}:{{ $itemIndex }}, or a key from the request such as {{ $('Webhook').item.json.headers['idempotency-key'] }}.",
    );
  }
  const instance = context.getInstanceId().slice(0, 16);
  return { runKey: `${context.getWorkflow().id ?? ''}:${context.getNode().name}:${key}@${instance}`, checkpoints: await redis.checkpoints(itemIndex) };
}
