// Issue #51 in n8n: Agent Core version 2 in plan mode, from the shipped approval and streaming examples.
import { readExampleWorkflows, type WorkflowJson } from '../../../../scripts/n8n-local';
import type { ScriptedReply, ScriptedRequest } from '../../../../src/demo/scripted-server';
import { e2eModel, lastUserMessageOf, promptOf } from '../model-script';

/** examples/agent-core-approval.json in plan mode with Require Approval of the Plan. */
export const PLAN_APPROVAL_PATH = 'agent-core-plan-approval';
/** examples/agent-core-streaming.json in plan mode. */
export const PLAN_STREAM_PATH = 'agent-core-plan-stream';
/** `[plan] Tell the team: <text>`: a one-step plan posting <text> with feishu_bot, then "Sent to the team: <text>". */
const NOTIFY = /^\[plan\] Tell the team: (.+)$/;
/** `[plan] Count: <JSON list>`: a two-step json_transform plan (the list, then its length), then "<n> items". */
const COUNT = /^\[plan\] Count: (\[.*\])$/;

/** What the plan prompts' plans say their steps do (the item's and the stream's numbered lists show these). */
export const STEP_WORDS = {
	post: 'Post the note to the team',
	list: 'Read the list',
	count: 'Count its items',
};

/** The plan prompts: a plan, then, once the steps' results came back (`Observations:`), the answer; others, the shared script. */
export function planModel(request: ScriptedRequest): ScriptedReply {
	const prompt = promptOf(request);
	const notify = NOTIFY.exec(prompt);
	const count = COUNT.exec(prompt);
	if (!notify && !count) return e2eModel(request);
	if (lastUserMessageOf(request).includes('Observations:'))
		return JSON.stringify({
			type: 'final',
			answer: notify ? `Sent to the team: ${notify[1]}` : `${JSON.parse(count![1]).length} items`,
		});
	const steps = notify
		? [{ step: 1, description: STEP_WORDS.post, tool: 'feishu_bot', args: { text: notify[1] } }]
		: [
				{
					step: 1,
					description: STEP_WORDS.list,
					tool: 'json_transform',
					args: { data: JSON.parse(count![1]), expression: '@' },
				},
				{
					step: 2,
					description: STEP_WORDS.count,
					tool: 'json_transform',
					args: { data: { $step: 1, pointer: '' }, expression: 'length(@)' },
				},
			];
	return JSON.stringify({ type: 'plan', steps });
}

/** A copy of `workflow` on `path` (new webhook ids) whose Agent Core nodes run in plan mode with `options`. */
function inPlanMode(
	workflow: WorkflowJson,
	path: string,
	idTail: string,
	options: Record<string, unknown>,
): WorkflowJson {
	const copy: WorkflowJson = JSON.parse(JSON.stringify(workflow));
	delete copy.id;
	copy.name = `${copy.name} (plan mode)`;
	for (const [index, node] of copy.nodes.entries()) {
		if (node.type === 'n8n-nodes-base.webhook') node.parameters.path = path;
		if (node.webhookId) node.webhookId = `5e1a0c2b-7d3f-4a6b-9c8d-${idTail}${index}`;
		if (node.type.endsWith('.agentCore'))
			node.parameters.options = {
				...(node.parameters.options as object),
				mode: 'plan',
				...options,
			};
	}
	return copy;
}

/**
 * The approval example with Require Approval of the Plan (its Ask for Approval answers with the plan, the chat's
 * `output` and the Wait node's resume URL), and the streaming example, both in plan mode.
 */
export function planWorkflows(): WorkflowJson[] {
	const [approval, streaming] = readExampleWorkflows([
		'agent-core-approval.json',
		'agent-core-streaming.json',
	]);
	const approvalInPlanMode = inPlanMode(approval, PLAN_APPROVAL_PATH, '0e1f2a3b4c7', {
		approvePlan: true,
	});
	const ask = approvalInPlanMode.nodes.find((node) => node.name === 'Ask for Approval')!;
	ask.parameters.responseBody =
		'={{ JSON.stringify({ finish_reason: $json.finish_reason, pending_plan: $json.pending_plan, ' +
		'pending_action: $json.pending_action, output: $json.output, resume_url: $execution.resumeUrl }) }}';
	return [approvalInPlanMode, inPlanMode(streaming, PLAN_STREAM_PATH, '0e1f2a3b4c8', {})];
}
