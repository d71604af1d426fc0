// A plan waiting for a person (issue #51, approve_plan): the pause, its output, and the decision that resumes it.
import type { AgentConfig } from '../../settings/config';
import type { Tool } from '../../tools/tool';
import type { Redactor } from '../../trace/redact';
import { InputError } from '../../core/input-error';
import type { StepOutcome } from '../base/step-outcome';
import type { PlanRun } from '../base/plan-run';
import type { RunLedger } from '../base/run-ledger';
import { awaitingApproval } from '../calls';
import { progressOf } from '../pause/progress';
import { signProgress, type RunProgress } from '../pause/paused-run';
import { readPlan } from './plan-reply';
import { checkPlan } from './check-plan';
import { groupSteps } from './plan-groups';

/** A person's answer to a plan: run it, refuse it (the run ends `plan_rejected`), or run their own plan instead. */
export type PlanDecision = ({ approve: true } | { deny: string } | { edit: { steps: unknown } }) & {
	/** Who decided, as the caller knows them (kept in the plan's approval and the audit record). */
	by?: string;
};

/**
 * The pause of a run whose plan passed its checks and waits for a person: `pending_plan` (the steps, redacted as
 * `pending_action` is, each with its references as written: what a step's args become is known only when the
 * steps before it ran) and the signed `run_state`, whose sealed part holds the plan exactly as it will run.
 */
export function pausePlan(
	ledger: RunLedger,
	step: number,
	context: { redactor: Redactor; stateSecret: string; config: AgentConfig },
): StepOutcome {
	const plan = ledger.plan!;
	const { redactor, stateSecret, config } = context;
	const state = signProgress(progressOf(ledger, step), redactor, stateSecret, config);
	const steps = plan.steps.map(({ step: number, description, tool, args }) => ({
		step: number,
		description,
		tool,
		args,
	}));
	const paused = { pending_plan: redactor.value({ steps }), run_state: state };
	return awaitingApproval(
		`the plan of ${steps.length} steps waits for a person's approval`,
		paused,
	);
}

/** Whether a paused run's state waits on its plan (rather than on a call). */
export const waitsOnPlan = (paused: RunProgress) => paused.plan?.phase === 'awaiting_approval';

/**
 * A person's decision on a paused plan, checked before the state is used up (a typo can be fixed and sent again),
 * and applied to the run's progress: approve (the plan runs, as sealed), deny (the run ends `plan_rejected` with
 * the reason), or edit (the person's plan, read and checked as the model's is; it runs instead). InputError names
 * the field and the fix.
 */
export function decidePlan(
	paused: RunProgress,
	given: unknown,
	context: { tools: ReadonlyMap<string, Tool>; config: AgentConfig; now?: Date },
): void {
	const plan = paused.plan!;
	const decision = readDecision(given);
	const at = (context.now ?? new Date()).toISOString();
	const by = decision.by !== undefined ? { by: decision.by } : {};
	if ('deny' in decision) {
		plan.phase = 'rejected';
		plan.rejection = decision.deny;
		plan.approval = { at, ...by, denied: true };
		return;
	}
	if ('edit' in decision) {
		const read = readPlan(
			{ type: 'plan', steps: decision.edit.steps },
			{
				maxPlanSteps: context.config.max_plan_steps,
			},
		);
		if ('problem' in read) throw new InputError('decision.edit.steps', read.problem);
		const callsLeft = Math.max(0, context.config.max_tool_calls - paused.tool_calls);
		const problem = checkPlan(read.plan, {
			tools: context.tools,
			config: context.config,
			trustedText: paused.trusted_text,
			callsLeft,
		});
		if (problem !== undefined) throw new InputError('decision.edit.steps', problem);
		plan.steps = read.plan.steps;
		plan.groups = groupSteps(read.plan, context.tools);
		plan.status = Object.fromEntries(read.plan.steps.map(({ step }) => [step, 'pending']));
		plan.approval = { at, ...by, edited: true };
	} else plan.approval = { at, ...by };
	plan.phase = 'running';
}

/** A denied plan ends the run here, the person's reason in `stop_detail`; undefined for any other plan. */
export function rejectedPlan(plan: PlanRun | undefined): StepOutcome | undefined {
	if (plan?.phase !== 'rejected') return undefined;
	const reason = plan.rejection || '(no reason given)';
	return {
		next: 'finish',
		reason: 'plan_rejected',
		detail: `a person rejected the plan: ${reason}`,
	};
}

const FORMS =
	'{"approve": true}, {"deny": "<reason>"} or {"edit": {"steps": [<the plan\'s steps, as the model writes them>]}}, each with an optional "by"';

function readDecision(given: unknown): PlanDecision {
	const value = (given ?? {}) as Record<string, unknown>;
	if (typeof value !== 'object' || Array.isArray(value))
		throw new InputError('decision', `decision must be one of ${FORMS}`);
	const { by } = value;
	if (by !== undefined && (typeof by !== 'string' || by.length > 200))
		throw new InputError('decision.by', 'decision.by must be a name of at most 200 characters');
	const extra = Object.keys(value).find((key) => !['approve', 'deny', 'edit', 'by'].includes(key));
	const kinds = ['approve', 'deny', 'edit'].filter((key) => key in value);
	if (extra !== undefined || kinds.length !== 1)
		throw new InputError(
			extra === 'calls' ? 'decision.calls' : 'decision',
			`the run waits on its plan, not on a call: decision must be one of ${FORMS}`,
		);
	const named = by === undefined ? {} : { by: by as string };
	if (value.approve === true) return { approve: true, ...named };
	if (typeof value.deny === 'string') return { deny: value.deny.slice(0, 2000), ...named };
	const edit = value.edit as Record<string, unknown> | undefined;
	if (typeof edit === 'object' && edit !== null && !Array.isArray(edit) && 'steps' in edit)
		return { edit: { steps: edit.steps }, ...named };
	throw new InputError('decision', `decision must be one of ${FORMS}`);
}
