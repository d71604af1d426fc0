import { NodeApiError, NodeOperationError, type IWorkflowNodeContext } from 'n8n-workflow';
import { AgentCoreError } from '../../src/run-path';

/**
 * A NodeOperationError that keeps our message. n8n rewrites any message mentioning a common error code
 * (ECONNREFUSED, ETIMEDOUT…) into a generic sentence; ours already names the service, the address and the fix.
 */
export function nodeError(
	context: Pick<IWorkflowNodeContext, 'getNode'>,
	message: string,
	itemIndex: number,
	description?: string,
): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, {
		itemIndex,
		...(description ? { description } : {}),
	});
	error.message = message;
	return error;
}

/** What a node's panel calls an engine error's field (`AgentCoreError#field`): each node knows its own panel. */
export type FieldNamer = (field: string) => string;

/** The panel's names of the fields both nodes have that are not config keys. */
const SHARED_FIELD_NAMES: Record<string, string> = { redis: 'the Redis credential' };

/** A field as both nodes' panels name it, else as the engine names it. */
export const sharedFieldName: FieldNamer = (field) =>
	Object.hasOwn(SHARED_FIELD_NAMES, field) ? SHARED_FIELD_NAMES[field] : field;

/**
 * Engine errors (typed, in src/) become n8n errors here, and only here: the message, and the fix with the
 * field in the words of the node's panel (`nameOf`, which the node passes; the shared names without one).
 */
export function toNodeError(
	context: Pick<IWorkflowNodeContext, 'getNode'>,
	error: unknown,
	itemIndex: number,
	nameOf: FieldNamer = sharedFieldName,
): NodeOperationError | NodeApiError {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	if (error instanceof AgentCoreError)
		return nodeError(context, error.message, itemIndex, error.fixNaming(nameOf(error.field)));
	return nodeError(context, error instanceof Error ? error.message : String(error), itemIndex);
}
