import type { ChatMessage, FileRef, SummaryMeta } from '../core/messages';
import type { TokenUsage } from '../core/usage';
import type { CallCost } from '../budget/model-catalogue';
import type { McpToolRecord } from '../tools/mcp';

/** Why a run ended. Every run ends with exactly one. */
export type FinishReason =
	| 'final'
	| 'max_steps'
	| 'max_tool_calls'
	| 'timeout'
	| 'token_budget'
	| 'llm_error'
	| 'parse_error'
	| 'tool_error'
	| 'max_output_tokens'
	| 'content_filter'
	| 'output_invalid'
	| 'loop'
	| 'budget_exhausted'
	| 'budget_unavailable'
	| 'cost_limit'
	| 'awaiting_approval'
	| 'interrupted_call'
	| 'guardrail'
	| 'plan_rejected'
	| 'plan_step_failed'
	| 'cancelled';

/** What went wrong in a step; `type` is stable for dashboards and tests. */
export interface StepError {
	type:
		| 'parse_error'
		| 'output_limit'
		| 'content_filter'
		| 'tool_not_allowed'
		| 'invalid_args'
		| 'tool_error'
		| 'tool_timeout'
		| 'llm_error'
		| 'timeout'
		| 'limit'
		| 'output_invalid'
		| 'guardrail';
	message: string;
	/** llm_error only: the provider's HTTP status, when the SDK's error carried one (e.g. 401 for a wrong API key). */
	status?: number;
}

/** One model turn and what came of it. */
export interface TraceStep {
	step: number;
	/** The tool the model asked for, with its (redacted) args. */
	action?: { tool: string; args: Record<string, unknown> };
	/** The answer, when the model finished: a string, or with `output_schema` the JSON value that matched it. */
	final?: { answer: unknown };
	/** What was fed back to the model (already cut to `observation_max_len`). */
	observation?: string;
	/** The step whose identical call this one repeated: the tool was not run again (see `loop_limit`). */
	repeat_of?: number;
	/** An "actions" reply (several tool calls in one turn, `max_parallel_calls`): each call, in the order asked. */
	calls?: TraceCall[];
	error?: StepError;
	/** Who answered this step (or failed it): the provider adapter and the model id. */
	provider?: string;
	model?: string;
	/** True when this turn was the model's one chance to repair the previous failure. */
	repair: boolean;
	/** Wall time of the whole step (model call + tool call). */
	elapsed_ms: number;
	model_ms: number;
	tool_ms?: number;
	usage?: TokenUsage;
	/** With usage: what the call cost in USD by part (catalogue or `prices`); null when the model has no price. */
	cost?: CallCost | null;
	/** A bounded excerpt of a reply that broke the protocol. */
	reply_excerpt?: string;
	/** A bounded excerpt of a leading <think> block, never parsed. */
	reasoning?: string;
	/** What the provider adapter did that matters (e.g. retried without JSON mode). */
	notices?: string[];
	/** Step 1: the files sent with the user's message, by reference (never their bytes; see src/files). */
	files?: FileRef[];
	/** The files the step's tool returned that went to the model with its observation, by reference. */
	observation_files?: FileRef[];
	/** Plan mode (issue #51): the plan this step's reply sent, once it passed its checks. */
	plan?: Array<{ step: number; description: string; tool: string; args: Record<string, unknown> }>;
	/** Plan mode: the steps of the plan this trace step ran, in order (no model call in it). */
	plan_steps?: number[];
	/** A sub-agent's run (issue #52), when this step's one call was one. */
	sub_run?: SubRun;
	/** The decisions other than allow that hooks and guardrails took at this step (issue #50; never what they found). */
	guardrails?: GuardrailDecision[];
	/** The first step of a run with MCP tools: each one's definition fingerprint and pin, as offered (see README "MCP tools"). */
	mcp_tools?: McpToolRecord[];
	/**
	 * A compaction call (step 0, before the run's first step): the summary written, the newest turn it covers,
	 * how many turns it stands for in all, and tokens before (summary so far and the turns folded) and after.
	 */
	compaction?: {
		summary: string;
		through_seq: number;
		replaced_turns: number;
		model: string;
		tokens_before: number;
		tokens_after: number;
		at: string;
	};
}

/** The run's hook points, in the order a run meets them (see src/agent/hooks). */
export type HookPoint =
	| 'before_run'
	| 'before_model'
	| 'after_model'
	| 'before_tool'
	| 'after_tool'
	| 'after_run'
	| 'on_failure';

/**
 * A decision other than allow, as the step's trace lists it (never the text that was found): who took it, at
 * which point, and hashes of what it saw, what it changed and (a built-in guardrail) its definition.
 */
export interface GuardrailDecision {
	name: string;
	by: 'guardrail' | 'hook';
	point: HookPoint;
	decision: 'deny' | 'modify' | 'redact' | 'block';
	/** before_tool, after_tool: the call's tool and, in a batch, its number. */
	tool?: string;
	call?: number;
	/** before_run: the file sent with the input whose text it checked (its shown name). */
	file?: string;
	reason?: string;
	definition_sha256?: string;
	seen_sha256: string;
	changed_sha256?: string;
}

/** One call of an "actions" step: what was asked (redacted args), what came back, how long it took. */
export interface TraceCall {
	tool: string;
	args: Record<string, unknown>;
	observation?: string;
	error?: StepError;
	elapsed_ms: number;
	/** The step (or `call n` of this step) whose identical call answered this one: the tool was not run again. */
	repeat_of?: number | string;
	/** A sub-agent's run (issue #52), when this call was one. */
	sub_run?: SubRun;
}

/**
 * A sub-agent's run under the call that started it (issue #52): the sub-agent's name, how its run ended, its own
 * steps (redacted as the parent's are), its tokens and cost (already added to the parent's `usage` and `cost`), and
 * the head of its own trace chain.
 */
export interface SubRun {
	agent: string;
	finish_reason: FinishReason;
	stop_detail?: string;
	steps: TraceStep[];
	usage: TokenUsage;
	cost: number | null;
	/** The cost by part, added to the parent's (null when a model of the sub-agent had no price). */
	cost_details: RunCost | null;
	trace_digest: string;
	/** How deep the sub-agent ran: 1 under the run that called it, 2 under a sub-agent, … */
	depth: number;
	run_id?: string; // under an audited parent: the sub-agent's own audit row, which names this run and call back
}

/** One tool's runs in a run (design §12): how often it ran, how long in all and on average, how often it failed. */
export interface ToolUsage {
	count: number;
	total_ms: number;
	avg_ms: number;
	/** Runs that failed or timed out (refused calls never ran and are not counted). */
	failures: number;
}

/** The run's own figures (design §12), from its trace. */
export interface RunMetrics {
	/** Steps that asked a model (a failover within a step counts once). */
	model_calls: number;
	/** Steps that were the model's repair turn. */
	repairs: number;
	/** Steps that ended with an error (a refused or failed call, a reply that broke the protocol, …). */
	failed_steps: number;
	/** failed_steps ÷ steps, to three decimals; 0 for a run without steps. */
	failure_rate: number;
}

/** A run's cost by part, in USD, and the price source: the catalogue (name, version, date) and whether `prices` overrode it. */
export interface RunCost extends CallCost {
	currency: 'USD';
	catalogue: string;
}

/** The output of every run: the answer, why the run ended, the redacted trace, the tools used and token usage. */
export interface AgentResult {
	/** The answer's text; with `output_schema`, the JSON text of `final_output` (a string answer stays as it is). */
	final_answer: string;
	/** With `output_schema`, when the run ended `final`: the answer as the JSON value that matched the schema. */
	final_output?: unknown;
	finish_reason: FinishReason;
	trace: TraceStep[];
	used_tools: Record<string, ToolUsage>;
	metrics: RunMetrics;
	usage: TokenUsage;
	/** This run's new turns in neutral form, for the context manager to persist. */
	messages: ChatMessage[];
	/** A sentence saying why a run that did not finish normally stopped. */
	stop_detail?: string;
	elapsed_ms: number;
	model: string;
	provider: string;
	/** What the run's model calls cost, in USD (to a millionth); null when a call's model has no price. */
	cost: number | null;
	/** The cost by part, and where the prices came from; null when a call's model has no price. */
	cost_details: RunCost | null;
	/** With a null cost: which model had no price, and how to give it one. */
	cost_notice?: string;
	/** How the history was fitted to its token budget, when the run had one (issue #31; see src/agent/memory/compaction.ts). */
	memory?: RunMemoryReport;
	/** The head of the SHA-256 hash chain over the config, the tools' schemas and every step (see traceChain). */
	trace_digest: string;
	/** With an audit database: the run's id there, and whether its row was stored before the answer went out. */
	audit?: AuditOutcome;
	/** With hooks or guardrails: how many decisions other than allow they took (each step's `guardrails` lists them). */
	guardrails_tripped?: number;
	/** Plan mode (issue #51): the plan the run executed (as approved), each step with how it stands. */
	plan?: RunPlan;
	/** With `awaiting_approval` on a plan (plan mode, approve_plan): its steps, redacted, references as written. */
	pending_plan?: {
		steps: Array<{
			step: number;
			description: string;
			tool: string;
			args: Record<string, unknown>;
		}>;
	};
	/** With `awaiting_approval`: the call that waits for a person, its args redacted. */
	pending_action?: {
		tool: string;
		args: Record<string, unknown>;
		/** A paused batch (issue #42): the number of the call the run waits at, and every call with how it stands. */
		call?: number;
		batch?: Array<{ call: number; tool: string; args: Record<string, unknown>; status: string }>;
	};
	/** With `awaiting_approval`, when the run holds files: each one's reference, for whoever approves. */
	files_held?: FileRef[];
	/** With `awaiting_approval`: everything needed to resume the run, signed (see resumeAgent). */
	run_state?: unknown;
}

/** One step of a plan in the output: as the plan wrote it (args redacted), and how it stands. */
export interface RunPlanStep {
	step: number;
	description: string;
	tool: string;
	args: Record<string, unknown>;
	status: 'pending' | 'done' | 'failed';
	error?: string;
}

/** The output's `plan`: its steps, who approved it, the plans a replan replaced (each step with how it stood). */
export interface RunPlan {
	steps: RunPlanStep[];
	/** The trace step whose reply sent the plan. */
	planned_at: number;
	approval?: { at: string; by?: string; edited?: true; denied?: true };
	replaced?: Array<{ steps: RunPlanStep[] }>;
}

/**
 * What became of a run's audit row: `stored: false` comes with a notice (and the row is tried again later,
 * unless the notice says it was set aside); `stored: true` has a notice only about earlier rows.
 */
export interface AuditOutcome {
	run_id: string;
	stored: boolean;
	notice?: string;
	/** The head of the run's record chain (every stored field, see recordDigest): keep it to pass to `audit verify --digest`. */
	record_digest?: string;
}

/** The output's `memory`: the context window and where it came from, the history's budget, what was kept, the summary written. */
export interface RunMemoryReport {
	context_window: number;
	context_window_from: 'setting' | 'catalogue' | 'default';
	budget_tokens: number;
	history_tokens: number;
	kept_turns: number;
	left_out_turns: number;
	summary?: SummaryMeta;
	notices?: string[];
}
