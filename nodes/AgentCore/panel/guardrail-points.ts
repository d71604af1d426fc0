// The hook points as version 2's Guardrail Points offers them (issue #50), and the ones it starts with.
import type { INodePropertyOptions } from 'n8n-workflow';
import type { HookPoint } from '../../../src/run-path';

/** Where the Guardrail Workflow is called unless Guardrail Points says otherwise: every point with content to judge. */
export const DEFAULT_GUARDRAIL_POINTS: HookPoint[] = [
	'before_run',
	'before_tool',
	'after_tool',
	'after_run',
];

/** n8n-style names, in the order a run meets the points. */
export const GUARDRAIL_POINT_CHOICES: INodePropertyOptions[] = [
	{
		name: 'Before the Run (the Input)',
		value: 'before_run',
		description: "Sees the user's message; may allow, modify (input) or block",
	},
	{
		name: 'Before Each Model Call (the Messages)',
		value: 'before_model',
		description: 'Sees the messages of one model call; may allow, modify (messages) or block',
	},
	{
		name: 'After Each Model Call (the Reply)',
		value: 'after_model',
		description: "Sees the model's reply; may allow or block",
	},
	{
		name: 'Before Each Tool Call (the Arguments)',
		value: 'before_tool',
		description: 'Sees the tool and its args; may allow, deny, modify (args) or block',
	},
	{
		name: 'After Each Tool Call (the Result)',
		value: 'after_tool',
		description: 'Sees what the call returned; may allow, modify (observation) or block',
	},
	{
		name: 'After the Run (the Answer)',
		value: 'after_run',
		description: 'Sees the final answer; may allow, modify (answer) or block',
	},
	{
		name: 'On Failure (Observes Only)',
		value: 'on_failure',
		description: 'Sees how a run without an answer ended; its decision changes nothing',
	},
];
