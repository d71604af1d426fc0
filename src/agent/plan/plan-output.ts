// The output's `plan` (issue #51): the plan the run executed, each step with how it stands, and the plans a replan replaced.
import type { RunPlan, RunPlanStep } from '../../trace/types';
import type { PlanRun, PlanStep, PlanStepStatus } from '../base/plan-run';

/** The run's plan as the output shows it (the caller's redactor applies to it as to every field). */
export function planOutput(plan: PlanRun): RunPlan {
	return {
		steps: stepsWithStatus(plan.steps, plan.status, plan.errors),
		planned_at: plan.planned_at,
		...(plan.approval ? { approval: plan.approval } : {}),
		...(plan.earlier?.length
			? {
					replaced: plan.earlier.map((earlier) => ({
						steps: stepsWithStatus(earlier.steps, earlier.status, earlier.errors),
					})),
				}
			: {}),
	};
}

function stepsWithStatus(
	steps: readonly PlanStep[],
	status: Record<number, PlanStepStatus>,
	errors: Record<number, string> = {},
): RunPlanStep[] {
	return steps.map(({ step, description, tool, args }) => ({
		step,
		description,
		tool,
		args,
		status: status[step] ?? 'pending',
		...(errors[step] !== undefined ? { error: errors[step] } : {}),
	}));
}
