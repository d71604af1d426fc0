// Agent Context Memory's Conversation Scope (issue #48) in n8n's engine: version 2 keeps workflows apart, version 1 shares.
import { randomUUID } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';
import { AgentContextMemory } from '../../../nodes/AgentContextMemory/AgentContextMemory.node';
import { runWorkflow } from '../../support/n8n-engine';
import { MEMORY_TO_USER, MemoryUser } from '../../support/memory-user';
import { redisCredentialData, useTestRedis } from '../../support/redis';
import { createInputNode, createNode } from '../../support/test-nodes';

describe('Agent Context Memory’s Conversation Scope across workflows', () => {
	const redis = useTestRedis();
	const keyPrefix = redis.keyPrefix('memory-scope');

	/** One chat message in workflow `workflowId` through a memory node of `typeVersion`: what the run was given. */
	async function chat(
		workflowId: string,
		typeVersion: number,
		sessionId: string,
		prompt: string,
		parameters: IDataObject = {},
	): Promise<string[]> {
		const result = await runWorkflow({
			workflowId,
			nodes: [
				createInputNode([{ sessionId, prompt, answer: `answer to ${prompt}` }], 'Chat'),
				createNode({
					name: 'Memory',
					type: 'agentContextMemory',
					typeVersion,
					parameters: { storage: 'redis', options: { keyPrefix }, ...parameters },
					settings: { credentials: { agentCoreRedisApi: { id: '3', name: 'Test Redis' } } },
				}),
				createNode({ name: 'User', type: 'memoryUser' }),
			],
			connections: MEMORY_TO_USER,
			nodeTypes: { agentContextMemory: new AgentContextMemory(), memoryUser: new MemoryUser() },
			credentials: { agentCoreRedisApi: redisCredentialData(redis.url) },
		});
		const out = result.outputOf('User')[0].json as { messages?: Array<{ content: string }> };
		if (!out.messages) throw new Error(JSON.stringify(out));
		return out.messages.map((message) => message.content);
	}

	it('version 2 (new nodes): another workflow with the same session id starts its own conversation', async () => {
		const session = `s-${randomUUID()}`;
		await chat('wf-A', 2, session, 'My name is Grace');
		expect(await chat('wf-B', 2, session, 'Who am I?')).toEqual(['Who am I?']);
		expect(await chat('wf-A', 2, session, 'Who am I?')).toEqual([
			'My name is Grace',
			'answer to My name is Grace',
			'Who am I?',
		]);
	});

	it('version 1 (saved workflows) and Shared chosen on version 2 share it, as before', async () => {
		const session = `s-${randomUUID()}`;
		await chat('wf-A', 1, session, 'My name is Ada');
		expect(await chat('wf-B', 2, session, 'Who am I?', { contextScope: 'shared' })).toEqual([
			'My name is Ada',
			'answer to My name is Ada',
			'Who am I?',
		]);
	});
});
