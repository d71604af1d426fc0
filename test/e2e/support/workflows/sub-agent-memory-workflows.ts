// Issue #52's Memory line in n8n: an Agent Core Tool ("Archivist") with a memory of its own on its Memory input, at the
// memory's default Session ID, under Agent Core (Redis Chat Memory on both, one Redis) and under n8n's AI Agent 3.1
// (Simple Memory on the Archivist), each a chat workflow driven as n8n's chat widget drives it.
import type { WorkflowJson } from '../../../../scripts/n8n-local';
import type { ScriptedReply, ScriptedRequest } from '../../../../src/demo/scripted-server';
import { openAiModelNode } from './openai-model-node';

/** The sub-agent's name on the canvas, so its tool's name and the suffix of its session key. */
export const ARCHIVIST = 'Archivist';
/** The Chat Triggers' webhook ids: under Agent Core, and under n8n's AI Agent. */
export const UNDER_AGENT_CORE_CHAT = '6c3b8d21-52aa-4c0e-9d52-d4d4d4d40001';
export const UNDER_AI_AGENT_CHAT = '6c3b8d21-52aa-4c0e-9d52-e5e5e5e50001';
/** The models of these workflows alone: the Archivist's own, and Agent Core's as its parent. */
const ARCHIVIST_MODEL = 'gpt-5-nano';
const PARENT_MODEL = 'gpt-4.1';

/** "[keep] <fact>" asks the Archivist to remember the fact; "[recall]" asks what it was told. */
export const keep = (fact: string) => `[keep] ${fact}`;
export const RECALL = '[recall]';
const KEEP = /^\[keep\] (.+)$/;
/** The task each chat message becomes, and what the Archivist answers. */
const rememberTask = (fact: string) => `Remember: ${fact}`;
const RECALL_TASK = 'What did I ask you to remember?';
export const recalled = (fact: string) => `You told me to remember ${fact}.`;
export const NOTHING_KEPT = 'Nothing was asked.';
const TOLD = /You told me to remember (.+)\./;

const text = (content: unknown) =>
	typeof content === 'string' ? content : JSON.stringify(content);

/** The task for the chat message last asked (its turn's), or undefined for a message of no scenario here. */
function taskOf(request: ScriptedRequest): string | undefined {
	const asked = [...request.messages]
		.reverse()
		.map((message) => text(message.content))
		.find((content) => KEEP.test(content) || content === RECALL);
	if (asked === undefined) return undefined;
	const fact = KEEP.exec(asked)?.[1];
	return fact === undefined ? RECALL_TASK : rememberTask(fact);
}

/** Whether the model already answered after the chat message of this turn (a tool result came back). */
function calledAlready(request: ScriptedRequest): boolean {
	const { messages } = request;
	const asked = messages.map((message) => text(message.content));
	const last = Math.max(
		...asked.map((content, index) => (KEEP.test(content) || content === RECALL ? index : -1)),
	);
	return messages.slice(last + 1).some((message) => message.role === 'assistant');
}

/** The parent's answer once the Archivist's came back: what it recalled, or that it noted. */
function parentAnswer(request: ScriptedRequest): string {
	const observed = text(request.messages[request.messages.length - 1]?.content);
	const told = TOLD.exec(observed)?.[1];
	if (told) return `${ARCHIVIST} says: ${recalled(told)}`;
	return observed.includes(NOTHING_KEPT) ? `${ARCHIVIST} says: ${NOTHING_KEPT}` : 'Noted.';
}

/**
 * The script of these workflows, or undefined for a request of another: the Archivist (on its model: "Noted." to a
 * fact, the fact its own earlier turns hold to the question), Agent Core as the parent (on its model, the strict
 * protocol) and n8n's AI Agent (a request offering the Archivist tool: a native tool call, then its answer in words).
 */
export function subAgentMemoryModel(request: ScriptedRequest): ScriptedReply | undefined {
	if (request.model === ARCHIVIST_MODEL) {
		const task = text(request.messages[request.messages.length - 1]?.content);
		if (task !== RECALL_TASK) return JSON.stringify({ type: 'final', answer: 'Noted.' });
		const kept = request.messages
			.map((message) => /^Remember: (.+)$/.exec(text(message.content))?.[1])
			.filter((fact): fact is string => fact !== undefined);
		const answer = kept.length ? recalled(kept[kept.length - 1]) : NOTHING_KEPT;
		return JSON.stringify({ type: 'final', answer });
	}
	const tools = (request.body as { tools?: Array<{ name?: string; function?: { name?: string } }> })
		.tools;
	const task = taskOf(request);
	if (task === undefined) return undefined;
	if (tools?.some((tool) => (tool.function?.name ?? tool.name) === ARCHIVIST))
		return calledAlready(request)
			? parentAnswer(request)
			: { text: '', toolCalls: [{ name: ARCHIVIST, arguments: { task } }] };
	if (request.model === PARENT_MODEL)
		return JSON.stringify(
			calledAlready(request)
				? { type: 'final', answer: parentAnswer(request) }
				: { type: 'action', tool: ARCHIVIST, args: { task } },
		);
	return undefined;
}

const connect = (to: string, type: string) => ({ [type]: [[{ node: to, type, index: 0 }]] });
const REDIS_MEMORY = {
	type: '@n8n/n8n-nodes-langchain.memoryRedisChat',
	typeVersion: 1.5,
	parameters: { sessionTTL: 600 },
	credentials: { redis: { id: 'redis', name: 'redis' } },
};
const SIMPLE_MEMORY = {
	type: '@n8n/n8n-nodes-langchain.memoryBufferWindow',
	typeVersion: 1.3,
	parameters: {},
};
/** Chat Trigger → `parent`, the Archivist (its model and `memory`) on the parent's Tool input, `parentExtra` on the parent. */
function chatWorkflow(
	name: string,
	webhookId: string,
	parent: Record<string, unknown>,
	archivistMemory: Record<string, unknown>,
	parentExtra: Array<Record<string, unknown> & { name: string; input: string }>,
): WorkflowJson {
	const id = (n: number) => `${webhookId.slice(0, -4)}${String(n).padStart(4, '0')}`;
	const nodes = [
		{
			parameters: { public: true, mode: 'hostedChat', options: { responseMode: 'lastNode' } },
			name: 'When chat message received',
			type: '@n8n/n8n-nodes-langchain.chatTrigger',
			typeVersion: 1.4,
			webhookId,
		},
		{ ...parent, name: 'Parent' },
		{
			parameters: {
				toolDescription:
					'Remembers facts across the chat; give it the fact, or ask what it was told.',
				provider: 'connected',
				options: { developerText: 'You keep facts.' },
			},
			name: ARCHIVIST,
			type: 'n8n-nodes-agent-core.agentCoreTool',
			typeVersion: 3,
		},
		openAiModelNode('Archivist Model', ARCHIVIST_MODEL),
		{ ...archivistMemory, name: 'Archivist Memory' },
		...parentExtra.map(({ input: _input, ...node }) => node),
	].map((node, index) => ({ ...node, id: id(index + 2), position: [index * 200, 0] }));
	const connections: Record<string, unknown> = {
		'When chat message received': connect('Parent', 'main'),
		[ARCHIVIST]: connect('Parent', 'ai_tool'),
		'Archivist Model': connect(ARCHIVIST, 'ai_languageModel'),
		'Archivist Memory': connect(ARCHIVIST, 'ai_memory'),
	};
	for (const node of parentExtra) connections[node.name] = connect('Parent', node.input);
	return {
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		pinData: {},
	} as unknown as WorkflowJson;
}

/**
 * Under Agent Core version 2 (Redis Chat Memory on its own Memory input too, one Redis, both at the default Session
 * ID) and under n8n's AI Agent 3.1 (Simple Memory on the Archivist).
 */
export function subAgentMemoryWorkflows(): WorkflowJson[] {
	return [
		chatWorkflow(
			'Archivist with Redis Chat Memory under Agent Core',
			UNDER_AGENT_CORE_CHAT,
			{
				parameters: {
					provider: 'openai',
					model: { __rl: true, mode: 'id', value: PARENT_MODEL },
					inputMode: 'prompt',
					options: {},
				},
				type: 'n8n-nodes-agent-core.agentCore',
				typeVersion: 2,
				credentials: {
					agentCoreOpenAiApi: { id: 'agentCoreOpenAi1', name: 'Agent Core: OpenAI-Compatible API' },
				},
			},
			REDIS_MEMORY,
			[{ ...REDIS_MEMORY, name: 'Parent Memory', input: 'ai_memory' }],
		),
		chatWorkflow(
			"Archivist with Simple Memory under n8n's AI Agent",
			UNDER_AI_AGENT_CHAT,
			{
				parameters: { options: {} },
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: 3.1,
			},
			SIMPLE_MEMORY,
			[{ ...openAiModelNode('Parent Model', 'gpt-4o-mini'), input: 'ai_languageModel' }],
		),
	];
}
