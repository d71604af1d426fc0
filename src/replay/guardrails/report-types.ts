// What trying guardrails and hooks on past runs reports (issue #50): per run, each decision and where, never what was found.
import type { FinishReason, GuardrailDecision, HookPoint } from '../../trace/types';
import type { RecordMismatch } from '../record-trust';

/** A decision other than allow the chain would have taken on the record: who, where, what. */
export interface ReplayedDecision {
	/** The guardrail's name, or the hook's (`hook <n>` when it has none). */
	name: string;
	by: GuardrailDecision['by'];
	point: HookPoint;
	decision: GuardrailDecision['decision'];
	/** The run's step (0: before the first model call, where before_run checks the input). */
	step: number;
	/** before_tool, after_tool: the call's tool and, in a batch, its number. */
	tool?: string;
	call?: number;
	/** A hook's own reason, or why a hook failed closed (a built-in guardrail gives none: it would name the find). */
	reason?: string;
	/** Taken on the record after the point where the run would already have gone otherwise (a call denied). */
	after_divergence?: true;
}

/** Where the run would have ended otherwise: a block that ends it, or a call denied that had run. */
export interface WouldEnd {
	how: 'blocked' | 'denied';
	name: string;
	by: GuardrailDecision['by'];
	point: HookPoint;
	step: number;
	tool?: string;
	call?: number;
}

/** One audited run, its record run through the guardrails and hooks. */
export interface RunGuardrailsReport {
	run_id: string;
	workflow_id?: string;
	created_at: string;
	recorded: { finish_reason: FinishReason; steps: number };
	/** A block, or a denied call, where the recorded run had gone on (or ended otherwise). */
	ends_differently: boolean;
	would_end?: WouldEnd;
	decisions: ReplayedDecision[];
	/** What was checked: the input, the stored replies (after_model hooks only), calls' args, observations, answers. */
	checked: {
		input: boolean;
		replies: number;
		tool_calls: number;
		observations: number;
		answers: number;
	};
}

/** A selected row that does not verify, named as `audit verify` names the part. */
export interface UnverifiedRun {
	run_id: string;
	first_mismatch: RecordMismatch;
}

/** The whole replay: each run, or — when any selected row does not verify — none, and those rows named. */
export interface GuardrailReplayReport {
	/** How many guardrails and hooks were tried. */
	tried: { guardrails: number; hooks: number };
	runs: RunGuardrailsReport[];
	/** Rows that do not verify; when any, no run was checked (a record that was changed proves nothing). */
	unverified: UnverifiedRun[];
	total: {
		runs: number;
		/** Runs on which anything was decided. */
		tripped: number;
		decisions: number;
		/** The runs that would have ended otherwise. */
		ends_differently: string[];
	};
}
