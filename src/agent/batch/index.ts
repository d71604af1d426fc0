// Several tool calls in one reply (issue #42): the batch runner, and a batch part way through.
export { runBatch } from './run-batch';
export type { BatchHost } from './batch-host';
export {
	batchView,
	callName,
	newBatch,
	type BatchDecisions,
	type BatchState,
	type SettledCall,
} from './batch-state';
export { batchDecisions, checkBatchDecision, checkCallDecision } from './batch-decisions';
