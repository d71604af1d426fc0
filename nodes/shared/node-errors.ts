import { NodeApiError, NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { ConfigError, InputError, RunStateError } from '../../src';
import { ContextStoreError, InvalidContextInputError } from '../../src/context';

/**
 * A NodeOperationError that keeps our message. n8n rewrites any message mentioning a common error code
 * (ECONNREFUSED, ETIMEDOUT…) into a generic sentence; ours already names the service, the address and the fix.
 */
export function nodeError(context: IExecuteFunctions, message: string, itemIndex: number, description?: string): NodeOperationError {
  const error = new NodeOperationError(context.getNode(), message, { itemIndex, ...(description ? { description } : {}) });
  error.message = message;
  return error;
}

/** Engine errors (typed, in src/) become n8n errors here, and only here, naming the field and the fix. */
export function toNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError | NodeApiError {
  if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
  if (error instanceof InputError || error instanceof InvalidContextInputError) {
    return nodeError(context, error.message, itemIndex, `Check the field behind "${error.field}".`);
  }
  if (error instanceof ConfigError) {
    return nodeError(context, error.message, itemIndex, `Check the setting behind "${error.key}".`);
  }
  if (error instanceof RunStateError) {
    return nodeError(context, error.message, itemIndex, 'Map the run_state of the paused run unchanged (Needs Approval output), into an Agent Core with the settings it paused with.');
  }
  if (error instanceof ContextStoreError) {
    return nodeError(context, error.message, itemIndex, 'Nothing was written. Check the Redis credential and that Redis is running.');
  }
  return nodeError(context, error instanceof Error ? error.message : String(error), itemIndex);
}
