// Issue #52 in n8n: an Agent Core Tool ("Researcher", its own OpenAI Chat Model, json_transform and n8n's Calculator
// on its Tool input) under n8n's AI Agent and under Agent Core, each workflow answering at its webhook with what the
// parent returned.
import type { WorkflowJson } from '../../../../scripts/n8n-local';
import { readObservation } from '../../../../src/agent/protocol/prompt';
import type { ScriptedReply, ScriptedRequest } from '../../../../src/demo/scripted-server';
import { e2eModel, lastUserMessageOf } from '../model-script';
import { openAiModelNode } from './openai-model-node';
import { subAgentMemoryModel, subAgentMemoryWorkflows } from './sub-agent-memory-workflows';

export const AI_AGENT_PATH = 'agent-core-tool-under-ai-agent';
/** Under n8n's AI Agent 2.2, which calls the tool the node supplies (LangChain's AgentExecutor) instead of running the node. */
export const AI_AGENT_2_PATH = 'agent-core-tool-under-ai-agent-2';
export const AGENT_CORE_PATH = 'agent-core-tool-under-agent-core';
/** The sub-agent's name on the canvas, so its tool's name. */
export const CHILD = 'Researcher';
/** n8n's Calculator tool sub-node on the Researcher's Tool input: its name on the canvas, so its tool's name. */
export const CALCULATOR = 'Calculator';
/** What the Researcher has the Calculator multiply the count by. */
export const FACTOR = 37;
/** The model the sub-agent's own Chat Model names, and the one Agent Core as the parent names. */
export const CHILD_MODEL = 'gpt-5-mini';
const AGENT_CORE_PARENT_MODEL = 'gpt-4.1-mini';
/**
 * "[delegate] <list>": the parent hands the list to the Researcher, which counts it with json_transform and has the
 * Calculator multiply the count by FACTOR.
 */
const DELEGATE = /^\[delegate\] (\[.*\])$/;

/** A workflow saved with Agent Core's old tool copy (type agentCoreTool, version 2) on Agent Core's Tool input. */
export const OLD_COPY_PATH = 'agent-core-old-tool-copy';
/** The copy's own model (its Agent Core credential), and "[old-copy] <question>": the parent asks it <question>. */
const OLD_COPY_MODEL = 'gpt-4.1-nano';
const OLD_COPY_ASKS = /^\[old-copy\] (.+)$/;

export const taskFor = (list: string) => `How many items are in ${list}?`;
/** The Researcher's answer: its product is read from the Calculator's observation, so only a run of it gives it. */
export const childAnswer = (count: number) =>
	`There are ${count} items; ${FACTOR} times that is ${count * FACTOR}.`;

/** The number in an observation of the Researcher's tools (json_transform's "5", the Calculator's "185"), else it. */
const numberIn = (text: string) => /-?\d+(?:\.\d+)?/.exec(text)?.[0] ?? text;

/**
 * The Researcher's turn (Agent Core on CHILD_MODEL): json_transform on the list of its task, then the Calculator on the
 * count json_transform observed, then the answer with the product the Calculator observed.
 */
function researcherTurn(request: ScriptedRequest, task: string): string {
	const list = /in (\[.*\])\?$/.exec(task)?.[1] ?? '[]';
	const observation = readObservation(lastUserMessageOf(request));
	if (observation?.tool === 'json_transform')
		return JSON.stringify({
			type: 'action',
			tool: CALCULATOR,
			args: { input: `${numberIn(observation.text)} * ${FACTOR}` },
		});
	if (observation?.tool === CALCULATOR) {
		const answer = `There are ${JSON.parse(list).length} items; ${FACTOR} times that is`;
		return JSON.stringify({ type: 'final', answer: `${answer} ${numberIn(observation.text)}.` });
	}
	return JSON.stringify({
		type: 'action',
		tool: 'json_transform',
		args: { data: JSON.parse(list), expression: 'length(@)' },
	});
}

/**
 * n8n's AI Agent (tools bound: a Researcher tool call, then its result in words), the Researcher (researcherTurn) and
 * Agent Core as the parent (the Researcher call, then its observation in words); anything else, the shared script. Read
 * from the parsed messages, where a tool call and its output come back as an assistant and a user turn (Responses API
 * and Chat Completions alike).
 */
export function subAgentModel(request: ScriptedRequest): ScriptedReply {
	const remembering = subAgentMemoryModel(request);
	if (remembering !== undefined) return remembering;
	const tools = (request.body as { tools?: Array<{ name?: string; function?: { name?: string } }> })
		.tools;
	const { messages } = request;
	const firstUser = messages.find((message) => message.role === 'user')?.content ?? '';
	const assistantTurns = messages.filter((message) => message.role === 'assistant');
	if (tools?.some((tool) => (tool.function?.name ?? tool.name) === CHILD)) {
		if (assistantTurns.length > 0) return `The researcher says: ${lastUserMessageOf(request)}`;
		const list = DELEGATE.exec(firstUser)?.[1] ?? '[]';
		return { text: '', toolCalls: [{ name: CHILD, arguments: { task: taskFor(list) } }] };
	}
	if (request.model === CHILD_MODEL) return researcherTurn(request, firstUser);
	if (request.model === OLD_COPY_MODEL)
		return JSON.stringify({ type: 'final', answer: `Old copy: ${firstUser}` });
	const asked = OLD_COPY_ASKS.exec(firstUser);
	if (request.model === AGENT_CORE_PARENT_MODEL && asked)
		return assistantTurns.length === 0
			? JSON.stringify({ type: 'action', tool: 'Old_Copy', args: { question: asked[1] } })
			: JSON.stringify({ type: 'final', answer: 'The old copy answered.' });
	const delegated = DELEGATE.exec(firstUser);
	if (request.model === AGENT_CORE_PARENT_MODEL && delegated)
		return assistantTurns.length === 0
			? JSON.stringify({ type: 'action', tool: CHILD, args: { task: taskFor(delegated[1]) } })
			: JSON.stringify({ type: 'final', answer: `${CHILD} says: ${observed(request)}` });
	return e2eModel(request);
}

/** What the last observation a request carries says, as the model reads it. */
const observed = (request: ScriptedRequest) =>
	readObservation(lastUserMessageOf(request))?.text ?? lastUserMessageOf(request);

const openAiModel = (
	name: string,
	id: string,
	model: string,
	position: [number, number],
	extra: Record<string, unknown> = {},
) => ({ ...openAiModelNode(name, model, extra), id, position });

const connect = (to: string, type: string) => ({ [type]: [[{ node: to, type, index: 0 }]] });

/** Webhook → `parent` → Respond, with the Researcher (its Child Model and Calculator) on the parent's Tool input. */
function workflow(
	name: string,
	path: string,
	idTail: string,
	parent: Record<string, any>,
	extra: any[],
	respond: string,
): WorkflowJson {
	const id = (n: number) => `5b2a7c10-52aa-4c0e-9d52-${idTail}${String(n).padStart(4, '0')}`;
	const nodes = [
		{
			parameters: { httpMethod: 'POST', path, responseMode: 'responseNode', options: {} },
			id: id(1),
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: id(9),
		},
		{ ...parent, id: id(2), position: [260, 0] },
		{
			parameters: {
				toolDescription: 'Counts the items of a list; give it the whole question with the list.',
				provider: 'connected',
				allowedTools: ['json_transform'],
				options: { developerText: 'You count with json_transform.' },
			},
			id: id(3),
			name: CHILD,
			type: 'n8n-nodes-agent-core.agentCoreTool',
			typeVersion: 3,
			position: [420, 240],
		},
		openAiModel('Child Model', id(4), CHILD_MODEL, [420, 440]),
		{
			parameters: {},
			id: id(7),
			name: CALCULATOR,
			type: '@n8n/n8n-nodes-langchain.toolCalculator',
			typeVersion: 1,
			position: [620, 440],
		},
		...extra.map((node, index) => ({ ...node, id: id(5 + index) })),
		{
			parameters: { respondWith: 'json', responseBody: respond, options: {} },
			id: id(8),
			name: 'Respond',
			type: 'n8n-nodes-base.respondToWebhook',
			typeVersion: 1.1,
			position: [560, 0],
		},
	];
	const connections: Record<string, unknown> = {
		Webhook: connect(parent.name, 'main'),
		[parent.name]: connect('Respond', 'main'),
		[CHILD]: connect(parent.name, 'ai_tool'),
		'Child Model': connect(CHILD, 'ai_languageModel'),
		[CALCULATOR]: connect(CHILD, 'ai_tool'),
	};
	for (const node of extra) connections[node.name] = connect(parent.name, 'ai_languageModel');
	return {
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		pinData: {},
	} as unknown as WorkflowJson;
}

/** n8n's AI Agent of version `typeVersion` with its OpenAI Chat Model, answering at `path`. */
const underAiAgent = (path: string, idTail: string, typeVersion: number) =>
	workflow(
		`Agent Core Tool under n8n's AI Agent ${typeVersion}`,
		path,
		idTail,
		{
			parameters: {
				promptType: 'define',
				text: '={{ $json.body.prompt }}',
				options: { returnIntermediateSteps: true },
			},
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion,
		},
		// AI Agent 2.2 refuses a model on the Responses API ("not supported in 2.2 version"): Chat Completions for it.
		[
			openAiModel(
				'Parent Model',
				'',
				'gpt-4o-mini',
				[200, 240],
				typeVersion < 3 ? { responsesApiEnabled: false } : {},
			),
		],
		'={{ JSON.stringify({ output: $json.output, steps: $json.intermediateSteps, execution_id: $execution.id }) }}',
	);

/**
 * The workflows: under n8n's AI Agent 3.1 and 2.2 (each on its OpenAI Chat Model), under Agent Core version 2, the old
 * tool copy, and the sub-agent with a memory of its own (sub-agent-memory-workflows.ts).
 */
export function subAgentWorkflows(): WorkflowJson[] {
	return [
		underAiAgent(AI_AGENT_PATH, 'a1a1a1a1', 3.1),
		underAiAgent(AI_AGENT_2_PATH, 'c3c3c3c3', 2.2),
		underAgentCore(),
		oldCopyWorkflow(),
		...subAgentMemoryWorkflows(),
	];
}

/** Webhook → Agent Core version 2 (on the Agent Core credential) → Respond, the Researcher on its Tool input. */
function underAgentCore(): WorkflowJson {
	return workflow(
		'Agent Core Tool under Agent Core',
		AGENT_CORE_PATH,
		'b2b2b2b2',
		{
			parameters: {
				provider: 'openai',
				model: { __rl: true, mode: 'id', value: AGENT_CORE_PARENT_MODEL },
				prompt: '={{ $json.body.prompt }}',
				options: {},
			},
			name: 'Agent Core',
			type: 'n8n-nodes-agent-core.agentCore',
			typeVersion: 2,
			credentials: {
				agentCoreOpenAiApi: { id: 'agentCoreE2eCred', name: 'Agent Core e2e: scripted model' },
			},
		},
		[],
		'={{ JSON.stringify({ final_answer: $json.final_answer, finish_reason: $json.finish_reason, usage: $json.usage, trace: $json.trace, execution_id: $execution.id }) }}',
	);
}

/** The Agent Core workflow with the old copy, as n8n 2.41 saved it, on the Tool input in place of the Researcher. */
function oldCopyWorkflow(): WorkflowJson {
	const copy: any = JSON.parse(JSON.stringify(underAgentCore()));
	copy.name = "Agent Core's old tool copy under Agent Core";
	const webhook = copy.nodes.find((node: any) => node.name === 'Webhook');
	webhook.parameters.path = OLD_COPY_PATH;
	for (const node of copy.nodes) node.id = node.id.replace('b2b2b2b2', 'd4d4d4d4');
	webhook.webhookId = webhook.webhookId.replace('b2b2b2b2', 'd4d4d4d4');
	const researcher = copy.nodes.find((node: any) => node.name === CHILD);
	Object.assign(researcher, {
		name: 'Old Copy',
		typeVersion: 2,
		parameters: {
			toolDescription: 'Answers any question.',
			provider: 'openai',
			model: { __rl: true, mode: 'id', value: OLD_COPY_MODEL },
			prompt: "={{ $fromAI('question', 'the question', 'string') }}",
			options: {},
		},
		credentials: {
			agentCoreOpenAiApi: { id: 'agentCoreE2eCred', name: 'Agent Core e2e: scripted model' },
		},
	});
	copy.nodes = copy.nodes.filter((node: any) => ![CALCULATOR, 'Child Model'].includes(node.name));
	copy.connections['Old Copy'] = copy.connections[CHILD];
	delete copy.connections[CHILD];
	delete copy.connections['Child Model'];
	delete copy.connections[CALCULATOR];
	return copy;
}
