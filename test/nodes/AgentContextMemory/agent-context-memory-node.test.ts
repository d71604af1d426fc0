// Agent Context Memory (issue #41) through n8n's real engine: a root node on its ai_memory output loads and saves as Agent Core v2 will.
import { randomUUID } from 'node:crypto';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { RedisContextStore } from '../../../src/context';
import { AgentContext } from '../../../nodes/AgentContext/AgentContext.node';
import { AgentContextMemory } from '../../../nodes/AgentContextMemory/AgentContextMemory.node';
import type { MemoryInput } from '../../../nodes/shared/memory-input';
import { MEMORY_TO_USER, MemoryUser, resultOf, type ScriptedTurn } from '../../support/memory-user';
import { runWorkflow } from '../../support/n8n-engine';
import { redisCredentialData, useTestRedis } from '../../support/redis';
import { createInputNode, createNode } from '../../support/test-nodes';

const REDIS_CREDENTIAL = { agentCoreRedisApi: { id: '3', name: 'Test Redis' } };

describe('Agent Context Memory on a Memory input, in n8n’s engine', () => {
	const redis = useTestRedis();
	const keyPrefix = redis.keyPrefix('memory-node');

	function memoryNode(storage: string, options: INodeParameters = {}): INode {
		return createNode({
			name: 'Memory',
			type: 'agentContextMemory',
			parameters: { storage, options: { keyPrefix, ...options } },
			settings: storage === 'redis' ? { credentials: REDIS_CREDENTIAL } : {},
		});
	}

	/** One execution: the chat trigger's items (sessionId, chatInput → prompt) through the memory user. */
	async function run(
		storage: 'redis' | 'memory',
		turns: Array<ScriptedTurn & { sessionId: string }>,
		options: INodeParameters = {},
		loadAllFirst = false,
	) {
		const result = await runWorkflow({
			nodes: [
				createInputNode(turns, 'Chat'),
				memoryNode(storage, options),
				createNode({ name: 'User', type: 'memoryUser', parameters: { loadAllFirst } }),
			],
			connections: MEMORY_TO_USER,
			nodeTypes: { agentContextMemory: new AgentContextMemory(), memoryUser: new MemoryUser() },
			credentials: { agentCoreRedisApi: redisCredentialData(redis.url) },
		});
		return { result, out: () => result.outputOf('User').map((item) => item.json) };
	}

	const contents = (json: IDataObject) =>
		(json.messages as Array<{ content: string }>).map((message) => message.content);

	describe.each(['redis', 'memory'] as const)('with %s storage', (storage) => {
		it('a second run loads the first run’s turn before its own message', async () => {
			const sessionId = `s-${randomUUID()}`;
			const first = await run(storage, [
				{ sessionId, prompt: 'My name is Grace', answer: 'Hello Grace.' },
			]);
			expect(first.out()[0]).toMatchObject({
				branded: true,
				messages: [{ role: 'user', content: 'My name is Grace' }],
			});
			const second = await run(storage, [{ sessionId, prompt: 'Who am I?', answer: 'Grace.' }]);
			expect(contents(second.out()[0])).toEqual(['My name is Grace', 'Hello Grace.', 'Who am I?']);
		});

		it('busy policy reject refuses a second load of the same session until the first is saved', async () => {
			const sessionId = `busy-${randomUUID()}`;
			const both = await run(
				storage,
				[
					{ sessionId, prompt: 'first', answer: 'one' },
					{ sessionId, prompt: 'second', answer: 'two' },
				],
				{},
				true,
			);
			const [first, second] = both.out();
			expect(first.error).toBeUndefined();
			expect(second.error).toMatch(new RegExp(`session "${sessionId}" is busy with another run`));
			// The first run's save stored its turn and let go of the session: the next message goes through.
			const next = await run(storage, [{ sessionId, prompt: 'third', answer: 'three' }]);
			expect(contents(next.out()[0])).toEqual(['first', 'one', 'third']);
		});

		it('a failed run releases the session and stores nothing (Store Unanswered off)', async () => {
			const sessionId = `fail-${randomUUID()}`;
			await run(storage, [{ sessionId, prompt: 'lost question', fail: true }]);
			const next = await run(storage, [{ sessionId, prompt: 'again', answer: 'ok' }]);
			expect(next.out()[0].error).toBeUndefined();
			expect(contents(next.out()[0])).toEqual(['again']);
		});

		it('a run that never saved has its session let go when the execution ends', async () => {
			const sessionId = `nosave-${randomUUID()}`;
			await run(storage, [{ sessionId, prompt: 'crashed', noSave: true }]);
			const next = await run(storage, [{ sessionId, prompt: 'again', answer: 'ok' }]);
			expect(next.out()[0].error).toBeUndefined();
		});
	});

	it('Store Unanswered keeps a failed run for Get, never replayed to the model', async () => {
		const sessionId = `unanswered-${randomUUID()}`;
		await run('redis', [{ sessionId, prompt: 'lost question', fail: true }], {
			storeUnanswered: true,
		});
		const next = await run('redis', [{ sessionId, prompt: 'again', answer: 'ok' }]);
		expect(contents(next.out()[0])).toEqual(['again']);
		const get = await contextOp('get', sessionId);
		expect(get).toMatchObject({ stored_turns: 2, turns: [{ unanswered: true }, {}] });
	});

	/** Agent Context (the node) on the same store and prefix: what prepare/persist see of the sub-node's turns. */
	async function contextOp(operation: string, sessionId: string, extra: INodeParameters = {}) {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ sessionId }], 'Chat'),
				createNode({
					name: 'Context',
					type: 'agentContext',
					typeVersion: 2,
					parameters: {
						operation,
						storage: 'redis',
						options: { keyPrefix, ...(extra.options as IDataObject) },
						...extra,
					},
					settings: { credentials: REDIS_CREDENTIAL },
				}),
			],
			connections: { Chat: { main: [[{ node: 'Context', type: 'main', index: 0 }]] } },
			nodeTypes: { agentContext: new AgentContext() },
			credentials: { agentCoreRedisApi: redisCredentialData(redis.url) },
		});
		const error = result.errorOf('Context');
		if (error) return { error: error.message };
		return result.outputOf('Context')[0].json;
	}

	it('Store Steps keeps the compact steps of the run’s trace with the turn, as persist does', async () => {
		const sessionId = `steps-${randomUUID()}`;
		await run('redis', [{ sessionId, prompt: 'q', answer: 'a' }], { storeSteps: true });
		expect(await contextOp('get', sessionId)).toMatchObject({
			turns: [{ steps: [{ step: 1, final: true, ms: 3 }] }],
		});
	});

	it('stores Agent Core’s summary as long memory and replays it instead of the turns it covers', async () => {
		const sessionId = `long-${randomUUID()}`;
		await run('redis', [{ sessionId, prompt: 'turn one', answer: 'a1' }]);
		await run('redis', [{ sessionId, prompt: 'turn two', answer: 'a2' }]);
		const summary = {
			role: 'assistant',
			content: 'SUMMARY: turn one was asked',
			summary: {
				through_seq: 1,
				replaced_turns: 1,
				model: 'm',
				tokens_before: 10,
				tokens_after: 5,
				at: new Date().toISOString(),
			},
		};
		await run('redis', [{ sessionId, prompt: 'turn three', answer: 'a3', summary }]);
		const next = await run('redis', [{ sessionId, prompt: 'turn four', answer: 'a4' }]);
		expect(contents(next.out()[0])).toEqual([
			'SUMMARY: turn one was asked',
			'turn two',
			'a2',
			'turn three',
			'a3',
			'turn four',
		]);
		expect(await contextOp('list', sessionId)).toMatchObject({ session_id: sessionId });
	});

	it('a rewind by Agent Context is what the sub-node loads next (branches are shared)', async () => {
		const sessionId = `branch-${randomUUID()}`;
		await run('redis', [{ sessionId, prompt: 'keep me', answer: 'kept' }]);
		await run('redis', [{ sessionId, prompt: 'drop me', answer: 'dropped' }]);
		await contextOp('rewind', sessionId, { turn: 1 });
		const next = await run('redis', [{ sessionId, prompt: 'after rewind', answer: 'ok' }]);
		expect(contents(next.out()[0])).toEqual(['keep me', 'kept', 'after rewind']);
	});

	it('closes the Redis store it opened when the execution ends, once per supplied item', async () => {
		const close = jest.spyOn(RedisContextStore.prototype, 'close');
		try {
			const sessionId = `close-${randomUUID()}`;
			await run('redis', [
				{ sessionId, prompt: 'one', answer: 'a' },
				{ sessionId: `${sessionId}-b`, prompt: 'two', answer: 'b' },
			]);
			expect(close).toHaveBeenCalledTimes(2);
		} finally {
			close.mockRestore();
		}
	});

	describe('in queue mode (EXECUTIONS_MODE=queue)', () => {
		const before = process.env.EXECUTIONS_MODE;
		beforeEach(() => {
			process.env.EXECUTIONS_MODE = 'queue';
		});
		afterEach(() => {
			if (before === undefined) delete process.env.EXECUTIONS_MODE;
			else process.env.EXECUTIONS_MODE = before;
		});

		it('refuses In-Memory storage with a sentence that says to use Redis', async () => {
			const { result } = await run('memory', [{ sessionId: 'q', prompt: 'hi', answer: 'x' }]);
			const error = result.errorOf('User') as Error & { description?: string };
			expect(`${error.message} ${error.description}`).toMatch(
				/In-Memory storage does not work in queue mode/,
			);
		});

		it('works with Redis', async () => {
			const { out } = await run('redis', [
				{ sessionId: `q-${randomUUID()}`, prompt: 'hi', answer: 'x' },
			]);
			expect(out()[0].error).toBeUndefined();
		});
	});

	it('a resumed run (saved without a load, as Agent Core resumes an approved run) stores its turn', async () => {
		const sessionId = `resumed-${randomUUID()}`;
		const paused = await supplyDirect(sessionId);
		await paused.load({ prompt: 'delete it', itemIndex: 0 });
		// The paused run ended without an answer: nothing stored, the session let go.
		await paused.save({
			itemIndex: 0,
			result: { messages: [{ role: 'user', content: 'delete it' }] } as never,
		});
		const resumed = await supplyDirect(sessionId);
		await resumed.save({
			itemIndex: 0,
			result: resultOf({ prompt: 'delete it', answer: 'deleted' }),
		});
		const next = await supplyDirect(sessionId);
		const { messages } = await next.load({ prompt: 'done?', itemIndex: 0 });
		expect(messages.map((message) => message.content)).toEqual(['delete it', 'deleted', 'done?']);
	});

	describe('against a hostile caller', () => {
		it('a session ID that tries to leave its key prefix reaches neither another session nor a key outside the prefix', async () => {
			const victim = `victim-${randomUUID()}`;
			await run('redis', [{ sessionId: victim, prompt: 'secret', answer: 'classified' }]);
			for (const sessionId of [
				`${victim}}:turns`,
				`}{${victim}`,
				`../${victim}`,
				`${victim}\r\nFLUSHALL`,
				` ${victim}`,
			]) {
				const { out } = await run('redis', [{ sessionId, prompt: 'hi', answer: 'x' }]);
				expect(out()[0].error).toBeUndefined();
				expect(contents(out()[0])).toEqual(['hi']);
			}
			const written = await redis.admin.keys(`*${victim}*`);
			expect(written.length).toBeGreaterThan(0);
			expect(written.filter((key) => !key.startsWith(`{${keyPrefix}`))).toEqual([]);
			const { out } = await run('redis', [{ sessionId: '  ', prompt: 'hi', answer: 'x' }]);
			expect(out()[0].error).toMatch(/session ID is empty/);
		});

		it('a forged busy token from Agent Context persist neither stores a turn nor frees a session the sub-node holds', async () => {
			const sessionId = `forged-${randomUUID()}`;
			const memory = await supplyDirect(sessionId);
			await memory.load({ prompt: 'mine', itemIndex: 0 });
			const forged = await contextOp('persist', sessionId, {
				messages: '={{ [{"role":"user","content":"forged"},{"role":"assistant","content":"x"}] }}',
				options: { busyLock: 'forged-token' },
			});
			expect(JSON.stringify(forged)).not.toMatch(/"stored":true/);
			const second = await supplyDirect(sessionId);
			await expect(second.load({ prompt: 'other', itemIndex: 0 })).rejects.toThrow(
				/is busy with another run/,
			);
			await memory.save({ itemIndex: 0, result: resultOf({ prompt: 'mine', answer: 'ok' }) });
			const after = await supplyDirect(sessionId);
			expect(
				(await after.load({ prompt: 'next', itemIndex: 0 })).messages.map((m) => m.content),
			).toEqual(['mine', 'ok', 'next']);
		});

		it('cuts an oversize answer to Max Stored Turn Size before storing it', async () => {
			const sessionId = `big-${randomUUID()}`;
			await run('redis', [{ sessionId, prompt: 'big', answer: 'x'.repeat(500_000) }], {
				maxTurnCharacters: 1000,
			});
			const next = await run('redis', [{ sessionId, prompt: 'next', answer: 'ok' }]);
			const stored = contents(next.out()[0]).slice(0, 2).join('');
			expect(stored.length).toBeLessThanOrEqual(1000);
		});

		it('read as a LangChain memory (n8n’s AI Agent), it fails with a sentence naming Agent Core’s Memory input', async () => {
			const memory = (await supplyDirect(`lc-${randomUUID()}`)) as unknown as {
				loadMemoryVariables(): Promise<unknown>;
			};
			await expect(memory.loadMemoryVariables()).rejects.toThrow(
				/works only on Agent Core's Memory input/,
			);
		});
	});

	/** The sub-node's MemoryInput from supplyData with a hand-made supply-data context (no execution around it). */
	async function supplyDirect(sessionId: string): Promise<MemoryInput> {
		const node = memoryNode('redis');
		const parameters: IDataObject = {
			...node.parameters,
			sessionId,
			window: 'allLiveTurns',
			historySize: 'full',
		};
		const context = {
			getNode: () => node,
			getWorkflow: () => ({ id: 'w' }),
			getInputData: () => [{ json: {} }],
			getNodeParameter: (name: string, _item: number, fallback?: unknown) =>
				parameters[name] ?? fallback,
			getCredentials: async () => redisCredentialData(redis.url),
		};
		const supplied = await new AgentContextMemory().supplyData.call(context as never, 0);
		return supplied.response as MemoryInput;
	}
});
