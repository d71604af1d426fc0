// Version 2's Options → Guardrail Workflow and Guardrail Points (issue #50): an n8n workflow as one of the run's hooks.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	RelatedExecution,
} from 'n8n-workflow';
import {
	HOOK_METHODS,
	type AgentHook,
	type HookData,
	type HookDecision,
	type HookPoint,
} from '../../../../src/run-path';
import { DEFAULT_GUARDRAIL_POINTS } from '../../panel/guardrail-points';
import { nodeError } from '../../../shared/node-errors';

/**
 * The hook that calls the chosen workflow at the chosen points: it gets one item `{point, run_id, step, tool?,
 * args?, observation?, answer?, input?}` and returns one item `{decision, reason?, args? | observation? |
 * answer? | input?}`. A workflow that fails, returns no item or anything but a decision, or takes over the hook
 * limit (10 s) fails closed: the engine ends the run `guardrail` naming the workflow and the problem.
 */
export function readGuardrailWorkflow(
	context: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	subExecutions: RelatedExecution[],
): AgentHook[] {
	const chosen = options.guardrailWorkflow as
		| string
		| { value?: string; cachedResultName?: string };
	const workflowId = typeof chosen === 'object' ? chosen?.value : chosen;
	if (!workflowId) return [];
	const points = (options.guardrailPoints as HookPoint[] | undefined) ?? DEFAULT_GUARDRAIL_POINTS;
	if (points.length === 0)
		throw nodeError(
			context,
			'Guardrail Points is empty: the Guardrail Workflow would never be called',
			itemIndex,
			'Choose the points it is called at (e.g. Before Each Tool Call), or remove the Guardrail Workflow.',
		);
	const shown = typeof chosen === 'object' ? (chosen?.cachedResultName ?? workflowId) : workflowId;
	const name = `guardrail workflow "${shown}"`;
	const call = (data: HookData) => askWorkflow(context, { workflowId, name, subExecutions }, data);
	const hook: AgentHook = { name };
	for (const point of points) hook[HOOK_METHODS[point]] = call;
	return [hook];
}

async function askWorkflow(
	context: IExecuteFunctions,
	target: { workflowId: string; name: string; subExecutions: RelatedExecution[] },
	data: HookData,
): Promise<HookDecision> {
	// The run's id: a durable run's key, else this execution's id.
	const item: IDataObject = { ...(data as unknown as IDataObject) };
	item.run_id = data.run_id ?? context.getExecutionId();
	const input: INodeExecutionData[] = [{ json: item }];
	const result = await context.executeWorkflow({ id: target.workflowId }, input, undefined, {
		parentExecution: {
			executionId: context.getExecutionId(),
			workflowId: context.getWorkflow().id ?? '',
		},
	});
	if (result.executionId)
		target.subExecutions.push({ executionId: result.executionId, workflowId: target.workflowId });
	const items = (result.data?.[0] ?? []) as INodeExecutionData[];
	if (items.length !== 1)
		throw new Error(
			`returned ${items.length} items; it must return one item {"decision": "allow" | "deny" | "modify" | "block", …}`,
		);
	return items[0].json as unknown as HookDecision;
}
