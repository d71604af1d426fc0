/**
 * Replay and fork of audited runs (issue #39's room above the loop): a stored run re-run from its record,
 * offline or against a candidate model or config, or forked from one of its steps. Each starts from a row
 * that verifies (record-trust.ts) and judges side effects by the real tool's rule (recorded-tools.ts).
 */
export { replayRecord, type ReplayReport } from './replay';
export {
	counterfactualReplay,
	firstDivergence,
	type CounterfactualRunReport,
	type Divergence,
	type RunBehaviour,
	type RunFigures,
} from './counterfactual';
export type { Candidate } from './candidate';
export { counterfactualTotals, type CounterfactualTotals } from './counterfactual-totals';
export {
	recordedTools,
	type RecordedCallLedger,
	type RecordedToolsMode,
	type UnrecordedCall,
} from './recorded-tools';
export { forkAuditedRun, ForkError, type ForkOptions, type ForkResult } from './fork';
export {
	recordMismatch,
	UnverifiedRecordError,
	type RecordMismatch,
	type RecordTrustOptions,
} from './record-trust';
export { MissingFilesError, questionWithFiles, recordedFiles, recordedSizes } from './record-files';
export {
	replayGuardrails,
	AuditReadError,
	type GuardrailReplayReport,
	type ReplayGuardrailsOptions,
	type ReplayedDecision,
	type RunGuardrailsReport,
	type UnverifiedRun,
	type WouldEnd,
} from './guardrails';
