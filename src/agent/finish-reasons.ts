/**
 * Where a run stops: every finish reason, the file beside the loop that decides it, and when. The loop
 * (run-agent.ts) returns each of them as its step's `finish` outcome; the others decide and the loop ends the run.
 * test/agent/finish-reasons.test.ts holds this list against the code: each named file really returns its reason, and no
 * other file of src/agent/ sets one.
 */
import type { FinishReason } from '../trace/types';

/** One finish reason: the file (its path under src/agent/) whose code returns it, and the condition in a sentence. */
export interface FinishReasonSource {
	decidedIn: string;
	when: string;
}

export const FINISH_REASONS: Readonly<Record<FinishReason, FinishReasonSource>> = {
	final: {
		decidedIn: 'model/model-turn.ts',
		when: 'the model answered with a final reply that passed every check',
	},
	max_steps: {
		decidedIn: 'run-agent.ts',
		when: 'max_steps model turns passed without a final answer',
	},
	max_tool_calls: {
		decidedIn: 'calls/run-calls.ts',
		when: 'the model asked for a tool call past max_tool_calls',
	},
	timeout: {
		decidedIn: 'base/run-clock.ts',
		when: "the run's timeout passed, or a model call's single_call_timeout (run-clock.ts names every time limit)",
	},
	token_budget: {
		decidedIn: 'model/model-turn.ts',
		when: 'the tokens used reached total_token_budget before the next model call',
	},
	llm_error: {
		decidedIn: 'model/model-turn.ts',
		when: 'a model call failed after its retries (model-call.ts) and no fallback took over',
	},
	parse_error: {
		decidedIn: 'base/streaks.ts',
		when: 'a reply broke the protocol twice in a row (one repair turn was given)',
	},
	tool_error: { decidedIn: 'base/streaks.ts', when: 'tool calls failed twice in a row' },
	max_output_tokens: {
		decidedIn: 'base/streaks.ts',
		when: "the model's reply was cut at its output limit twice in a row",
	},
	output_invalid: {
		decidedIn: 'base/streaks.ts',
		when: 'the final answer broke output_schema twice in a row',
	},
	content_filter: {
		decidedIn: 'model/model-turn.ts',
		when: "the provider withheld the reply (its safety filter or the model's refusal)",
	},
	guardrail: {
		decidedIn: 'hooks/blocked.ts',
		when: 'a hook or a built-in guardrail blocked the run, or a hook failed, hung or replied with no decision (it fails closed)',
	},
	loop: {
		decidedIn: 'calls/run-calls.ts',
		when: 'the model repeated a call the loop breaker had already answered',
	},
	budget_exhausted: {
		decidedIn: 'model/shared-budget.ts',
		when: 'the shared budget of the scope is spent for this period',
	},
	budget_unavailable: {
		decidedIn: 'model/shared-budget.ts',
		when: "the shared budget's ledger (Redis) could not be read or charged",
	},
	cost_limit: {
		decidedIn: 'model/shared-budget.ts',
		when: "the run's cost reached max_cost, or a cost under a cost limit cannot be computed",
	},
	awaiting_approval: {
		decidedIn: 'calls/step-calls.ts',
		when: 'a call to a tool in approval_required waits for a person (the run is paused)',
	},
	interrupted_call: {
		decidedIn: 'calls/run-calls.ts',
		when: 'a durable run resumed after a call with side effects that may or may not have run',
	},
	plan_rejected: {
		decidedIn: 'plan/plan-approval.ts',
		when: 'a person denied the plan of a run in plan mode with approve_plan (the reason in stop_detail)',
	},
	plan_step_failed: {
		decidedIn: 'plan/plan-group.ts',
		when: 'a step of the plan failed and on_step_failure is stop (what ran is in the output)',
	},
	cancelled: { decidedIn: 'base/run-clock.ts', when: "the caller's signal aborted the run" },
};
