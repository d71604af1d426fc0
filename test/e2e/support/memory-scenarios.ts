// Issue #41 end to end: n8n's own Simple Memory on Agent Core version 2's Memory input, driven as n8n's chat widget drives it.
import { randomInt } from 'node:crypto';
import { readExampleWorkflows, type WorkflowJson } from '../../../scripts/n8n-local';
import { chatPath, toVersion2 } from './files-workflows';
import { waitForChat } from './files-scenarios';
import { CHAT, RECALL_QUESTION, e2eModel, lastUserMessageOf } from './model-script';
import { useAgentCoreInN8n, type AgentCoreInN8n } from './n8n-harness';

/** The simple chat example with Simple Memory on Agent Core's Memory input answers at `<webhookId>/chat`. */
export const SIMPLE_MEMORY_CHAT_WEBHOOK_ID = 'd7c6b5a4-3e2f-4a1b-9c8d-7e6f5a4b3c21';

/**
 * examples/agent-core-simple-chat.json (Chat Trigger → Agent Core) with Agent Core on version 2 and n8n's Simple
 * Memory (memoryBufferWindow 1.3, all its defaults: the Chat Trigger's sessionId, 5 turns) on its Memory input.
 */
export function simpleMemoryChat(): WorkflowJson {
	const [example] = readExampleWorkflows(['agent-core-simple-chat.json']);
	const workflow: WorkflowJson = JSON.parse(JSON.stringify(example));
	delete workflow.id;
	workflow.name = `${workflow.name} (Simple Memory, version 2)`;
	const agent = workflow.nodes.find((node) => node.type.endsWith('.agentCore'));
	const trigger = workflow.nodes.find((node) => node.type.endsWith('.chatTrigger'));
	if (!agent || !trigger)
		throw new Error('the simple chat example has no Chat Trigger or Agent Core');
	toVersion2(agent);
	trigger.webhookId = SIMPLE_MEMORY_CHAT_WEBHOOK_ID;
	workflow.nodes.push({
		parameters: {},
		id: 'd7c6b5a4-3e2f-4a1b-9c8d-7e6f5a4b3c22',
		name: 'Simple Memory',
		type: '@n8n/n8n-nodes-langchain.memoryBufferWindow',
		typeVersion: 1.3,
		position: [240, 200],
	} as WorkflowJson['nodes'][number]);
	workflow.connections['Simple Memory'] = {
		ai_memory: [[{ node: agent.name, type: 'ai_memory', index: 0 }]],
	};
	return workflow;
}

const send = (n8n: AgentCoreInN8n, sessionId: string, chatInput: string) =>
	n8n.post(chatPath(SIMPLE_MEMORY_CHAT_WEBHOOK_ID), {
		action: 'sendMessage',
		sessionId,
		chatInput,
	});

export function describeMemoryInN8n(): void {
	describe("Agent Core version 2's Memory input in n8n 2.41.1 (issue #41)", () => {
		const get = useAgentCoreInN8n(2, e2eModel, {
			workflows: [simpleMemoryChat()],
			examples: false,
		});

		it("answers the second chat message from the first with n8n's Simple Memory connected, and keeps sessions apart", async () => {
			const n8n = get();
			await waitForChat(n8n, SIMPLE_MEMORY_CHAT_WEBHOOK_ID);
			const sessionId = n8n.uniqueId('simple-memory');
			const fact = `my bike is number ${randomInt(100, 1000)}`;
			const request = `${CHAT} Please remember that ${fact}.`;

			const first = await send(n8n, sessionId, request);
			n8n.expectStatus(first, 200);
			expect(first.body).toMatchObject({ output: `Noted: ${fact}.`, finish_reason: 'final' });
			const second = await send(n8n, sessionId, RECALL_QUESTION);
			n8n.expectStatus(second, 200);
			expect(second.body).toMatchObject({ output: `You asked me to remember that ${fact}.` });
			// The model was sent the first turn, as Simple Memory gave it back, before the new question.
			const sent = n8n.model.requests.filter(
				(call) =>
					lastUserMessageOf(call) === RECALL_QUESTION &&
					call.messages.some((message) => message.content === request),
			);
			expect(sent).toHaveLength(1);

			const other = await send(n8n, n8n.uniqueId('simple-memory-other'), RECALL_QUESTION);
			n8n.expectStatus(other, 200);
			expect(other.body).toMatchObject({ output: 'You have not asked me to remember anything.' });
		});
	});
}
