// Issue #50 in n8n: Agent Core version 2 with a Guardrail Workflow built from n8n's own nodes (a Set node decides).
import { readExampleWorkflows, type WorkflowJson } from '../../../../scripts/n8n-local';
import type { ScriptedReply, ScriptedRequest } from '../../../../src/demo/scripted-server';
import { e2eModel, lastUserMessageOf, promptOf } from '../model-script';

export const GUARDED_PATH = 'agent-core-guardrails';
export const JUDGE_WORKFLOW_ID = 'agentCoreGuardrailJudge';
/** "Add 1+13": the judge denies any add_numbers call with 13 in it. */
export const UNLUCKY = '[guarded] Add 1+13';
/** The model's answer holds "internal only": the judge blocks it after the run. */
export const INTERNAL = '[guarded] What is the launch code?';
export const INTERNAL_ANSWER = 'The launch code is 4711, internal only.';
export const DENIED_ANSWER = 'I was not allowed to add those.';

/** The guarded prompts' script: an add_numbers call, then an answer from what it read; any other prompt, the shared script. */
export function guardedModel(request: ScriptedRequest): ScriptedReply {
	const prompt = promptOf(request);
	if (prompt === INTERNAL) return JSON.stringify({ type: 'final', answer: INTERNAL_ANSWER });
	if (prompt !== UNLUCKY) return e2eModel(request);
	const last = lastUserMessageOf(request);
	if (last.includes('was denied')) return JSON.stringify({ type: 'final', answer: DENIED_ANSWER });
	return JSON.stringify({ type: 'action', tool: 'add_numbers', args: { a: 1, b: 13 } });
}

/** The judge: one Set node whose expressions decide from the item Agent Core sends. */
function judgeWorkflow(): WorkflowJson {
	const decision =
		"={{ $json.point === 'before_tool' && $json.args.b === 13 ? 'deny' : " +
		"($json.point === 'after_run' && String($json.answer).includes('internal only') ? 'block' : 'allow') }}";
	return {
		id: JUDGE_WORKFLOW_ID,
		name: 'Agent Core e2e guardrail: the judge',
		nodes: [
			{
				parameters: { inputSource: 'passthrough' },
				id: '5d0c7a31-2e4f-4b6a-9c8d-1e2f3a4b5c01',
				name: 'When Executed by Another Workflow',
				type: 'n8n-nodes-base.executeWorkflowTrigger',
				typeVersion: 1.1,
				position: [0, 0],
			},
			{
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{
								id: '5d0c7a31-2e4f-4b6a-9c8d-1e2f3a4b5c11',
								name: 'decision',
								value: decision,
								type: 'string',
							},
							{
								id: '5d0c7a31-2e4f-4b6a-9c8d-1e2f3a4b5c12',
								name: 'reason',
								value: 'thirteen is unlucky here',
								type: 'string',
							},
						],
					},
					includeOtherFields: false,
					options: {},
				},
				id: '5d0c7a31-2e4f-4b6a-9c8d-1e2f3a4b5c02',
				name: 'Decide',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [240, 0],
			},
		],
		connections: {
			'When Executed by Another Workflow': { main: [[{ node: 'Decide', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1', callerPolicy: 'workflowsFromSameOwner' },
		pinData: {},
	} as WorkflowJson;
}

/** examples/agent-core-workflow-tool.json on GUARDED_PATH with the judge as its Guardrail Workflow; its sub-workflows. */
export function guardedWorkflows(): WorkflowJson[] {
	const [agent, addNumbers] = readExampleWorkflows([
		'agent-core-workflow-tool.json',
		'agent-core-workflow-tool-add-numbers.json',
	]);
	const workflow: WorkflowJson = JSON.parse(JSON.stringify(agent));
	delete workflow.id;
	workflow.name = `${workflow.name} (guarded)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = GUARDED_PATH;
			node.webhookId = 'a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c50';
		}
		if (node.type.endsWith('.agentCore'))
			node.parameters.options = {
				...(node.parameters.options as Record<string, unknown>),
				guardrailWorkflow: {
					__rl: true,
					mode: 'id',
					value: JUDGE_WORKFLOW_ID,
					cachedResultName: 'the judge',
				},
				guardrailPoints: ['before_tool', 'after_run'],
			};
	}
	return [workflow, addNumbers, judgeWorkflow()];
}
