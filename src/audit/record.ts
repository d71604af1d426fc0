// The shape of an audited run as stored: the output, the replies, the chain links and the record chain.
import type { ChatMessage } from '../core/messages';
import type { TokenUsage } from '../core/usage';
import type { FinishReason, RunCost, RunMetrics, RunPlan, TraceStep } from '../trace/types';
import type { JsonSchema } from '../validation/validate';
import type { ParentRun } from './parent-run';

/** One allowed tool of an audited run: its argument schema and that schema's hash, as the chain took it. */
export interface AuditTool {
	name: string;
	schema: JsonSchema;
	schema_hash: string;
	/** Whether its calls change anything (see Tool.sideEffects): `by_args` when that depends on the call. */
	side_effects: boolean | 'by_args';
}

/** One step as stored: the step as the output's trace holds it, the model's reply (redacted), and its chain link. */
export interface AuditStep {
	step: TraceStep;
	/** The model's whole reply, redacted; absent for a step without one (a failed call, a step before a resume). */
	reply?: string;
	/** The chain's link after this step (see traceChain). */
	link: string;
}

/** A forked run's origin (issue #33): the audited run it started from and the step of that run it took over at. */
export interface ForkedFrom {
	run_id: string;
	step: number;
	/**
	 * Issue #38: present (false) only when the origin did not verify and the fork was asked to go on anyway
	 * (`unverified`); `mismatch` is the part verify named. Covered by the record chain with the rest of
	 * `forked_from`, so the mark cannot be removed unseen; forks of runs that verified store neither.
	 */
	verified?: false;
	mismatch?: string;
}

/** Where a run came from: n8n fills workflow, execution and node; the CLI and library leave them out. */
export interface AuditOrigin {
	workflow_id?: string;
	execution_id?: string;
	node_name?: string;
}

/** Everything the audit keeps of one run (issue #19), already redacted: enough to verify and to replay it. */
export interface AuditRecord extends AuditOrigin {
	run_id: string;
	created_at: Date;
	session_id?: string;
	model: string;
	provider: string;
	/** The resolved config, redacted: what the chain's config hash is computed from. */
	config: Record<string, unknown>;
	config_hash: string;
	tools: AuditTool[];
	/** The first link of the chain: config hash and tool schema hashes. */
	chain_base: string;
	steps: AuditStep[];
	/** The turns the run answered (the user's message and, with an answer, the answer). */
	messages: ChatMessage[];
	finish_reason: FinishReason;
	stop_detail?: string;
	final_answer: string;
	final_output?: unknown;
	usage: TokenUsage;
	/** Version 4: the audited run this one was forked from, and the step it started from (see forkAuditedRun); absent for any other run. */
	forked_from?: ForkedFrom;
	/** Version 3: the run's cost by part in USD and the catalogue it came from (the output's `cost_details`); null when unpriced. */
	cost?: RunCost | null;
	/**
	 * Version 5 (issue #51): a planned run's plan as the output's `plan` holds it — the steps as approved, each with
	 * its status, who approved it and when, the plans a replan replaced. Absent for a run without a plan (version 4).
	 */
	plan?: RunPlan;
	/**
	 * Version 6 (issue #52): a sub-agent's run names the run and call it ran under (see ParentRun); the parent's
	 * step names this run back (`sub_run.run_id`, `sub_run.trace_digest`). Absent for a run a caller started.
	 */
	parent_run?: ParentRun;
	metrics: RunMetrics;
	elapsed_ms: number;
	trace_digest: string;
	/**
	 * 2 for rows written since the record chain (every field above covered, see record-chain.ts); 1 (or
	 * absent) for rows written before it, whose chain covers only the config, tool schemas and steps.
	 */
	chain_version?: 1 | 2 | 3 | 4 | 5 | 6;
	/** Version 2: each covered field's hash and each step's reply hash. */
	record_hashes?: RecordHashes;
	/** Version 2: the record chain's head, as the output's `audit.record_digest` carried it. */
	record_digest?: string;
}

/**
 * The run fields the record chain covers, in the order verify names them: who and where, what was asked
 * and allowed, the steps' order, who answered, how it ended, its figures, and the trace chain's head.
 * `steps` is the list of stored step numbers in order (a step row removed, added or moved shows here).
 */
export const RECORD_FIELDS = [
	'run_id',
	'created_at',
	'session_id',
	'workflow_id',
	'execution_id',
	'node_name',
	'config',
	'tools',
	'messages',
	'steps',
	'model',
	'provider',
	'finish_reason',
	'stop_detail',
	'final_answer',
	'final_output',
	'usage',
	'metrics',
	'elapsed_ms',
	'trace_digest',
	'cost',
	'forked_from',
	'plan',
	'parent_run',
] as const;
export type RecordField = (typeof RECORD_FIELDS)[number];

/** Each covered field's hash, and each step's reply hash in step order (stored as `record_hashes`). */
export type RecordHashes = Record<RecordField, string> & { replies: string[] };
