// Agent Context Memory on the Agent Core Tool's Memory input (issue #52), in n8n's engine on Redis: the sub-agent's
// conversation under the chat's session plus its name, apart from its parent's on the same store and session.
import { randomUUID } from 'node:crypto';
import { NodeConnectionTypes, type IConnections, type INode } from 'n8n-workflow';
import { Redis } from 'ioredis';
import { AgentContextMemory } from '../../../nodes/AgentContextMemory/AgentContextMemory.node';
import type { ScriptedServer } from '../../../src/demo/scripted-server';
import { action, final, startsScriptedServers } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import {
	deleteKeysByPrefix,
	getTestRedis,
	redisCredentialData,
	uniqueKeyPrefix,
	type TestRedis,
} from '../../support/redis';
import { createInputNode, createNode } from '../../support/test-nodes';
import { CHILD, childNode, nodeTypes, subAgentWorkflow } from './sub-agent-workflow';

const memoryOf = (node: string) => ({
	ai_memory: [[{ node, type: NodeConnectionTypes.AiMemory, index: 0 }]],
});

describe("Agent Context Memory on the Agent Core Tool, in n8n's engine", () => {
	const startServer = startsScriptedServers();
	let parentServer: ScriptedServer;
	let childServer: ScriptedServer;
	let redis: TestRedis;
	let client: Redis;
	const keyPrefix = uniqueKeyPrefix('sub-agent-memory');

	beforeAll(async () => {
		redis = await getTestRedis();
		client = new Redis(redis.url);
	});
	afterAll(async () => {
		await deleteKeysByPrefix(client, `{${keyPrefix}`);
		client.disconnect();
		await redis.stop();
	});
	beforeEach(async () => {
		parentServer = await startServer();
		childServer = await startServer();
	});

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
		const parent = createNode({
			name: 'Agent Core',
			type: 'agentCore',
			typeVersion: 2,
			parameters: {
				provider: 'openai',
				model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
				inputMode: 'prompt',
				prompt: '={{ $json.chatInput }}',
			},
			settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
		});
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
			nodeTypes: { ...nodeTypes(childServer, []), agentContextMemory: new AgentContextMemory() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'parent-key', url: parentServer.openaiBaseUrl },
				agentCoreRedisApi: redisCredentialData(redis.url),
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return result;
	}
	const text = (server: ScriptedServer, index: number) =>
		JSON.stringify(server.requests[index].messages);
	const sessionsStored = async () =>
		(await client.keys(`{${keyPrefix}*`)).filter((key) => key.includes('chat-'));

	it("keeps the sub-agent's turns apart from its parent's, both on one Redis and session: each remembers only its own", async () => {
		const sessionId = `chat-${randomUUID()}`;
		parentServer.setScript([
			action(CHILD, { task: 'remember 42' }),
			final('Noted for you.'),
			action(CHILD, { task: 'which number?' }),
			final('It is 42.'),
		]);
		childServer.setScript([final('noted 42'), final('42')]);
		await chat(sessionId, 'please remember 42');
		await chat(sessionId, 'which number was it?');

		// The child's second call: its own first turn, nothing of the parent's.
		expect(text(childServer, 1)).toContain('noted 42');
		expect(text(childServer, 1)).not.toContain('Noted for you.');
		// The parent's second message: its own first turn, nothing the child said to itself.
		expect(text(parentServer, 2)).toContain('Noted for you.');
		expect(text(parentServer, 2)).not.toContain('"noted 42"');
		const keys = await sessionsStored();
		expect(keys.some((key) => key.includes(`${sessionId}:${CHILD}`))).toBe(true);
		expect(keys.some((key) => key.includes(sessionId) && !key.includes(`:${CHILD}`))).toBe(true);
	});

	it('uses a Session ID someone set as it is', async () => {
		const sessionId = `chat-${randomUUID()}`;
		const own = `chat-notes-${randomUUID()}`;
		parentServer.setScript([action(CHILD, { task: 'remember 7' }), final('Noted.')]);
		childServer.setScript([final('noted 7')]);
		await chat(sessionId, 'remember 7', memoryNode('Child Memory', { sessionId: own }));
		const keys = await sessionsStored();
		expect(keys.some((key) => key.includes(own) && !key.includes(`:${CHILD}`))).toBe(true);
		expect(keys.some((key) => key.includes(`${sessionId}:${CHILD}`))).toBe(false);
	});
});
