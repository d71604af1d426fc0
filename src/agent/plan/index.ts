// Plan Mode's own parts (issue #51): the plan reply read, its references, its check before anything runs, its groups.
export { readPlan, stepLabel, MAX_PLAN_STEPS, MAX_DESCRIPTION_LENGTH } from './plan-reply';
export type { Plan, PlanLimits, PlanStep } from './plan-reply';
export { referencesIn, isReference, STEP_KEY, type StepReference } from './references';
export { parsePointer, resolvePointer } from './json-pointer';
export { resolveArgs, type StepObservations } from './resolve-args';
export { checkPlan, type PlanCheckContext } from './check-plan';
export { groupSteps } from './plan-groups';
export { planTurn, type PlanTurnContext } from './plan-turn';
export { runPlanGroup, type ResumedGroup } from './plan-group';
export { planOutput } from './plan-output';
export { decidePlan, rejectedPlan, waitsOnPlan, type PlanDecision } from './plan-approval';
