// The one tool-call path (issues #42, #49): a step's calls, one or several, and the calls of a paused or interrupted step.
export { runCalls } from './run-calls';
export { awaitingApproval, newBatch, stepCalls } from './step-calls';
export type { CallsRun } from './calls-run';
export { callName, type BatchDecisions, type BatchState } from '../pause/calls-state';
export {
	batchDecisions,
	checkBatchDecision,
	checkCallDecision,
	resumedDecisions,
} from './call-decisions';
