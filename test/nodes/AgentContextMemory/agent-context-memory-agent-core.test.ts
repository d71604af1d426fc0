// Agent Core version 2 with Agent Context Memory on its Memory input, in n8n's engine: the chat remembers, with no prepare/persist.
import { randomUUID } from 'node:crypto';
import { NodeConnectionTypes } from 'n8n-workflow';
import { AgentContextMemory } from '../../../nodes/AgentContextMemory/AgentContextMemory.node';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { final, useScriptedServer } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import { freeLoopbackPort, redisCredentialData, useTestRedis } from '../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../support/test-nodes';

describe('Agent Core version 2 with Agent Context Memory, in n8n’s engine', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	const keyPrefix = redis.keyPrefix('memory-agent');

	/** One chat message: the Chat Trigger's item, Agent Core (Input: Prompt) and the memory on its Memory input. */
	async function chat(
		storage: 'redis' | 'memory',
		sessionId: string,
		chatInput: string,
		redisUrl?: string,
	) {
		return await runWorkflow({
			nodes: [
				createInputNode([{ action: 'sendMessage', sessionId, chatInput }], 'Chat'),
				createNode({
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
				}),
				createNode({
					name: 'Agent Context Memory',
					type: 'agentContextMemory',
					parameters: { storage, options: { keyPrefix } },
					settings:
						storage === 'redis'
							? { credentials: { agentCoreRedisApi: { id: '3', name: 'Redis' } } }
							: {},
				}),
			],
			connections: {
				...connectInSequence('Chat', 'Agent Core'),
				'Agent Context Memory': {
					ai_memory: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiMemory, index: 0 }]],
				},
			},
			nodeTypes: { agentCore: new AgentCore(), agentContextMemory: new AgentContextMemory() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'demo', url: server().openaiBaseUrl },
				agentCoreRedisApi: redisCredentialData(redisUrl ?? redis.url),
			},
		});
	}
	const requestText = (index: number) => JSON.stringify(server().requests[index].messages);

	it.each(['redis', 'memory'] as const)(
		'with %s storage, the second message’s model request holds the first turn, another session’s nothing',
		async (storage) => {
			const sessionId = `chat-${randomUUID()}`;
			server().setScript([
				final('Nice to meet you, Ada.'),
				final('You are Ada.'),
				final('I do not know.'),
			]);
			const first = await chat(storage, sessionId, 'My name is Ada.');
			expect(first.errorOf('Agent Core')).toBeUndefined();
			const second = await chat(storage, sessionId, 'What is my name?');
			expect(second.errorOf('Agent Core')).toBeUndefined();
			expect(requestText(0)).not.toContain('Nice to meet you');
			expect(requestText(1)).toContain('My name is Ada.');
			expect(requestText(1)).toContain('Nice to meet you, Ada.');
			await chat(storage, `other-${randomUUID()}`, 'What is my name?');
			expect(requestText(2)).not.toContain('Ada');
		},
	);

	it('a run whose model fails lets go of the session: the next message is answered, without the failed question', async () => {
		const sessionId = `fail-${randomUUID()}`;
		server().setScript({ status: 400, errorMessage: 'model refused' });
		const failed = await chat('redis', sessionId, 'Lost question');
		expect(failed.errorOf('Agent Core')).toBeDefined();
		server().setScript([final('Hello.')]);
		const next = await chat('redis', sessionId, 'Hi again');
		expect(next.errorOf('Agent Core')).toBeUndefined();
		const last = JSON.stringify(server().requests.at(-1)?.messages);
		expect(last).toContain('Hi again');
		expect(last).not.toContain('Lost question');
	});

	it('an unreachable Redis fails the item with a sentence naming the memory and Redis, before any model call', async () => {
		const port = await freeLoopbackPort();
		const result = await chat(
			'redis',
			`down-${randomUUID()}`,
			'Hello',
			`redis://127.0.0.1:${port}`,
		);
		const error = result.errorOf('Agent Core') as Error & { description?: string };
		expect(error.message).toMatch(
			/"Agent Context Memory" on the Memory input could not load the history/,
		);
		expect(error.message).toMatch(/Redis/);
		expect(server().requests).toHaveLength(0);
	});
});
