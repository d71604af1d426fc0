// Governance → Durable Runs (version 2): the run key an item's run is checkpointed under, and where.
import type { IExecuteFunctions } from 'n8n-workflow';
import type { CheckpointStore } from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';
import type { ExecutionRedis } from './execution-redis';

/**
 * The item's durable-run options, when Governance → Durable Runs is on (the caller asks only then). The run key is kept per
 * workflow, node and n8n setup (`<workflow id>:<node name>:<Run Key>@<instance>`): two Agent Core nodes given
 * the same key from one request are two runs, a key from a request never meets another workflow's runs, and
 * two setups sharing a Redis (staging and production, or one whose database was reset, where execution ids
 * start at 1 again) never meet each other's. The instance is n8n's instance id, derived from its encryption
 * key: the same on the main and every worker of a setup. Its first 16 hex digits tell setups apart.
 */
export async function readDurableRun(
	context: IExecuteFunctions,
	itemIndex: number,
	redis: ExecutionRedis,
): Promise<{ runKey?: string; checkpoints?: CheckpointStore }> {
	const value = context.getNodeParameter('runKey', itemIndex, '') as unknown;
	const key = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (key === '') {
		throw nodeError(
			context,
			'Run Key is ' +
				(typeof value === 'string' || value === undefined || value === null
					? 'empty'
					: `not text but ${Array.isArray(value) ? 'an array' : typeof value}`),
			itemIndex,
			'Set Run Key to what names this run across its attempts: the default ' +
				"{{ $json.headers?.['idempotency-key'] || $execution.id }}:{{ $runIndex }}:{{ $itemIndex }}, " +
				'or a key from the request such as ' +
				"{{ $('Webhook').item.json.headers['idempotency-key'] }}.",
		);
	}
	const instance = context.getInstanceId().slice(0, 16);
	return {
		runKey: `${context.getWorkflow().id ?? ''}:${context.getNode().name}:${key}@${instance}`,
		checkpoints: await redis.checkpoints(itemIndex),
	};
}
