import { randomUUID } from 'node:crypto';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { runCli } from '../../support/cli';
import { AgentContext } from '../../../nodes/AgentContext/AgentContext.node';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { final, useScriptedServer } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import { redisSessionKeys } from '../../../src/context/redis/redis-store';
import { withSharedRedis } from '../../../src/redis/shared-clients';
import { redisConnectionFromCredential } from '../../../nodes/shared/redis-credential';
import {
	deleteKeysByPrefix,
	getTestRedis,
	redisCredentialData,
	uniqueKeyPrefix,
	type TestRedis,
} from '../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../support/test-nodes';

const REDIS_CREDENTIAL = { agentCoreRedisApi: { id: '3', name: 'Test Redis' } };

describe('Agent Context → Agent Core → Agent Context in n8n’s engine', () => {
	const server = useScriptedServer();
	let redis: TestRedis;
	let client: Redis;
	const keyPrefix = uniqueKeyPrefix('node-chain');

	beforeAll(async () => {
		redis = await getTestRedis();
		client = new Redis(redis.url);
	});
	afterAll(async () => {
		await deleteKeysByPrefix(client, keyPrefix);
		// A session's keys are tagged by its whole session key, history prefix included: {<prefix><session>}:turns.
		await deleteKeysByPrefix(client, `{${keyPrefix}`);
		client.disconnect();
		await redis.stop();
	});

	function redisCredentials(url = redis.url) {
		return { agentCoreRedisApi: redisCredentialData(url) };
	}

	function contextNode(
		name: string,
		operation: string,
		storage: string,
		extra: INodeParameters = {},
		options: INodeParameters = { keyPrefix },
	): INode {
		return createNode({
			name,
			type: 'agentContext',
			parameters: { operation, storage, options, ...extra },
			settings: storage === 'redis' ? { credentials: REDIS_CREDENTIAL } : {},
		});
	}

	async function chain(
		storage: 'redis' | 'memory',
		item: IDataObject,
		redisUrl?: string,
		options?: INodeParameters,
	) {
		return runWorkflow({
			nodes: [
				createInputNode([item], 'Webhook'),
				contextNode('Prepare', 'prepare', storage, {}, options),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: {
						model: { __rl: true, mode: 'id', value: 'scripted-model' },
						inputMode: 'messages',
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
				contextNode('Persist', 'persist', storage, {}, options),
			],
			connections: connectInSequence('Webhook', 'Prepare', 'Agent Core', 'Persist'),
			nodeTypes: { agentCore: new AgentCore(), agentContext: new AgentContext() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				...redisCredentials(redisUrl),
			},
		});
	}

	/** Answers from what the model was sent: it "remembers" only what the history gave it. */
	const rememberingModel = () =>
		server().setScript((request) => {
			const earlier = request.messages
				.slice(1, -1)
				.map((message) => message.content)
				.join(' ');
			const name = /my name is (\w+)/i.exec(earlier)?.[1];
			return final(name ? `You are ${name}.` : 'Hello, stranger.');
		});

	describe.each(['redis', 'memory'] as const)('with %s storage', (storage) => {
		it('carries the first turn into the second turn’s model request', async () => {
			rememberingModel();
			const session = `s-${randomUUID()}`;
			const first = await chain(storage, {
				body: { session_id: session, prompt: 'My name is Grace' },
			});
			expect(first.outputOf('Persist')[0].json).toMatchObject({
				final_answer: 'Hello, stranger.',
				session_id: session,
				context: { session_id: session, stored_turns: 1, persisted_messages: 2 },
			});

			const second = await chain(storage, { body: { session_id: session, prompt: 'Who am I?' } });
			expect(second.outputOf('Persist')[0].json).toMatchObject({
				final_answer: 'You are Grace.',
				context: { stored_turns: 2 },
			});
			const sent = server().requests[1].messages;
			expect(sent.slice(1).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
			expect(sent[1].content).toBe('My name is Grace');
			expect(sent[3].content).toBe('Who am I?');
			expect(second.outputOf('Prepare')[0].json).toMatchObject({
				history_turns: 1,
				stored_turns: 1,
				skipped_corrupt: 0,
			});
		});
	});

	it('reuses one Redis connection per process across executions instead of opening one each (issue #20)', async () => {
		rememberingModel();
		const session = `s-${randomUUID()}`;
		const connection = redisConnectionFromCredential(redisCredentialData(redis.url));
		await chain('redis', { body: { session_id: session, prompt: 'My name is Ada' } });
		const id = String(await withSharedRedis(connection, (shared) => shared.client('ID')));
		const lastCommandOf = async () =>
			/cmd=(\S+)/.exec(String(await client.client('LIST', 'ID', id)))?.[1];
		expect(await lastCommandOf()).toBe('client|id');
		await chain('redis', { body: { session_id: session, prompt: 'Who am I?' } });
		// The executions' prepare and persist ran on that same connection: its last command is persist's script.
		expect(await lastCommandOf()).toMatch(/^evalsha$|^eval$/);
		expect(await withSharedRedis(connection, (shared) => shared.client('ID'))).toBe(Number(id));
	});

	it.each([1, 2])(
		'with Input left at Prompt (node version %i), the history prepare loaded is used, not silently dropped (issue #41)',
		async (typeVersion) => {
			rememberingModel();
			const sessionId = `prompt-${typeVersion}-${randomUUID()}`;
			const turn = (chatInput: string) =>
				runWorkflow({
					nodes: [
						createInputNode([{ action: 'sendMessage', sessionId, chatInput }], 'Chat'),
						contextNode('Prepare', 'prepare', 'memory'),
						createNode({
							name: 'Agent Core',
							type: 'agentCore',
							typeVersion,
							parameters: {
								...(typeVersion === 2 ? { provider: 'openai' } : {}),
								model: { __rl: true, mode: 'id', value: 'scripted-model' },
							},
							settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
						}),
						contextNode('Persist', 'persist', 'memory'),
					],
					connections: connectInSequence('Chat', 'Prepare', 'Agent Core', 'Persist'),
					nodeTypes: { agentCore: new AgentCore(), agentContext: new AgentContext() },
					credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
				});
			await turn('My name is Grace');
			const second = await turn('Who am I?');
			expect(second.errorOf('Agent Core')).toBeUndefined();
			expect(second.outputOf('Persist')[0].json).toMatchObject({ output: 'You are Grace.' });
			// The question is asked once, not twice.
			const last = server().requests[server().requests.length - 1];
			expect(last.messages.filter((message) => message.content === 'Who am I?')).toHaveLength(1);
		},
	);

	it('follows a Chat Trigger conversation (sessionId, chatInput) with the default fields, the reply in output', async () => {
		rememberingModel();
		const sessionId = `chat-${randomUUID()}`;
		const chatMessage = (chatInput: string) => ({ action: 'sendMessage', sessionId, chatInput });
		const first = await chain('memory', chatMessage('My name is Linus'));
		expect(first.outputOf('Persist')[0].json).toMatchObject({
			output: 'Hello, stranger.',
			session_id: sessionId,
			context: { stored_turns: 1 },
		});

		const second = await chain('memory', chatMessage('Who am I?'));
		expect(second.outputOf('Persist')[0].json).toMatchObject({
			output: 'You are Linus.',
			final_answer: 'You are Linus.',
			context: { stored_turns: 2 },
		});
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

		it('refuses In-Memory storage with an error that says to use Redis, before the model is called', async () => {
			const result = await chain('memory', {
				body: { session_id: `queue-${randomUUID()}`, prompt: 'hi' },
			});
			const error = result.errorOf('Prepare') as Error & { description?: string };
			expect(error.message).toMatch(/In-Memory storage does not work in queue mode/);
			expect(error.description).toMatch(/Set Storage to Redis/);
			expect(server().requests).toHaveLength(0);
		});

		it('keeps working on Redis', async () => {
			rememberingModel();
			const result = await chain('redis', {
				body: { session_id: `queue-${randomUUID()}`, prompt: 'My name is Q' },
			});
			expect(result.outputOf('Persist')[0].json).toMatchObject({
				final_answer: 'Hello, stranger.',
				context: { stored_turns: 1 },
			});
		});
	});

	it('an unanswered run stores nothing; with Store Unanswered Question it is kept, marked, and never replayed', async () => {
		const session = `unanswered-${randomUUID()}`;
		server().setScript('not the protocol');
		const failed = await chain('redis', {
			body: { session_id: session, prompt: 'First question' },
		});
		expect(failed.outputOf('Persist')[0].json).toMatchObject({
			finish_reason: 'parse_error',
			context: { stored: false, stored_turns: null, persisted_messages: 0 },
		});
		expect(await client.llen(redisSessionKeys('', `${keyPrefix}${session}`).turns)).toBe(0);

		await chain('redis', { body: { session_id: session, prompt: 'Second question' } }, undefined, {
			keyPrefix,
			storeUnanswered: true,
		});
		const stored = (
			await client.lrange(redisSessionKeys('', `${keyPrefix}${session}`).turns, 0, -1)
		).map((entry) => JSON.parse(entry));
		expect(stored).toMatchObject([
			{ unanswered: true, messages: [{ role: 'user', content: 'Second question' }] },
		]);

		rememberingModel();
		await chain('redis', { body: { session_id: session, prompt: 'Third question' } });
		const sent = server().requests.at(-1)!.messages;
		expect(sent.slice(1)).toEqual([{ role: 'user', content: 'Third question' }]);
	});

	it('a conversation started by the CLI continues in the node and back: one key layout', async () => {
		const session = `shared-${randomUUID()}`;
		const folder = mkdtempSync(join(tmpdir(), 'agent-core-shared-'));
		const config = join(folder, 'config.json');
		writeFileSync(config, JSON.stringify({ model: 'scripted-model' }));
		const cli = (prompt: string) =>
			runCli([
				'run',
				'--config',
				config,
				'--prompt',
				prompt,
				'--base-url',
				server().openaiBaseUrl,
				'--api-key',
				'k',
				'--session',
				session,
				'--redis-url',
				redis.url,
			]);
		try {
			rememberingModel();
			const first = await cli('My name is Ada');
			expect(JSON.parse(first.stdout)).toMatchObject({
				context: { history_turns: 0, stored_turns: 1 },
			});
			const inNode = await chain(
				'redis',
				{ body: { session_id: session, prompt: 'Who am I?' } },
				undefined,
				{},
			);
			expect(inNode.outputOf('Persist')[0].json).toMatchObject({
				final_answer: 'You are Ada.',
				context: { stored_turns: 2 },
			});
			const back = await cli('And again?');
			expect(JSON.parse(back.stdout)).toMatchObject({
				final_answer: 'You are Ada.',
				context: { history_turns: 2, stored_turns: 3 },
			});
			expect(await client.exists(redisSessionKeys('', `agent_core:ctx:${session}`).turns)).toBe(1);
		} finally {
			await deleteKeysByPrefix(client, `{agent_core:ctx:${session}`);
			rmSync(folder, { recursive: true, force: true });
		}
	});

	it('keeps separate sessions apart', async () => {
		rememberingModel();
		await chain('redis', { body: { session_id: 'alpha', prompt: 'My name is Alan' } });
		const other = await chain('redis', { body: { session_id: 'beta', prompt: 'Who am I?' } });
		expect(other.outputOf('Persist')[0].json.final_answer).toBe('Hello, stranger.');
	});

	async function single(
		operation: string,
		parameters: INodeParameters,
		item: IDataObject,
		settings: Partial<INode> = {},
		redisUrl?: string,
	) {
		const node = contextNode('Context', operation, 'redis', parameters);
		return runWorkflow({
			nodes: [createInputNode([item]), { ...node, ...settings }],
			connections: connectInSequence('Input', 'Context'),
			nodeTypes: { agentContext: new AgentContext() },
			credentials: redisCredentials(redisUrl),
		});
	}

	it('gets and clears a session', async () => {
		rememberingModel();
		await chain('redis', { body: { session_id: 'to-clear', prompt: 'My name is Kay' } });
		const got = await single('get', {}, { session_id: 'to-clear' });
		expect(got.outputOf('Context')[0].json).toMatchObject({
			stored_turns: 1,
			ttl_seconds: expect.any(Number),
		});
		const cleared = await single('clear', {}, { session_id: 'to-clear' });
		expect(cleared.outputOf('Context')[0].json).toEqual({ session_id: 'to-clear', deleted: true });
		const after = await single('get', {}, { session_id: 'to-clear' });
		expect(after.outputOf('Context')[0].json).toMatchObject({ stored_turns: 0 });
	});

	it('skips and counts corrupt stored entries instead of failing prepare', async () => {
		const answered = [
			{ role: 'user', content: 'ok' },
			{ role: 'assistant', content: 'fine' },
		];
		// Written in the layout before Redis Cluster support (no hash tag): prepare still finds it.
		await client.rpush(
			`${keyPrefix}corrupt:turns`,
			'not json',
			JSON.stringify({ messages: answered, at: new Date().toISOString() }),
			'{"wrong":"shape"}',
		);
		const result = await single('prepare', { userMessage: 'next' }, { session_id: 'corrupt' });
		expect(result.outputOf('Context')[0].json).toMatchObject({
			history_turns: 1,
			skipped_corrupt: 2,
		});
	});

	it('names Redis and its address when it is down, within seconds, and honours continueOnFail', async () => {
		const started = Date.now();
		const down = await single('prepare', {}, { session_id: 'x' }, {}, 'redis://127.0.0.1:1');
		expect(down.errorOf('Context')?.message).toMatch(/Redis at 127\.0\.0\.1:1 is unreachable/);
		expect(Date.now() - started).toBeLessThan(5000);
		const tolerant = await single(
			'prepare',
			{},
			{ session_id: 'x' },
			{ continueOnFail: true },
			'redis://127.0.0.1:1',
		);
		expect(tolerant.outputOf('Context')[0].json.error).toMatch(/Redis at 127\.0\.0\.1:1/);
	});

	it.each([
		['prepare', { sessionId: '={{ $json.body.session_id }}' }, { body: {} }, 'session ID is empty'],
		['persist', {}, { session_id: 'p', messages: 'oops' }, 'messages is not valid JSON'],
		[
			'persist',
			{},
			{ session_id: 'p', messages: [{ role: 'robot', content: 'x' }] },
			'messages[0].role must be',
		],
	])(
		'%s refuses bad input %j with a message naming the field',
		async (operation, parameters, item, message) => {
			const result = await single(operation, parameters as INodeParameters, item);
			expect(result.errorOf('Context')?.message).toContain(message);
		},
	);
});

describe('long memory through Agent Context version 2 in n8n’s engine (issue #31)', () => {
	const server = useScriptedServer();
	let redis: TestRedis;
	let client: Redis;
	const keyPrefix = uniqueKeyPrefix('node-memory');

	beforeAll(async () => {
		redis = await getTestRedis();
		client = new Redis(redis.url);
	});
	afterAll(async () => {
		await deleteKeysByPrefix(client, `{${keyPrefix}`);
		client.disconnect();
		await redis.stop();
	});

	const credentials = () => ({
		agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
		agentCoreRedisApi: redisCredentialData(redis.url),
	});
	const context = (
		name: string,
		operation: string,
		extra: INodeParameters = {},
		options: INodeParameters = {},
		typeVersion = 2,
	): INode =>
		createNode({
			name,
			type: 'agentContext',
			typeVersion,
			parameters: { operation, storage: 'redis', options: { keyPrefix, ...options }, ...extra },
			settings: { credentials: REDIS_CREDENTIAL },
		});
	const keysOf = (session: string) => redisSessionKeys('', `${keyPrefix}${session}`);

	/** Webhook → Load History (prepare) → Agent Core → Save Turn (persist), as the examples name them. */
	function chain(item: IDataObject, options: INodeParameters = {}, typeVersion = 2) {
		return runWorkflow({
			nodes: [
				createInputNode([item], 'Webhook'),
				context('Load History', 'prepare', {}, options, typeVersion),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: {
						model: { __rl: true, mode: 'id', value: 'scripted-model' },
						inputMode: 'messages',
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
				context('Save Turn', 'persist', {}, options, typeVersion),
			],
			connections: connectInSequence('Webhook', 'Load History', 'Agent Core', 'Save Turn'),
			nodeTypes: { agentCore: new AgentCore(), agentContext: new AgentContext() },
			credentials: credentials(),
		});
	}

	function single(
		operation: string,
		parameters: INodeParameters,
		item: IDataObject,
		options: INodeParameters = {},
	) {
		return runWorkflow({
			nodes: [createInputNode([item]), context('Context', operation, parameters, options)],
			connections: connectInSequence('Input', 'Context'),
			nodeTypes: { agentContext: new AgentContext() },
			credentials: credentials(),
		});
	}

	/** Answers naming the question it answers: `first` after `delayMs`, any other at once. */
	const slowModel = (delayMs: number) =>
		server().setScript((request) => {
			const question = request.messages.at(-1)!.content;
			return { text: final(`answered: ${question}`), delayMs: question === 'first' ? delayMs : 0 };
		});
	/** Resolves once a run holds the session's lock (its prepare is done), so the next message surely meets it. */
	async function untilLocked(session: string): Promise<void> {
		while ((await client.exists(keysOf(session).busy)) === 0)
			await new Promise((resolve) => setTimeout(resolve, 10));
	}
	/** Runs `first` on the session and, once it holds the lock, `second`. */
	async function racing(session: string, options: INodeParameters, typeVersion = 2) {
		const early = chain({ body: { session_id: session, prompt: 'first' } }, options, typeVersion);
		if (typeVersion >= 2) await untilLocked(session);
		const late = await chain(
			{ body: { session_id: session, prompt: 'second' } },
			options,
			typeVersion,
		);
		return [await early, late] as const;
	}

	it('takes the session lock in prepare and lets go of it in persist, which finds the token through Agent Core by itself', async () => {
		slowModel(0);
		const session = `lock-${randomUUID()}`;
		const first = await chain({ body: { session_id: session, prompt: 'one' } });
		expect(first.outputOf('Load History')[0].json.busy_token).toMatch(/^0:[0-9a-f-]{36}$/);
		expect(first.outputOf('Agent Core')[0].json).not.toHaveProperty('busy_token');
		expect(first.outputOf('Save Turn')[0].json).toMatchObject({
			final_answer: 'answered: one',
			context: { stored: true, seq: 1 },
		});
		expect(await client.exists(keysOf(session).busy)).toBe(0);
		const second = await chain({ body: { session_id: session, prompt: 'two' } });
		expect(second.outputOf('Save Turn')[0].json).toMatchObject({
			context: { stored: true, seq: 2 },
		});
	});

	it('Busy Session Reject (the default): of two messages racing on one session, the second fails in prepare and the model is asked once', async () => {
		slowModel(1000);
		const session = `race-${randomUUID()}`;
		const [early, late] = await racing(session, {});
		expect(early.outputOf('Save Turn')[0].json).toMatchObject({
			context: { stored: true, seq: 1 },
		});
		expect(late.errorOf('Load History')?.message).toBe(
			`session "${session}" is busy with another run; try again when it answered`,
		);
		expect(server().requests).toHaveLength(1);
		expect(await client.llen(keysOf(session).turns)).toBe(1);
	});

	it('Busy Session Latest: the later message wins; the earlier run stores nothing and says so', async () => {
		slowModel(1000);
		const session = `latest-${randomUUID()}`;
		const [early, late] = await racing(session, { busyPolicy: 'latest' });
		expect(early.outputOf('Save Turn')[0].json).toMatchObject({
			final_answer: 'answered: first',
			context: { stored: false, skipped: expect.stringContaining('a later message took session') },
		});
		expect(late.outputOf('Save Turn')[0].json).toMatchObject({ context: { stored: true, seq: 1 } });
		const stored = (await client.lrange(keysOf(session).turns, 0, -1)).map(
			(entry) => JSON.parse(entry).messages[0].content,
		);
		expect(stored).toEqual(['second']);
	});

	it('Busy Session Wait: the later message waits for the earlier turn and sees it', async () => {
		slowModel(500);
		const session = `wait-${randomUUID()}`;
		await racing(session, { busyPolicy: 'wait' });
		const secondRequest = server().requests.find(
			(request) => request.messages.at(-1)!.content === 'second',
		)!;
		expect(secondRequest.messages.map((message) => message.content)).toEqual(
			expect.arrayContaining(['first']),
		);
		expect(await client.llen(keysOf(session).turns)).toBe(2);
	});

	it('version 1 nodes keep running overlapping messages without a lock, as before', async () => {
		slowModel(300);
		const session = `v1-${randomUUID()}`;
		await Promise.all([
			chain({ body: { session_id: session, prompt: 'first' } }, {}, 1),
			chain({ body: { session_id: session, prompt: 'second' } }, {}, 1),
		]);
		expect(await client.llen(keysOf(session).turns)).toBe(2);
	});

	it("stores the summary and tool results of Agent Core's messages output; List Turns shows what moved; Rewind and Fork work by turn number", async () => {
		const session = `ops-${randomUUID()}`;
		const persist = (messages: unknown[]) =>
			single('persist', {}, { session_id: session, messages });
		for (const question of ['one', 'two', 'three'])
			await persist([
				{ role: 'user', content: question },
				{ role: 'assistant', content: `re ${question}` },
			]);
		const summaryMessage = {
			role: 'assistant',
			content: 'They said one and two.',
			summary: {
				through_seq: 2,
				replaced_turns: 2,
				model: 'scripted-model',
				tokens_before: 80,
				tokens_after: 10,
				at: new Date().toISOString(),
			},
		};
		const toolResults = [{ step: 1, tool: 'lookup', args: { q: 'x' }, observation: 'found x' }];
		const stored = await persist([
			summaryMessage,
			{ role: 'user', content: 'four' },
			{ role: 'assistant', content: 're four', tool_results: toolResults },
		]);
		expect(stored.outputOf('Context')[0].json).toMatchObject({
			context: { stored: true, seq: 4, archived_turns: 2, summary_stored: true },
		});

		const listed = (await single('list', {}, { session_id: session })).outputOf('Context')[0].json;
		expect(listed).toMatchObject({
			session_id: session,
			live_turns: 2,
			archived_turns: 2,
			last_seq: 4,
			summary: { through_seq: 2 },
		});
		expect(
			(listed.turns as Array<{ seq: number; state: string; tool_results: number }>).map(
				(turn) => `${turn.seq}:${turn.state}:${turn.tool_results}`,
			),
		).toEqual(['1:summarised:0', '2:summarised:0', '3:live:0', '4:live:1']);

		const prepared = (
			await single(
				'prepare',
				{ userMessage: 'five' },
				{ session_id: session },
				{ busyPolicy: 'off' },
			)
		).outputOf('Context')[0].json;
		expect(prepared.messages_json).toEqual([
			summaryMessage,
			{ role: 'user', content: 'three', seq: 3 },
			{ role: 'assistant', content: 're three' },
			{ role: 'user', content: 'four', seq: 4 },
			{ role: 'assistant', content: 're four', tool_results: toolResults },
			{ role: 'user', content: 'five' },
		]);

		const forked = await single(
			'fork',
			{ toSessionId: `${session}-b`, turn: 3 },
			{ session_id: session },
		);
		expect(forked.outputOf('Context')[0].json).toEqual({
			session_id: session,
			to_session_id: `${session}-b`,
			turns: 1,
			summary: true,
			restored: 0,
			last_seq: 3,
		});
		const again = await single(
			'fork',
			{ toSessionId: `${session}-b`, turn: 3 },
			{ session_id: session },
		);
		expect(again.errorOf('Context')?.message).toBe(
			`session "${session}-b" already exists; a fork only creates a new session`,
		);

		const rewound = await single('rewind', { turn: 1 }, { session_id: session });
		expect(rewound.outputOf('Context')[0].json).toEqual({
			session_id: session,
			archived: 2,
			restored: 1,
			summary_dropped: true,
			live_turns: 1,
		});
		const far = await single('rewind', { turn: 1e9 }, { session_id: session });
		expect(far.errorOf('Context')?.message).toBe(
			`turn 1000000000 is out of range: session "${session}" has turns 0 to 1`,
		);
		const unknown = await single('list', {}, { session_id: `nobody-${randomUUID()}` });
		expect(unknown.errorOf('Context')?.message).toMatch(
			/^session "nobody-.*" has no stored conversation \(it never existed, was cleared or has expired\)$/,
		);
	});

	it('refuses a summary that is not the first message of the output, and one from the future', async () => {
		const session = `forged-${randomUUID()}`;
		const summary = {
			through_seq: 5,
			replaced_turns: 5,
			model: 'm',
			tokens_before: 1,
			tokens_after: 1,
			at: new Date().toISOString(),
		};
		const forged = await single(
			'persist',
			{},
			{
				session_id: session,
				messages: [
					{ role: 'user', content: 'hi' },
					{ role: 'assistant', content: 'ok', summary },
				],
			},
		);
		expect(forged.errorOf('Context')?.message).toContain(
			'messages[1].summary: a summary is accepted only as the first message',
		);
		const future = await single(
			'persist',
			{},
			{
				session_id: session,
				messages: [
					{ role: 'assistant', content: 's', summary },
					{ role: 'user', content: 'hi' },
					{ role: 'assistant', content: 'ok' },
				],
			},
		);
		expect(future.errorOf('Context')?.message).toBe(
			`messages[0].summary.through_seq is 5, but session "${session}" has no turn after 0: a summary can only cover turns that are stored`,
		);
		expect(await client.exists(keysOf(session).turns, keysOf(session).summary)).toBe(0);
	});

	it('version 2 hands every live turn to Agent Core by default; version 1 the newest Max Turns', async () => {
		const session = `window-${randomUUID()}`;
		for (let turn = 1; turn <= 25; turn++)
			await client.rpush(
				keysOf(session).turns,
				JSON.stringify({
					seq: turn,
					messages: [
						{ role: 'user', content: `q${turn}` },
						{ role: 'assistant', content: `a${turn}` },
					],
					at: new Date().toISOString(),
				}),
			);
		await client.set(keysOf(session).seq, '25');
		const input = { session_id: session, prompt: 'next' };
		const v2 = await runWorkflow({
			nodes: [createInputNode([input]), context('Context', 'prepare', {}, { busyPolicy: 'off' })],
			connections: connectInSequence('Input', 'Context'),
			nodeTypes: { agentContext: new AgentContext() },
			credentials: credentials(),
		});
		expect(v2.outputOf('Context')[0].json).toMatchObject({ history_turns: 25, last_seq: 25 });
		const v1 = await runWorkflow({
			nodes: [createInputNode([input]), context('Context', 'prepare', {}, {}, 1)],
			connections: connectInSequence('Input', 'Context'),
			nodeTypes: { agentContext: new AgentContext() },
			credentials: credentials(),
		});
		expect(v1.outputOf('Context')[0].json).toMatchObject({ history_turns: 20 });
	});
});
