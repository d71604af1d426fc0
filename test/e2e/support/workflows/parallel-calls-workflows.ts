// Issue #42 in n8n: the scripted model's batches of workflow-tool calls, and the workflows they run in.
import { readExampleWorkflows, type WorkflowJson } from '../../../../scripts/n8n-local';
import { readBatchObservations } from '../../../../src/agent/protocol/prompt';
import type { ScriptedReply, ScriptedRequest } from '../../../../src/demo/scripted-server';
import { e2eModel, lastUserMessageOf, promptOf } from '../model-script';

/** The webhook path of the batch workflow. */
export const BATCH_PATH = 'agent-core-workflow-tools-batch';
/** "Add each pair: 1+2, 3+4": an add_numbers call per pair (the shipped example's sub-workflow). */
export const PAIRS = 'Add each pair:';
/** "Look up orders: A-1001, A-1002": a lookup_order call per order (a sub-workflow with an HTTP Request). */
export const ORDERS = 'Look up orders:';
/** With either prompt: the second call's args break its schema (a text `b`, a number `order`). */
export const BROKEN = 'with a broken call';
/** What the model answers once it reads the repair turn of a batch that ran nothing. */
export const REPAIR_READ = 'repair read';
export const LOOKUP_WORKFLOW_ID = 'agentCoreLookupOrder';

/** The calls the prompt asks for, one per pair or order, in the order written. */
function callsOf(prompt: string): Array<{ tool: string; args: Record<string, unknown> }> {
	const broken = (index: number) => prompt.includes(BROKEN) && index === 1;
	if (prompt.includes(ORDERS))
		return [...prompt.matchAll(/[A-Z]-(\d+)/g)].map(([order, digits], index) => ({
			tool: 'lookup_order',
			args: { order: broken(index) ? Number(digits) : order },
		}));
	return [...prompt.matchAll(/(\d+)\+(\d+)/g)].map(([, a, b], index) => ({
		tool: 'add_numbers',
		args: { a: Number(a), b: broken(index) ? 'four' : Number(b) },
	}));
}

/** One observation as the final answer shows it: add_numbers' sum, lookup_order's target answer, or a failure as it came. */
function shown(text: string): string {
	let value;
	try {
		value = JSON.parse(text);
	} catch {
		return text; // a failed call's error
	}
	return value.sum !== undefined ? String(value.sum) : `${value.path} with ${value.together}`;
}

/**
 * The PAIRS and ORDERS prompts: one "actions" reply with their calls, then a final answer listing each
 * call's observation by its number ("1: 3, 2: 7" or "1: /orders/A-1001 with 3, …"), or REPAIR_READ after
 * a repair turn. Any other prompt gets the shared e2e script.
 */
export function batchModel(request: ScriptedRequest): ScriptedReply {
	const prompt = promptOf(request);
	if (!prompt.includes(PAIRS) && !prompt.includes(ORDERS)) return e2eModel(request);
	const last = lastUserMessageOf(request);
	const observed = readBatchObservations(last);
	if (observed)
		return JSON.stringify({
			type: 'final',
			answer: observed.map(({ call, text }) => `${call}: ${shown(text)}`).join(', '),
		});
	if (last.includes('None of the calls ran'))
		return JSON.stringify({ type: 'final', answer: REPAIR_READ });
	return JSON.stringify({ type: 'actions', calls: callsOf(prompt) });
}

/**
 * A sub-workflow that looks an order up at `targetUrl`/orders/<order> with n8n's HTTP Request node; its
 * answer (the target's JSON) is the workflow's output, so the tool's observation.
 */
function lookupOrderWorkflow(targetUrl: string): WorkflowJson {
	return {
		id: LOOKUP_WORKFLOW_ID,
		name: 'Agent Core e2e tool: look up an order',
		nodes: [
			{
				parameters: { inputSource: 'passthrough' },
				id: '7c1e4d2a-0b3f-4e5a-8c6d-9e0f1a2b3c01',
				name: 'When Executed by Another Workflow',
				type: 'n8n-nodes-base.executeWorkflowTrigger',
				typeVersion: 1.1,
				position: [0, 0],
			},
			{
				parameters: { url: `=${targetUrl}/orders/{{ $json.order }}`, options: {} },
				id: '7c1e4d2a-0b3f-4e5a-8c6d-9e0f1a2b3c02',
				name: 'Look Up',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [240, 0],
			},
		],
		connections: {
			'When Executed by Another Workflow': {
				main: [[{ node: 'Look Up', type: 'main', index: 0 }]],
			},
		},
		settings: { executionOrder: 'v1', callerPolicy: 'workflowsFromSameOwner' },
		pinData: {},
	} as WorkflowJson;
}

const LOOKUP_TOOL = {
	name: 'lookup_order',
	description: 'Looks an order up by its number, e.g. A-1001. Returns the order system answer.',
	workflowId: { __rl: true, mode: 'id', value: LOOKUP_WORKFLOW_ID },
	argsSchema: JSON.stringify({
		type: 'object',
		properties: { order: { type: 'string', pattern: '^[A-Z]-[0-9]+$' } },
		required: ['order'],
		additionalProperties: false,
	}),
};

/**
 * examples/agent-core-workflow-tool.json on BATCH_PATH (node version 2: Max Parallel Tool Calls at its
 * default 4), with lookup_order beside add_numbers, both Read-Only Tools, room for the batches' calls;
 * and the two sub-workflows. `targetUrl`: where lookup_order's HTTP Request goes.
 */
export function batchWorkflows(targetUrl: string): WorkflowJson[] {
	const [agent, addNumbers] = readExampleWorkflows([
		'agent-core-workflow-tool.json',
		'agent-core-workflow-tool-add-numbers.json',
	]);
	const workflow: WorkflowJson = JSON.parse(JSON.stringify(agent));
	delete workflow.id;
	workflow.name = `${workflow.name} (batch)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = BATCH_PATH;
			node.webhookId = 'c3d2e1f0-5a4b-4c3d-9e8f-7a6b5c4d3e21';
		}
		if (node.type.endsWith('.agentCore')) {
			const options = node.parameters.options as Record<string, any>;
			node.parameters.options = {
				...options,
				maxToolCalls: 6,
				readOnlyTools: 'add_numbers, lookup_order',
				workflowTools: { tools: [...options.workflowTools.tools, LOOKUP_TOOL] },
			};
		}
	}
	return [workflow, addNumbers, lookupOrderWorkflow(targetUrl)];
}
