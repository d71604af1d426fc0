// The fields of Operation → Resume a Paused Run: the signed run state and the person's decision.
import type { INodeProperties } from 'n8n-workflow';

/** Shown only when resuming: what to resume and how the person decided. */
export const resumeProperties: INodeProperties[] = [
	{
		displayName: 'Run State',
		name: 'runState',
		type: 'json',
		default: '={{ $json.run_state }}',
		required: true,
		description:
			'The run_state of the paused run (from the Needs Approval output), unchanged: it is signed, and refused when altered or used before',
		displayOptions: { show: { operation: ['resume'] } },
	},
	{
		displayName: 'Decision',
		name: 'decision',
		type: 'options',
		options: [
			{ name: 'Approve', value: 'approve', description: 'Run the call exactly once, and go on' },
			{
				name: 'Deny',
				value: 'deny',
				description: 'Do not run it; the model is told it was refused and why',
			},
			{
				name: 'Edit',
				value: 'edit',
				description: 'Run it with other arguments, checked like any call',
			},
		],
		default: 'approve',
		description:
			"The person's answer: set it with an expression on the approval step's answer (approve, deny or edit)",
		displayOptions: { show: { operation: ['resume'] } },
	},
	{
		displayName: 'Reason',
		name: 'denyReason',
		type: 'string',
		default: '',
		description: 'Why the call was refused; the model reads it',
		displayOptions: { show: { operation: ['resume'], decision: ['deny'] } },
	},
	{
		displayName: 'Edited Arguments',
		name: 'editedArgs',
		type: 'json',
		default: '={{ $json.pending_action.args }}',
		description: 'The arguments to run the call with instead, as one JSON object',
		displayOptions: { show: { operation: ['resume'], decision: ['edit'] } },
	},
];

/** Version 2 also decides a paused batch's calls by number (issue #42); version 1 never pauses a batch. */
const callDecisions: INodeProperties = {
	displayName: 'Call Decisions',
	name: 'callDecisions',
	type: 'json',
	default: '{ "1": { "approve": true } }',
	description:
		'Decisions by call number for a paused batch, e.g. { "2": { "approve": true }, "3": { "deny": ' +
		'"over budget" } }; the call the run waits at (pending_action.call) must be among them',
	displayOptions: { show: { operation: ['resume'], decision: ['calls'] } },
};

/**
 * Version 2's words for a paused plan (issue #51): each decision's description says what it does to a plan, and
 * Edited Arguments starts from the plan's steps when the run waits on one (from the call's args otherwise, as before).
 */
const FOR_PLANS: Readonly<Record<string, Partial<INodeProperties>>> = {
	denyReason: {
		description:
			'Why the call was refused, which the model reads; for a plan, the stop_detail of the run it ends',
	},
	editedArgs: {
		default: '={{ $json.pending_plan ?? $json.pending_action.args }}',
		description:
			'The arguments to run the call with instead, as one JSON object; for a plan (pending_plan), ' +
			'{"steps": [...]} as the model writes them, checked as its plan is',
	},
};
const PLAN_DECISIONS: Readonly<Record<string, string>> = {
	approve: 'Run the call exactly once, or the whole plan as it was shown, and go on',
	deny: 'Do not run it; the model is told it was refused and why. A plan: the run ends plan_rejected.',
	edit: "Run it with other arguments, checked like any call; or run a plan of the person's own",
};

/** The resume fields with Decision's batch choice (in n8n's alphabetical order), Call Decisions under it, and the words for plans. */
export function withBatchAndPlanDecisions(properties: INodeProperties[]): INodeProperties[] {
	const decideEach = {
		name: 'Decide Each Call (Batch)',
		value: 'calls',
		description:
			'A paused batch: approve, deny or edit its calls by number (pending_action.batch lists them)',
	};
	const withChoice = properties.map((property) => {
		if (property.name !== 'decision' || !property.options)
			return { ...property, ...FOR_PLANS[property.name] };
		const options = (
			property.options as Array<{ name: string; value: string; description?: string }>
		).map((choice) => ({
			...choice,
			description: PLAN_DECISIONS[choice.value] ?? choice.description,
		}));
		return { ...property, options: [options[0], decideEach, ...options.slice(1)] };
	});
	return [...withChoice, callDecisions];
}
