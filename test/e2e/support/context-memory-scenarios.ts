// Issue #41 end to end: Agent Context Memory (this package's memory sub-node) on Agent Core version 2's Memory input in real n8n.
import { randomInt } from 'node:crypto';
import type { WorkflowJson } from '../../../scripts/n8n-local';
import { chatPath } from './files-workflows';
import { waitForChat } from './files-scenarios';
import { simpleMemoryChat } from './memory-scenarios';
import { CHAT, RECALL_QUESTION, e2eModel, lastUserMessageOf } from './model-script';
import { useAgentCoreInN8n, type AgentCoreInN8n } from './n8n-harness';

const WEBHOOK_ID = 'e8d7c6b5-4f3e-4b2c-8d9e-8f7a6b5c4d32';

/** The Simple Memory chat with Agent Context Memory (all its defaults: In-Memory, the Chat Trigger's sessionId) instead. */
function agentContextMemoryChat(): WorkflowJson {
	const workflow = simpleMemoryChat();
	workflow.name = workflow.name.replace('Simple Memory', 'Agent Context Memory');
	const trigger = workflow.nodes.find((node) => node.type.endsWith('.chatTrigger'))!;
	trigger.webhookId = WEBHOOK_ID;
	const memory = workflow.nodes.find((node) => node.name === 'Simple Memory')!;
	Object.assign(memory, {
		name: 'Agent Context Memory',
		type: 'n8n-nodes-agent-core.agentContextMemory',
		typeVersion: 1,
		id: 'e8d7c6b5-4f3e-4b2c-8d9e-8f7a6b5c4d33',
	});
	workflow.connections['Agent Context Memory'] = workflow.connections['Simple Memory'];
	delete workflow.connections['Simple Memory'];
	return workflow;
}

const send = (n8n: AgentCoreInN8n, sessionId: string, chatInput: string) =>
	n8n.post(chatPath(WEBHOOK_ID), { action: 'sendMessage', sessionId, chatInput });

export function describeContextMemoryInN8n(): void {
	describe("Agent Context Memory on Agent Core version 2's Memory input in n8n 2.41.1 (issue #41)", () => {
		const get = useAgentCoreInN8n(2, e2eModel, {
			workflows: [agentContextMemoryChat()],
			examples: false,
		});

		it('n8n loads the sub-node, and the second chat message is answered from the first; another session sees nothing', async () => {
			const n8n = get();
			await waitForChat(n8n, WEBHOOK_ID);
			const sessionId = n8n.uniqueId('context-memory');
			const fact = `my bike is number ${randomInt(100, 1000)}`;
			const request = `${CHAT} Please remember that ${fact}.`;

			const first = await send(n8n, sessionId, request);
			n8n.expectStatus(first, 200);
			expect(first.body).toMatchObject({ output: `Noted: ${fact}.`, finish_reason: 'final' });
			const second = await send(n8n, sessionId, RECALL_QUESTION);
			n8n.expectStatus(second, 200);
			expect(second.body).toMatchObject({ output: `You asked me to remember that ${fact}.` });
			const sent = n8n.model.requests.filter(
				(call) =>
					lastUserMessageOf(call) === RECALL_QUESTION &&
					call.messages.some((message) => message.content === request),
			);
			expect(sent).toHaveLength(1);

			const other = await send(n8n, n8n.uniqueId('context-memory-other'), RECALL_QUESTION);
			n8n.expectStatus(other, 200);
			expect(other.body).toMatchObject({ output: 'You have not asked me to remember anything.' });
		});
	});
}
