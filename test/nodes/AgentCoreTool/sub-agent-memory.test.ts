// The Agent Core Tool's Memory input (issue #52), in n8n's engine: the sub-agent keeps its own conversation, under the
// chat's session plus its name unless its memory's Session ID names another, never inside its parent's.
import type { BaseMessage } from '@langchain/core/messages';
import {
	NodeConnectionTypes,
	type IConnections,
	type INode,
	type INodeParameters,
} from 'n8n-workflow';
import { action, final } from '../../support/agent';
import { BufferWindowMemoryLike, SessionChatMemoryLike } from '../../support/chat-memory';
import { runWorkflow } from '../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode, subNode } from '../../support/test-nodes';
import {
	CHILD,
	childNode,
	nodeTypes,
	subAgentWorkflow,
	agentCoreParent,
	useParentAndChildServers,
} from './sub-agent-workflow';

/** A chat memory sub-node with n8n's Session ID fields (Simple Memory's, Redis Chat Memory's…), supplying `memory`. */
const memoryNode = (memory: () => unknown) => {
	const node = subNode('memory', NodeConnectionTypes.AiMemory, memory);
	node.description.properties = [
		{
			displayName: 'Session ID',
			name: 'sessionIdType',
			type: 'options',
			options: [
				{ name: 'Connected Chat Trigger Node', value: 'fromInput' },
				{ name: 'Define below', value: 'customKey' },
			],
			default: 'fromInput',
		},
		{ displayName: 'Key', name: 'sessionKey', type: 'string', default: '' },
	];
	return node;
};

const memoryOf = (node: string) => ({
	ai_memory: [[{ node, type: NodeConnectionTypes.AiMemory, index: 0 }]],
});
const contents = (messages: readonly BaseMessage[] = []) =>
	messages.map((message) => message.content);

describe("Agent Core Tool with a chat memory on its Memory input, in n8n's engine", () => {
	const servers = useParentAndChildServers();

	const parentNode = () => agentCoreParent({ prompt: '={{ $json.chatInput }}' });

	/** One chat message in session s1: Agent Core, the Agent Core Tool on its Tool input, `memory` on the tool's Memory input. */
	async function chat(
		chatInput: string,
		memory: () => unknown,
		memoryParameters: INodeParameters = {},
		parent: INode = parentNode(),
	) {
		const { nodes, connections } = subAgentWorkflow(parent, childNode());
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ sessionId: 's1', chatInput }]),
				...nodes.slice(1),
				createNode({ name: 'Child Memory', type: 'memory', parameters: memoryParameters }),
			],
			connections: { ...connections, 'Child Memory': memoryOf(CHILD) } as IConnections,
			nodeTypes: {
				...nodeTypes(servers.child, []),
				memory: memoryNode(memory),
			},
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'parent-key', url: servers.parent.openaiBaseUrl },
			},
		});
		return result;
	}
	const twoCalls = () => {
		servers.parent.setScript([
			action(CHILD, { task: 'remember 42' }),
			final('Noted.'),
			action(CHILD, { task: 'which number?' }),
			final('It is 42.'),
		]);
		servers.child.setScript([final('noted 42'), final('42')]);
	};
	const childRequest = (index: number) => JSON.stringify(servers.child.requests[index].messages);

	it("keeps the sub-agent's turns under the chat's session plus its name with the Session ID at its default; the next call starts from them", async () => {
		const store = new Map<string, BaseMessage[]>();
		twoCalls();
		const first = await chat('remember 42 for me', () => new SessionChatMemoryLike(store, 's1'));
		expect(first.errorOf('Agent Core')).toBeUndefined();
		const second = await chat('which number?', () => new SessionChatMemoryLike(store, 's1'));
		expect(second.outputOf('Agent Core')[0].json.final_answer).toBe('It is 42.');

		expect([...store.keys()]).toEqual([`s1:${CHILD}`]);
		expect(contents(store.get(`s1:${CHILD}`))).toEqual([
			'remember 42',
			'noted 42',
			'which number?',
			'42',
		]);
		expect(childRequest(0)).not.toContain('noted 42');
		expect(childRequest(1)).toContain('remember 42');
		expect(childRequest(1)).toContain('noted 42');
		// The child never saw its parent's conversation.
		expect(childRequest(1)).not.toContain('remember 42 for me');
	});

	it('uses a Session ID someone set (Define below) as it is', async () => {
		const store = new Map<string, BaseMessage[]>();
		servers.parent.setScript([action(CHILD, { task: 'remember 42' }), final('Noted.')]);
		servers.child.setScript([final('noted 42')]);
		await chat('remember', () => new SessionChatMemoryLike(store, 'researcher-notes'), {
			sessionIdType: 'customKey',
			sessionKey: 'researcher-notes',
		});
		expect([...store.keys()]).toEqual(['researcher-notes']);
	});

	it("keeps the turns beside Simple Memory's buffer (its key is n8n's own), the buffer itself holding none of them", async () => {
		// n8n's Simple Memory hands every supply of a session the same buffer.
		const buffer = new BufferWindowMemoryLike();
		twoCalls();
		await chat('remember 42 for me', () => buffer);
		await chat('which number?', () => buffer);
		expect(childRequest(1)).toContain('remember 42');
		expect(childRequest(1)).toContain('noted 42');
		expect(await buffer.chatHistory.getMessages()).toEqual([]);
		expect(buffer.saves).toBe(0);
	});

	it("keeps only Simple Memory's window of turns (Context Window Length, k)", async () => {
		const buffer = new BufferWindowMemoryLike(1);
		servers.parent.setScript([
			action(CHILD, { task: 'one' }),
			action(CHILD, { task: 'two' }),
			action(CHILD, { task: 'three' }),
			final('Done.'),
		]);
		servers.child.setScript([final('1'), final('2'), final('3')]);
		await chat('count', () => buffer);
		expect(childRequest(2)).toContain('two');
		expect(childRequest(2)).not.toContain('"one"');
	});

	it('refuses a memory it cannot keep apart from the parent’s, naming the fix, before any model call', async () => {
		const opaque = {
			loadMemoryVariables: async () => ({ chat_history: [] }),
			saveContext: async () => undefined,
		};
		servers.parent.setScript([action(CHILD, { task: 'remember 42' }), final('Noted.')]);
		const result = await chat('remember', () => opaque);
		// n8n reports a sub-node's error as "Error in sub-node <name>", the sub-node's message (holding the fix) under it.
		const error = result.errorOf('Agent Core') as (Error & { description?: string }) | undefined;
		expect(error?.message).toBe(`Error in sub-node ${CHILD}`);
		expect(error?.description).toBe(
			`"Child Memory" on ${CHILD}'s Memory input cannot keep ${CHILD}'s conversation apart from its parent's: ` +
				`set its Session ID to "Define below" with a key of its own, e.g. {{ $json.sessionId }}:${CHILD}`,
		);
		expect(servers.parent.requests).toHaveLength(0);
	});

	it("remembers when n8n 2's engine runs the node for each call (under n8n's AI Agent), keyed as under Agent Core", async () => {
		const store = new Map<string, BaseMessage[]>();
		servers.child.setScript([final('noted 42'), final('42')]);
		const { nodes, connections } = subAgentWorkflow(createNode({ name: 'Unused', type: 'noOp' }));
		const call = async (task: string) =>
			await runWorkflow({
				nodes: [
					createInputNode([{ task, toolCallId: 'call_1' }]),
					...nodes.slice(2),
					createNode({ name: 'Child Memory', type: 'memory' }),
				],
				connections: {
					...connections,
					...connectInSequence('Input', CHILD),
					[CHILD]: {},
					'Child Memory': memoryOf(CHILD),
				} as IConnections,
				nodeTypes: {
					...nodeTypes(servers.child, []),
					memory: memoryNode(() => new SessionChatMemoryLike(store, 'chat-7')),
				},
			});
		await call('remember 42');
		const second = await call('which number?');
		expect(second.outputOf(CHILD).map((item) => item.json)).toEqual([{ response: '42' }]);
		expect([...store.keys()]).toEqual([`chat-7:${CHILD}`]);
		expect(childRequest(1)).toContain('noted 42');
	});
});
