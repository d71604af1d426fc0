// The hook points as version 2's Guardrail Points offers them (issue #50), with the library hook method of each.
import type { INodePropertyOptions } from 'n8n-workflow';
import type { AgentHook, HookPoint } from '../../../src/run-path';

type Method = Exclude<keyof AgentHook, 'name'>;

export const GUARDRAIL_POINT_METHODS: Record<HookPoint, Method> = {
	before_run: 'beforeRun',
	before_model: 'beforeModel',
	after_model: 'afterModel',
	before_tool: 'beforeTool',
	after_tool: 'afterTool',
	after_run: 'afterRun',
	on_failure: 'onFailure',
};

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
