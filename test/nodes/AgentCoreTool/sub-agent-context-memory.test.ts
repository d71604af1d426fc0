// Agent Context Memory on the Agent Core Tool's Memory input (issue #52), in n8n's engine on Redis: the sub-agent's
// conversation under the chat's session plus its name, apart from its parent's on the same store and session.
import { randomUUID } from 'node:crypto';
import { NodeConnectionTypes, type IConnections, type INode } from 'n8n-workflow';
import { AgentContextMemory } from '../../../nodes/AgentContextMemory/AgentContextMemory.node';
import type { ScriptedServer } from '../../../src/demo/scripted-server';
import { action, final } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import { redisCredentialData, useTestRedis } from '../../support/redis';
import { createInputNode, createNode } from '../../support/test-nodes';
import {
	CHILD,
	childNode,
	nodeTypes,
	subAgentWorkflow,
	agentCoreParent,
	useParentAndChildServers,
} from './sub-agent-workflow';

const memoryOf = (node: string) => ({
	ai_memory: [[{ node, type: NodeConnectionTypes.AiMemory, index: 0 }]],
});

describe("Agent Context Memory on the Agent Core Tool, in n8n's engine", () => {
	const servers = useParentAndChildServers();
	const redis = useTestRedis();
	const keyPrefix = redis.keyPrefix('sub-agent-memory');

	const memoryNode = (name: string, parameters: Record<string, unknown> = {}): INode =>
		createNode({
			name,
			type: 'agentContextMemory',
			parameters: { storage: 'redis', options: { keyPrefix }, ...parameters },
			settings: { credentials: { agentCoreRedisApi: { id: '3', name: 'Redis' } } },
		});

	/** One chat message: Agent Core with its own Agent Context Memory, the Agent Core Tool with another on the same Redis. */
	async function chat(
		sessionId: string,
		chatInput: string,
		childMemory = memoryNode('Child Memory'),
	) {
		const parent = agentCoreParent({ inputMode: 'prompt', prompt: '={{ $json.chatInput }}' });
		const { nodes, connections } = subAgentWorkflow(parent, childNode());
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ action: 'sendMessage', sessionId, chatInput }]),
				...nodes.slice(1),
				memoryNode('Parent Memory'),
				childMemory,
			],
			connections: {
				...connections,
				'Parent Memory': memoryOf('Agent Core'),
				[childMemory.name]: memoryOf(CHILD),
			} as IConnections,
			nodeTypes: { ...nodeTypes(servers.child, []), agentContextMemory: new AgentContextMemory() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'parent-key', url: servers.parent.openaiBaseUrl },
				agentCoreRedisApi: redisCredentialData(redis.url),
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return result;
	}
	const text = (server: ScriptedServer, index: number) =>
		JSON.stringify(server.requests[index].messages);
	const sessionsStored = async () =>
		(await redis.admin.keys(`{${keyPrefix}*`)).filter((key) => key.includes('chat-'));

	it("keeps the sub-agent's turns apart from its parent's, both on one Redis and session: each remembers only its own", async () => {
		const sessionId = `chat-${randomUUID()}`;
		servers.parent.setScript([
			action(CHILD, { task: 'remember 42' }),
			final('Noted for you.'),
			action(CHILD, { task: 'which number?' }),
			final('It is 42.'),
		]);
		servers.child.setScript([final('noted 42'), final('42')]);
		await chat(sessionId, 'please remember 42');
		await chat(sessionId, 'which number was it?');

		// The child's second call: its own first turn, nothing of the parent's.
		expect(text(servers.child, 1)).toContain('noted 42');
		expect(text(servers.child, 1)).not.toContain('Noted for you.');
		// The parent's second message: its own first turn, nothing the child said to itself.
		expect(text(servers.parent, 2)).toContain('Noted for you.');
		expect(text(servers.parent, 2)).not.toContain('"noted 42"');
		const keys = await sessionsStored();
		expect(keys.some((key) => key.includes(`${sessionId}:${CHILD}`))).toBe(true);
		expect(keys.some((key) => key.includes(sessionId) && !key.includes(`:${CHILD}`))).toBe(true);
	});

	it('uses a Session ID someone set as it is', async () => {
		const sessionId = `chat-${randomUUID()}`;
		const own = `chat-notes-${randomUUID()}`;
		servers.parent.setScript([action(CHILD, { task: 'remember 7' }), final('Noted.')]);
		servers.child.setScript([final('noted 7')]);
		await chat(sessionId, 'remember 7', memoryNode('Child Memory', { sessionId: own }));
		const keys = await sessionsStored();
		expect(keys.some((key) => key.includes(own) && !key.includes(`:${CHILD}`))).toBe(true);
		expect(keys.some((key) => key.includes(`${sessionId}:${CHILD}`))).toBe(false);
	});
});
