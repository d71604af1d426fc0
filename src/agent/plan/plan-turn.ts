// A model's reply in plan mode (issue #51): a plan read and checked whole, a lookup while planning, the answer after the steps.
import type { AgentConfig } from '../../settings/config';
import type { Tool } from '../../tools/tool';
import type { TraceStep } from '../../trace/types';
import type { ToolCallRequest } from '../protocol/actions-turn';
import { failedStep, type StepOutcome } from '../base/step-outcome';
import { planning, type PlanRun } from '../base/plan-run';
import type { RunLedger } from '../base/run-ledger';
import { readPlan } from './plan-reply';
import { checkPlan } from './check-plan';
import { changesThings, groupSteps } from './plan-groups';
import { pausePlan } from './plan-approval';
import type { Redactor } from '../../trace/redact';

/** What a reply in plan mode is read against. */
export interface PlanTurnContext {
	config: AgentConfig;
	tools: ReadonlyMap<string, Tool>;
	ledger: RunLedger;
	/** The plan went through its checks: the listener hears it (an event). */
	onPlan?: (plan: PlanRun, step: number) => void;
	redactor: Redactor;
	/** The run's signing key: with approve_plan the run pauses with its plan (configureRun required the key). */
	stateSecret?: string;
}

type Calls = { calls: ToolCallRequest[]; form?: 'action' };

const ANSWER_NOW =
	'The plan has run and its results are above: reply with the final answer, {"type":"final","answer":…}, ' +
	'not with another call or plan.';

/**
 * The step's outcome for a reply of a run in plan mode, or the calls to run. A plan is read (readPlan) and checked
 * against the run's tools and calls left (checkPlan) before any of it runs: a problem is a repair turn naming the
 * step, nothing run; a plan that passes becomes the run's (ledger.plan) and its steps run from the next step of the
 * loop. While planning, calls run only when none has side effects (lookups); after the steps ran, only an answer is
 * taken. Anything else passes through as it came.
 */
export function planTurn(
	entry: TraceStep,
	turn: StepOutcome | Calls | { planned: unknown },
	context: PlanTurnContext,
): StepOutcome | Calls {
	const { config, tools, ledger } = context;
	const isPlanning = planning(config.mode, ledger.plan);
	if ('planned' in turn) {
		if (!isPlanning) return protocolFailure(entry, ANSWER_NOW);
		const read = readPlan(turn.planned, { maxPlanSteps: config.max_plan_steps });
		if ('problem' in read) return protocolFailure(entry, read.problem);
		const callsLeft = Math.max(0, config.max_tool_calls - ledger.toolCalls);
		const { trustedText } = ledger;
		const problem = checkPlan(read.plan, { tools, config, trustedText, callsLeft });
		if (problem !== undefined) return protocolFailure(entry, problem);
		const before = ledger.plan;
		const plan: PlanRun = {
			steps: read.plan.steps,
			groups: groupSteps(read.plan, tools),
			next: 0,
			status: Object.fromEntries(read.plan.steps.map(({ step }) => [step, 'pending'])),
			errors: {},
			observations: {},
			phase: config.approve_plan ? 'awaiting_approval' : 'running',
			planned_at: entry.step,
			entries: before?.entries ?? 0,
			...(before
				? {
						earlier: [
							...(before.earlier ?? []),
							{ steps: before.steps, status: before.status, errors: before.errors },
						],
					}
				: {}),
		};
		ledger.plan = plan;
		entry.plan = plan.steps.map((step) => ({ ...step }));
		context.onPlan?.(plan, entry.step);
		if (plan.phase !== 'awaiting_approval') return { next: 'continue' };
		const { redactor, stateSecret } = context;
		return pausePlan(ledger, entry.step, { redactor, stateSecret: stateSecret!, config });
	}
	if (!('calls' in turn)) return turn;
	if (ledger.plan?.phase === 'answering') return protocolFailure(entry, ANSWER_NOW);
	if (!isPlanning) return turn;
	const writes = turn.calls.find(({ tool, args }) => {
		const known = tools.get(tool);
		return known !== undefined && changesThings(known, args);
	});
	if (writes === undefined) return turn;
	return protocolFailure(
		entry,
		`${writes.tool} changes something, and nothing that does runs while you plan: only read-only tools run ` +
			'now, to look things up. Put this call in the plan as a step, {"type":"plan","steps":[…]}, so that it ' +
			'runs with the plan. Nothing ran.',
	);
}

/** A reply that broke plan mode's rules: a protocol error, one repair turn. */
function protocolFailure(entry: TraceStep, message: string): StepOutcome {
	return failedStep(entry, { type: 'parse_error', message }, 'parse_error');
}
