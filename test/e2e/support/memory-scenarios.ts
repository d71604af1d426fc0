// Issue #41 end to end: n8n's Simple Memory and Redis Chat Memory, and this package's Agent Context Memory, on Agent Core
// version 2's Memory input, driven as n8n's chat widget drives it (n8n loading the community sub-node included).
import { randomInt } from 'node:crypto';
import { readExampleWorkflows, type WorkflowJson } from '../../../scripts/n8n-local';
import { chatPath, toVersion2 } from './workflows/files-workflows';
import { waitForChat } from './files-scenarios';
import { CHAT, RECALL_QUESTION, e2eModel, lastUserMessageOf } from './model-script';
import { useAgentCoreInN8n, type AgentCoreInN8n } from './n8n-harness';

/** n8n's chat memory sub-nodes and Agent Context Memory on Agent Core's Memory input, each in its own workflow answering at `<webhookId>/chat`. */
const MEMORIES = [
	{
		name: 'Simple Memory',
		webhookId: 'd7c6b5a4-3e2f-4a1b-9c8d-7e6f5a4b3c21',
		node: { type: '@n8n/n8n-nodes-langchain.memoryBufferWindow', typeVersion: 1.3, parameters: {} },
	},
	{
		// Real Redis through n8n's own Redis credential (n8n-harness.ts); the session expires after ten minutes.
		name: 'Redis Chat Memory',
		webhookId: 'd7c6b5a4-3e2f-4a1b-9c8d-7e6f5a4b3c31',
		node: {
			type: '@n8n/n8n-nodes-langchain.memoryRedisChat',
			typeVersion: 1.5,
			parameters: { sessionTTL: 600 },
			credentials: { redis: { id: 'redis', name: 'redis' } },
		},
	},
	{
		// This package's memory sub-node, with its defaults (In-Memory storage, the Chat Trigger's sessionId).
		name: 'Agent Context Memory',
		webhookId: 'e8d7c6b5-4f3e-4b2c-8d9e-8f7a6b5c4d32',
		node: { type: 'n8n-nodes-agent-core.agentContextMemory', typeVersion: 1, parameters: {} },
	},
] as const;
type Memory = (typeof MEMORIES)[number];

/**
 * examples/agent-core-simple-chat.json (Chat Trigger → Agent Core) with Agent Core on version 2 and `memory` in place
 * of the example's Simple Memory, with all its defaults (the Chat Trigger's sessionId, 5 turns), on its Memory input.
 */
export function memoryChat(memory: Memory): WorkflowJson {
	const [example] = readExampleWorkflows(['agent-core-simple-chat.json']);
	const workflow: WorkflowJson = JSON.parse(JSON.stringify(example));
	delete workflow.id;
	workflow.name = `${workflow.name} (${memory.name}, version 2)`;
	const agent = workflow.nodes.find((node) => node.type.endsWith('.agentCore'));
	const trigger = workflow.nodes.find((node) => node.type.endsWith('.chatTrigger'));
	if (!agent || !trigger)
		throw new Error('the simple chat example has no Chat Trigger or Agent Core');
	toVersion2(agent);
	trigger.webhookId = memory.webhookId;
	// The example ships with Simple Memory on the Memory input (one connection): `memory` takes its place.
	for (const [name, outputs] of Object.entries(workflow.connections))
		if ('ai_memory' in (outputs as object)) {
			delete workflow.connections[name];
			workflow.nodes = workflow.nodes.filter((node) => node.name !== name);
		}
	workflow.nodes.push({
		...JSON.parse(JSON.stringify(memory.node)),
		id: `${memory.webhookId.slice(0, -2)}99`,
		name: memory.name,
		position: [240, 200],
	} as WorkflowJson['nodes'][number]);
	workflow.connections[memory.name] = {
		ai_memory: [[{ node: agent.name, type: 'ai_memory', index: 0 }]],
	};
	return workflow;
}

const send = (n8n: AgentCoreInN8n, memory: Memory, sessionId: string, chatInput: string) =>
	n8n.post(chatPath(memory.webhookId), { action: 'sendMessage', sessionId, chatInput });

export function describeMemoryInN8n(): void {
	describe("Agent Core version 2's Memory input in n8n 2.41.1 (issue #41)", () => {
		const get = useAgentCoreInN8n(2, e2eModel, {
			workflows: MEMORIES.map(memoryChat),
			examples: false,
		});

		it.each(MEMORIES)(
			'answers the second chat message from the first with $name connected, and keeps sessions apart',
			async (memory) => {
				const n8n = get();
				await waitForChat(n8n, memory.webhookId);
				const sessionId = n8n.uniqueId('memory');
				const fact = `my bike is number ${randomInt(100, 1000)}`;
				const request = `${CHAT} Please remember that ${fact}.`;

				const first = await send(n8n, memory, sessionId, request);
				n8n.expectStatus(first, 200);
				expect(first.body).toMatchObject({ output: `Noted: ${fact}.`, finish_reason: 'final' });
				const second = await send(n8n, memory, sessionId, RECALL_QUESTION);
				n8n.expectStatus(second, 200);
				expect(second.body).toMatchObject({ output: `You asked me to remember that ${fact}.` });
				// The model was sent the first turn, as the memory gave it back, before the new question.
				const sent = n8n.model.requests.filter(
					(call) =>
						lastUserMessageOf(call) === RECALL_QUESTION &&
						call.messages.some((message) => message.content === request),
				);
				expect(sent).toHaveLength(1);

				const other = await send(n8n, memory, n8n.uniqueId('memory-other'), RECALL_QUESTION);
				n8n.expectStatus(other, 200);
				expect(other.body).toMatchObject({ output: 'You have not asked me to remember anything.' });
			},
		);
	});
}
