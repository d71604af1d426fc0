// The "plan" reply (issue #51): the whole job as numbered steps, each one tool call, read strictly.
import { describeType } from '../protocol/actions-turn';
import { referencesIn, renderPath, type StepReference } from './references';
import { MAX_PLAN_STEPS } from '../../settings/plan-settings';

export { MAX_PLAN_STEPS };

import type { PlanStep } from '../base/plan-run';
export type { PlanStep };

/** A plan read: its steps, and the references each step's args hold (by step number). */
export interface Plan {
	steps: PlanStep[];
	references: ReadonlyMap<number, readonly StepReference[]>;
}

/** `max_plan_steps`: the most steps one plan may hold, from 1 to MAX_PLAN_STEPS. */
export interface PlanLimits {
	maxPlanSteps: number;
}

/** A step's description longer than this is refused: it is shown to a person, one line per step. */
export const MAX_DESCRIPTION_LENGTH = 500;

const STEP_FORM = '{"step":<n>,"description":"<what it does>","tool":"<tool name>","args":{...}}';
const PLAN_KEYS = ['type', 'steps'];
const STEP_KEYS = ['step', 'description', 'tool', 'args'];

/** How one step is named to the model: as the plan numbers it. */
export const stepLabel = (step: number) => `step ${step}`;

/**
 * The steps of `{"type":"plan","steps":[…]}` (an object the protocol read, see readObject), or the sentence that
 * names the first problem and its fix, for the repair turn: exactly the keys above, steps numbered 1..n in order,
 * at most `maxPlanSteps`, each reference to an earlier step with a valid pointer. Never throws.
 */
export function readPlan(value: unknown, limits: PlanLimits): { plan: Plan } | { problem: string } {
	if (
		!Number.isInteger(limits.maxPlanSteps) ||
		limits.maxPlanSteps < 1 ||
		limits.maxPlanSteps > MAX_PLAN_STEPS
	)
		throw new RangeError(
			`max_plan_steps must be a whole number from 1 to ${MAX_PLAN_STEPS}, not ${limits.maxPlanSteps}`,
		);
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		return {
			problem: `A plan is one JSON object {"type":"plan","steps":[...]}, but it was ${describeType(value)}.`,
		};
	const turn = value as Record<string, unknown>;
	if (turn.type !== 'plan')
		return {
			problem: `A plan's "type" is "plan", but it was ${JSON.stringify(turn.type)?.slice(0, 40) ?? 'missing'}.`,
		};
	const extra = Object.keys(turn).find((key) => !PLAN_KEYS.includes(key));
	if (extra !== undefined)
		return {
			problem: `Your plan held ${JSON.stringify(extra).slice(0, 40)}; a plan holds only "type" and "steps". The final answer comes after the steps ran.`,
		};
	const steps = turn.steps;
	if (!Array.isArray(steps))
		return {
			problem: `"steps" must be an array of ${STEP_FORM} objects, but it was ${describeType(steps)}.`,
		};
	if (steps.length === 0)
		return { problem: '"steps" was empty; list at least one step, or send a final answer.' };
	if (steps.length > limits.maxPlanSteps)
		return {
			problem: `Your plan held ${steps.length} steps; at most ${limits.maxPlanSteps} (max_plan_steps). Send a shorter plan: join or leave out steps.`,
		};
	const read: PlanStep[] = [];
	const references = new Map<number, readonly StepReference[]>();
	for (const [index, step] of steps.entries()) {
		const checked = readStep(step, index + 1);
		if ('problem' in checked)
			return { problem: `${capital(stepLabel(index + 1))}: ${checked.problem}` };
		read.push(checked.step);
		if (checked.references.length > 0) references.set(index + 1, checked.references);
	}
	return { plan: { steps: read, references } };
}

function readStep(
	value: unknown,
	number: number,
): { step: PlanStep; references: StepReference[] } | { problem: string } {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		return {
			problem: `each step is an object ${STEP_FORM}, but this one was ${describeType(value)}.`,
		};
	const fields = value as Record<string, unknown>;
	const extra = Object.keys(fields).find((key) => !STEP_KEYS.includes(key));
	if (extra !== undefined)
		return {
			problem: `a step holds exactly "step", "description", "tool" and "args", but this one also held ${JSON.stringify(extra).slice(0, 40)}; leave it out.`,
		};
	if (fields.step !== number)
		return {
			problem:
				`"step" must be ${number}, but it was ${JSON.stringify(fields.step)?.slice(0, 40) ?? 'missing'}: ` +
				'number the steps 1, 2, 3, … in the order they run.',
		};
	const description = fields.description;
	if (typeof description !== 'string' || description.trim() === '')
		return { problem: '"description" must say in words what the step does, as a string.' };
	if (description.length > MAX_DESCRIPTION_LENGTH)
		return {
			problem: `"description" was ${description.length} characters long; at most ${MAX_DESCRIPTION_LENGTH}: say it in a sentence.`,
		};
	if (typeof fields.tool !== 'string' || fields.tool.trim() === '')
		return { problem: '"tool" must be the name of one of the listed tools, as a string.' };
	const args = fields.args;
	if (typeof args !== 'object' || args === null || Array.isArray(args))
		return {
			problem: `"args" must be a JSON object ({} for none), but it was ${describeType(args)}.`,
		};
	const found = referencesIn(args as Record<string, unknown>);
	if ('problem' in found) return { problem: `${found.problem}.` };
	for (const reference of found.references)
		if (reference.step >= number)
			return {
				problem:
					`${referenceWhere(reference)} reads step ${reference.step}, ` +
					(reference.step === number
						? 'which is this step itself'
						: `which runs after step ${number}`) +
					`; a step may read only the observations of earlier steps (${number === 1 ? 'step 1 has none: give the value itself' : `1 to ${number - 1}`}).`,
			};
	const step = {
		step: number,
		description,
		tool: fields.tool,
		args: args as Record<string, unknown>,
	};
	return { step, references: found.references };
}

const referenceWhere = (reference: StepReference) =>
	`the reference at ${renderPath(reference.path)}`;

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
