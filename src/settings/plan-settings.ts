// The settings of Plan Mode (issue #51): how a run executes (step by step, or a plan first), how long a plan may be,
// who approves it and what a failed step does: rows of the settings table (settings.ts spreads them in).
import * as check from './setting-checks';
import type { Setting } from './setting-types';

/** The bound of `max_plan_steps`, whatever a config says. */
export const MAX_PLAN_STEPS = 50;

/** How a run executes and what its plan may be. */
export const PLAN_SETTINGS = {
	/** `react`: one step at a time (think → act → observe); `plan`: the whole plan first, then its steps, then the answer. */
	mode: {
		default: 'react',
		check: check.oneOf(['react', 'plan']),
		meaning:
			'`react`: one tool call (or batch) per model turn, as always; `plan`: the model sends the whole job as ' +
			'`{"type":"plan","steps":[…]}` (after read-only lookups), the steps run in order with no model call ' +
			'between them, then one call writes the answer (see *Plan mode*)',
		panel: {
			collection: 'options',
			name: 'mode',
			displayName: 'Mode',
			type: 'options',
			since: 2,
			description: 'Whether the model works one tool call at a time or writes the whole plan first',
			choices: [
				{
					name: 'Step by Step (ReAct)',
					value: 'react',
					description:
						'The model calls one tool (or several read-only ones) per turn and sees each result',
				},
				{
					name: 'Plan First, Then Act',
					value: 'plan',
					description:
						'The model writes the whole plan first (steps may use earlier results); the steps run without ' +
						'model calls between them, then the model writes the answer',
				},
			],
		},
	},
	/** The most steps one plan may hold. */
	max_plan_steps: {
		default: 10,
		check: check.integer(1, MAX_PLAN_STEPS),
		meaning: `1–${MAX_PLAN_STEPS}: the most steps one plan may hold (plan mode); a longer plan gets a repair turn`,
		panel: {
			collection: 'options',
			name: 'maxPlanSteps',
			displayName: 'Max Plan Steps',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_PLAN_STEPS },
			since: 2,
			description: 'Plan mode: the most steps one plan may hold',
		},
	},
	/** A plan waits for a person before any of its steps runs. */
	approve_plan: {
		default: false,
		check: check.boolean,
		meaning:
			'plan mode: the run pauses with `pending_plan` before any step runs (`awaiting_approval`); approve runs ' +
			'exactly that plan, deny ends it `plan_rejected`, edit runs a checked plan of your own (see *Plan mode*)',
		panel: {
			collection: 'options',
			name: 'approvePlan',
			displayName: 'Require Approval of the Plan',
			type: 'boolean',
			since: 2,
			description:
				'Plan mode: the run waits with the plan for a person before any step runs; the approval covers every step, ' +
				'Tools Needing Approval included',
		},
	},
	/** What a failed plan step does: end the run, go on without it, or ask the model for a new plan. */
	on_step_failure: {
		default: 'stop',
		check: check.oneOf(['stop', 'skip', 'replan']),
		meaning:
			'plan mode: a failed step ends the run → `plan_step_failed` (`stop`), is passed over with the steps ' +
			'that read it (`skip`), or the model sends a new plan for the rest (`replan`)',
		panel: {
			collection: 'options',
			name: 'onStepFailure',
			displayName: 'On Plan Step Failure',
			type: 'options',
			since: 2,
			description: 'Plan mode: what a step that fails does to the rest of the plan',
			choices: [
				{ name: 'Stop the Run', value: 'stop', description: 'End the run with what ran' },
				{
					name: 'Skip the Step',
					value: 'skip',
					description: 'Go on; a step that uses its result fails too',
				},
				{
					name: 'Plan Again',
					value: 'replan',
					description: 'The model sees what ran and sends a new plan for the rest',
				},
			],
		},
	},
} satisfies Record<string, Setting>;
