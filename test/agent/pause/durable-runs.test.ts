import { CheckpointError } from '../../../src/agent/pause/checkpoints';
import { openProgress } from '../../../src/agent/pause/paused-run';
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import type { RunAgentOptions } from '../../../src/agent/base/run-options';
import { createChatModel } from '../../../src/providers/create-model';
import { MemoryUsedStates } from '../../../src/run-state/used-states';
import {
	checkpointKey,
	DEFAULT_CHECKPOINT_PREFIX,
	MemoryCheckpoints,
	RedisCheckpoints,
	type CheckpointStore,
} from '../../../src/run-state/checkpoint-store';
import type { Tool } from '../../../src/tools/tool';
import { action, final, useScriptedServer, withoutInput } from '../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../support/servers/http-servers';
import { useTestRedis } from '../../support/redis';
import { rejectionOf } from '../../support/rejection';
import { countingTool, dyingStore, ProcessKilled } from '../../support/durable';

useLoopbackGuard();

/** Issue #30: a run with a run key checkpoints each completed step; started again, it goes on after the last one. */
describe('durable runs', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	const SECRET = 'durable-runs-test-secret-0123456789';
	const API_KEY = 'sk-durable-test-api-key-4f9a2c7e1b';
	let runKeyCount = 0;
	const newRunKey = () => `durable-test-${process.pid}-${Date.now()}-${++runKeyCount}`;
	const model = () =>
		createChatModel({
			provider: 'openai',
			apiKey: API_KEY,
			baseUrl: server().openaiBaseUrl,
			maxRetries: 0,
		});

	/** A run's options; the test's own tools replace the stand-ins of the same name. */
	const options = (
		store: CheckpointStore,
		runKey: string,
		extra: Partial<RunAgentOptions> = {},
	): RunAgentOptions => {
		const given = extra.extraTools ?? [];
		const standIns = [countingTool('send_message').tool, countingTool('lookup', false).tool].filter(
			(tool) => !given.some((mine) => mine.name === tool.name),
		);
		return {
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['send_message', 'lookup', 'http_request'],
				tool_settings: { http_request: PRIVATE_ALLOWED },
			},
			prompt: 'Send the two messages, then say done.',
			stateSecret: SECRET,
			runKey,
			checkpoints: store,
			...extra,
			extraTools: [...given, ...standIns],
		};
	};

	const stores: Array<[string, () => CheckpointStore]> = [
		['in memory', () => new MemoryCheckpoints()],
		[
			'in Redis',
			() =>
				new RedisCheckpoints({
					connection: { url: redis.url },
					keyPrefix: redis.keyPrefix('checkpoint'),
				}),
		],
	];

	describe.each(stores)('%s', (_name, makeStore) => {
		let store: CheckpointStore;
		beforeEach(() => {
			store = makeStore();
		});
		afterEach(() => store.close());

		it('a run that died after step 2 goes on at step 3: the model is asked only for the steps after the checkpoint, and no tool runs twice', async () => {
			const send = countingTool('send_message');
			const runKey = newRunKey();
			server().setScript([
				action('send_message', { value: 1 }),
				action('send_message', { value: 2 }),
				final('never reached'),
			]);
			// Writes: step 1 started, step 1 done, step 2 started, step 2 done — then the process dies.
			const died = await rejectionOf(
				runAgent(options(dyingStore(store, 4), runKey, { extraTools: [send.tool] })),
			);
			expect(died).toBeInstanceOf(ProcessKilled);
			expect(server().requests).toHaveLength(2);

			server().setScript([final('Both messages sent.')]);
			const result = await runAgent(options(store, runKey, { extraTools: [send.tool] }));
			expect(server().requests).toHaveLength(3);
			expect(result).toMatchObject({
				finish_reason: 'final',
				final_answer: 'Both messages sent.',
				used_tools: { send_message: { count: 2 } },
			});
			expect(send.runs).toEqual([{ value: 1 }, { value: 2 }]);
			expect(result.trace.map((step) => step.step)).toEqual([1, 2, 3]);
			expect(result.trace[1].observation).toContain('"value":2');
			// The continued run's only model call carried the whole conversation: request, two calls, two observations.
			const messages = server().requests[2].messages;
			expect(messages.slice(1).map((message) => message.role)).toEqual([
				'user',
				'assistant',
				'user',
				'assistant',
				'user',
			]);
		});

		it("a finished run's key returns the same result without any model call", async () => {
			const runKey = newRunKey();
			server().setScript([final('The answer.')]);
			const first = await runAgent(options(store, runKey));
			server().setScript([]);
			const again = await runAgent(options(store, runKey));
			expect(again).toEqual(first);
			expect(server().requests).toHaveLength(1);
		});

		it('after llm_error the key goes on from the last completed step: the failed call is asked again, completed steps are not', async () => {
			const send = countingTool('send_message');
			const runKey = newRunKey();
			server().setScript([
				action('send_message', { value: 1 }),
				{ status: 503, errorMessage: 'overloaded' },
			]);
			const failed = await runAgent(options(store, runKey, { extraTools: [send.tool] }));
			expect(failed.finish_reason).toBe('llm_error');

			server().setScript([final('Sent.')]);
			const result = await runAgent(options(store, runKey, { extraTools: [send.tool] }));
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'Sent.' });
			expect(send.runs).toHaveLength(1);
			expect(server().requests).toHaveLength(3);
			expect(result.trace.map((step) => step.step)).toEqual([1, 2]);
		});

		it('a read-only call that started and was never recorded simply runs again', async () => {
			const lookup = countingTool('lookup', false);
			const runKey = newRunKey();
			server().setScript([action('lookup', { value: 7 })]);
			// Write 1 is "step 1's call started"; the process dies before step 1 is recorded done.
			await rejectionOf(
				runAgent(options(dyingStore(store, 1, 'instead'), runKey, { extraTools: [lookup.tool] })),
			);
			expect(lookup.runs).toHaveLength(1);

			server().setScript([final('Found 7.')]);
			const result = await runAgent(options(store, runKey, { extraTools: [lookup.tool] }));
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'Found 7.' });
			expect(lookup.runs).toEqual([{ value: 7 }, { value: 7 }]);
			expect(server().requests).toHaveLength(2);
		});

		it('an interrupted side-effecting call ends the run interrupted_call, naming it, without running it or asking the model', async () => {
			const send = countingTool('send_message');
			const runKey = newRunKey();
			server().setScript([action('send_message', { value: 1 })]);
			await rejectionOf(
				runAgent(options(dyingStore(store, 1, 'instead'), runKey, { extraTools: [send.tool] })),
			);
			expect(send.runs).toHaveLength(1);

			server().setScript([]);
			const result = await runAgent(options(store, runKey, { extraTools: [send.tool] }));
			expect(result.finish_reason).toBe('interrupted_call');
			expect(result.stop_detail).toMatch(
				/^the send_message call of step 1 started before the run was interrupted, and its end was never recorded; it has side effects, so it is not run again/,
			);
			expect(send.runs).toHaveLength(1);
			expect(server().requests).toHaveLength(1);
			// The outcome is kept: a retry gets it again, still without running the call.
			expect(await runAgent(options(store, runKey, { extraTools: [send.tool] }))).toEqual(result);
			expect(send.runs).toHaveLength(1);
		});

		it('with approval_required, an interrupted side-effecting call pauses awaiting_approval; approve runs it again, once', async () => {
			const send = countingTool('send_message');
			const runKey = newRunKey();
			const approving = {
				config: {
					model: 'gpt-4o-mini',
					allowed_tools: ['send_message', 'http_request'],
					approval_required: ['http_request'],
				},
				extraTools: [send.tool],
			};
			server().setScript([action('send_message', { value: 1 })]);
			await rejectionOf(runAgent(options(dyingStore(store, 1, 'instead'), runKey, approving)));

			server().setScript([]);
			const paused = await runAgent(options(store, runKey, approving));
			expect(paused).toMatchObject({
				finish_reason: 'awaiting_approval',
				pending_action: { tool: 'send_message', args: { value: 1 } },
			});
			expect(paused.stop_detail).toContain(
				'the send_message call of step 1 started before the run was interrupted',
			);
			expect(paused.stop_detail).toContain("without a person's approval");
			expect(send.runs).toHaveLength(1);

			server().setScript([final('Sent once more.')]);
			const usedStates = new MemoryUsedStates();
			const resume = () =>
				resumeAgent({
					...withoutInput(options(store, runKey, approving)),
					runState: paused.run_state,
					decision: { approve: true },
					usedStates,
				});
			const resumed = await resume();
			expect(resumed).toMatchObject({ finish_reason: 'final', final_answer: 'Sent once more.' });
			expect(send.runs).toEqual([{ value: 1 }, { value: 1 }]);
			// A retry of the resume (the same state, the same run key) gets what came of it, without using the state again.
			expect(await resume()).toEqual(resumed);
			expect(send.runs).toHaveLength(2);
			expect(server().requests).toHaveLength(2);
		});

		it('a resume that died after the approved call goes on from there when retried, instead of refusing the used state', async () => {
			const send = countingTool('send_message');
			const runKey = newRunKey();
			const approving = {
				config: {
					model: 'gpt-4o-mini',
					allowed_tools: ['send_message'],
					approval_required: ['send_message'],
				},
				extraTools: [send.tool],
			};
			server().setScript([action('send_message', { value: 3 })]);
			const paused = await runAgent(options(store, runKey, approving));
			expect(paused.finish_reason).toBe('awaiting_approval');

			const usedStates = new MemoryUsedStates();
			const resume = (checkpoints: CheckpointStore) =>
				resumeAgent({
					...withoutInput(options(checkpoints, runKey, approving)),
					runState: paused.run_state,
					decision: { approve: true },
					usedStates,
				});
			server().setScript([final('never reached')]);
			// Writes: step 1's call started, step 1 done — then the process dies.
			expect(await rejectionOf(resume(dyingStore(store, 2)))).toBeInstanceOf(ProcessKilled);
			expect(send.runs).toHaveLength(1);

			server().setScript([final('Sent.')]);
			const result = await resume(store);
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'Sent.' });
			expect(send.runs).toHaveLength(1);
			expect(server().requests).toHaveLength(2);
		});

		it('refuses a checkpoint made with another configuration, naming the run key, before any model call', async () => {
			const runKey = newRunKey();
			server().setScript([final('Done.')]);
			await runAgent(options(store, runKey));
			const other = options(store, runKey, {
				config: {
					model: 'gpt-4o-mini',
					allowed_tools: ['send_message', 'lookup', 'http_request'],
					tool_settings: { http_request: PRIVATE_ALLOWED },
					max_steps: 3,
				},
			});
			const refused = await rejectionOf(runAgent(other));
			expect(refused).toBeInstanceOf(CheckpointError);
			expect(refused.message).toBe(
				`run key "${runKey}" has a checkpoint of a run with another configuration: a run goes on only with the configuration it started with (the model may differ)`,
			);
			expect(refused.field).toBe('runKey');
			expect(server().requests).toHaveLength(1);
		});

		it('refuses a checkpoint of a run that answered another request; history that grew meanwhile is no other request', async () => {
			const runKey = newRunKey();
			server().setScript([final('Done.')]);
			await runAgent(options(store, runKey));
			const refused = await rejectionOf(
				runAgent(options(store, runKey, { prompt: 'Something else entirely.' })),
			);
			expect(refused.message).toBe(
				`run key "${runKey}" has a checkpoint of a run that answered another request (the prompt, or the last user message): a run goes on only with the request it started with`,
			);
			// A conversation store that kept the run's turn before the retry: the same request, the same result.
			const earlier = [
				{ role: 'user', content: 'Hello' },
				{ role: 'assistant', content: 'Hi.' },
			];
			const again = await runAgent(options(store, runKey, { messages: earlier }));
			expect(again.final_answer).toBe('Done.');
			expect(server().requests).toHaveLength(1);
		});

		it('refuses a checkpoint signed with another state secret', async () => {
			const runKey = newRunKey();
			server().setScript([final('Done.')]);
			await runAgent(options(store, runKey));
			const refused = await rejectionOf(
				runAgent(options(store, runKey, { stateSecret: 'another-secret-of-the-test-98765' })),
			);
			expect(refused).toBeInstanceOf(CheckpointError);
			expect(refused.message).toMatch(
				new RegExp(
					`^run key "${runKey}" has a checkpoint that does not check out: it was altered, or signed with another key`,
				),
			);
		});

		it('an earlier attempt still running stops at its next write once a retry took the run key over; its call is not repeated by it', async () => {
			const send = countingTool('send_message');
			let release!: () => void;
			const slow: Tool = {
				...countingTool('lookup', false).tool,
				execute: () => new Promise((resolve) => (release = () => resolve('slow result'))),
			};
			const runKey = newRunKey();
			server().setScript([action('send_message', { value: 1 }), action('lookup', { value: 2 })]);
			const first = runAgent(options(store, runKey, { extraTools: [send.tool, slow] }));
			while (!release) await new Promise((resolve) => setTimeout(resolve, 10));

			// The retry finds step 1 done and the lookup of step 2 started: a read, so it runs it again itself.
			const fast: Tool = { ...slow, execute: async () => 'fast result' };
			server().setScript([final('Done by the retry.')]);
			const retry = await runAgent(options(store, runKey, { extraTools: [send.tool, fast] }));
			expect(retry).toMatchObject({ finish_reason: 'final', final_answer: 'Done by the retry.' });

			release();
			const stopped = await rejectionOf(first);
			expect(stopped).toBeInstanceOf(CheckpointError);
			expect(stopped.message).toContain(
				`run key "${runKey}" was taken over by another attempt of this run`,
			);
			expect(send.runs).toHaveLength(1);
		});
	});

	it('a request with another prompt under a run key in use is refused and leaves the running run alone', async () => {
		const store = new MemoryCheckpoints();
		let release!: () => void;
		const slow: Tool = {
			...countingTool('lookup', false).tool,
			execute: () => new Promise((resolve) => (release = () => resolve('slow result'))),
		};
		const runKey = newRunKey();
		server().setScript([action('lookup', { value: 1 }), final('The first run finished.')]);
		const first = runAgent(options(store, runKey, { extraTools: [slow] }));
		while (!release) await new Promise((resolve) => setTimeout(resolve, 10));

		const refused = await rejectionOf(
			runAgent(options(store, runKey, { prompt: 'Another request.', extraTools: [slow] })),
		);
		expect(refused.message).toBe(
			`run key "${runKey}" has a checkpoint of a run that answered another request (the prompt, or the last user message): a run goes on only with the request it started with`,
		);
		release();
		expect(await first).toMatchObject({
			finish_reason: 'final',
			final_answer: 'The first run finished.',
		});
	});

	describe('http_request', () => {
		let target: TestServer;
		const seen = new Map<string, unknown>();
		beforeEach(async () => {
			seen.clear();
			// Honours Idempotency-Key: a request with a key it has seen gets the first answer and changes nothing.
			target = await startServer((request, response) => {
				const key = request.headers['idempotency-key'] as string | undefined;
				if (key && seen.has(key)) return sendJson(response, seen.get(key));
				const answer = { order: seen.size + 1, replayed: false };
				if (key) seen.set(key, { ...answer, replayed: true });
				sendJson(response, answer);
			});
		});

		it('a POST that started but was never recorded is sent again with the same Idempotency-Key, which the target deduplicates', async () => {
			const store = new MemoryCheckpoints();
			const runKey = newRunKey();
			const post = action('http_request', {
				url: `${target.url}/orders`,
				method: 'POST',
				body: { item: 'book' },
			});
			server().setScript([post]);
			await rejectionOf(runAgent(options(dyingStore(store, 1, 'instead'), runKey)));
			expect(target.requests).toHaveLength(1);

			server().setScript([final('Ordered.')]);
			const result = await runAgent(options(store, runKey));
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'Ordered.' });
			expect(target.requests.map((request) => request.method)).toEqual(['POST', 'POST']);
			const [sent, again] = target.requests.map((request) => request.headers['idempotency-key']);
			expect(sent).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
			expect(again).toBe(sent);
			expect(seen.size).toBe(1);
			expect(result.trace[0].observation).toContain('"replayed":true');
		});

		it('every call of a durable run carries its own key; a run without a run key sends none, and a key the model gives is kept', async () => {
			const store = new MemoryCheckpoints();
			server().setScript([
				action('http_request', { url: `${target.url}/a` }),
				action('http_request', {
					url: `${target.url}/b`,
					method: 'POST',
					headers: { 'Idempotency-Key': 'from-the-model' },
				}),
				final('Done.'),
			]);
			await runAgent(options(store, newRunKey()));
			server().setScript([action('http_request', { url: `${target.url}/c` }), final('Done.')]);
			await runAgent({ ...options(store, ''), runKey: undefined, checkpoints: undefined });
			const keys = target.requests.map((request) => request.headers['idempotency-key']);
			expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
			expect(keys.slice(1)).toEqual(['from-the-model', undefined]);
		});
	});

	describe('in Redis', () => {
		it("holds no secret in clear: not the API key, a tool credential, the prompt's token or the state secret", async () => {
			const store = new RedisCheckpoints({
				connection: { url: redis.url },
				keyPrefix: redis.keyPrefix('secrets'),
			});
			const prefix = (store as unknown as { keyPrefix: string }).keyPrefix;
			const TOOL_SECRET = 'tool-credential-7d1e0b9c55aa';
			const PROMPT_TOKEN = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
			const runKey = newRunKey();
			const target = await startServer((_request, response) => sendJson(response, { ok: true }));
			const send = countingTool('send_message');
			server().setScript([
				action('http_request', { url: `${target.url}/x`, headers: { 'x-token': PROMPT_TOKEN } }),
				action('send_message', { value: 1 }),
			]);
			const config = {
				model: 'gpt-4o-mini',
				allowed_tools: ['http_request', 'send_message'],
				tool_settings: {
					http_request: {
						...PRIVATE_ALLOWED,
						allow_insecure_headers: true,
						allowed_domains: ['127.0.0.1'],
						headers: { authorization: `Bearer ${TOOL_SECRET}` },
					},
				},
			};
			// Dies with step 2's call started: the record holds the conversation, the pending call and the trace.
			const died = await rejectionOf(
				runAgent(
					options(dyingStore(store, 3, 'instead'), runKey, {
						config,
						extraTools: [send.tool],
						prompt: `Call ${target.url}/x with x-token ${PROMPT_TOKEN}`,
					}),
				),
			);
			expect(died).toBeInstanceOf(ProcessKilled);
			const stored = await redis.admin.hgetall(checkpointKey(prefix, runKey));
			expect(Object.keys(stored).sort()).toEqual(['attempt', 'record', 'run']);
			expect(stored.record).toContain('"sealed"');
			for (const secret of [API_KEY, TOOL_SECRET, PROMPT_TOKEN, SECRET])
				expect(stored.record).not.toContain(secret);
			// It is there, sealed: the run goes on with the token the user gave.
			const { progress } = openProgress(
				stored.record,
				SECRET,
				JSON.parse(stored.record).payload.config_hash,
				{ maxAgeDays: 1 },
			);
			expect(progress.pending).toEqual({ tool: 'send_message', args: { value: 1 } });
			expect(JSON.stringify(progress.conversation)).toContain(PROMPT_TOKEN);
			expect(await redis.admin.ttl(checkpointKey(prefix, runKey))).toBeGreaterThan(86_000);
			await store.close();
		});

		it('refuses a checkpoint altered in Redis (its signature), naming the run key', async () => {
			const store = new RedisCheckpoints({
				connection: { url: redis.url },
				keyPrefix: redis.keyPrefix('tamper'),
			});
			const prefix = (store as unknown as { keyPrefix: string }).keyPrefix;
			const send = countingTool('send_message');
			const runKey = newRunKey();
			server().setScript([
				action('send_message', { value: 1 }),
				{ status: 503, errorMessage: 'overloaded' },
			]);
			expect(
				(await runAgent(options(store, runKey, { extraTools: [send.tool] }))).finish_reason,
			).toBe('llm_error');
			const key = checkpointKey(prefix, runKey);
			const record = JSON.parse((await redis.admin.hget(key, 'record'))!);
			record.payload.tool_calls = 0;
			await redis.admin.hset(key, 'record', JSON.stringify(record));

			const refused = await rejectionOf(
				runAgent(options(store, runKey, { extraTools: [send.tool] })),
			);
			expect(refused).toBeInstanceOf(CheckpointError);
			expect(refused.message).toBe(
				`run key "${runKey}" has a checkpoint that does not check out: it was altered, or signed with another key`,
			);
			expect(send.runs).toHaveLength(1);
			await store.close();
		});

		it("keys a run's checkpoint as agent_core:checkpoint:{<run key>}, one Redis Cluster slot per run", () => {
			expect(checkpointKey(DEFAULT_CHECKPOINT_PREFIX, 'exec-42:0')).toBe(
				'agent_core:checkpoint:{exec-42:0}',
			);
		});
	});

	describe('refusals before anything runs', () => {
		it.each([
			[{ checkpoints: undefined }, 'runKey needs a checkpoint store'],
			[
				{ stateSecret: undefined },
				"a durable run's checkpoints are sealed and signed like a paused run's state: they need a signing key",
			],
			[{ runKey: '' }, 'runKey must be text of 1 to 1024 characters'],
		])('%j', async (change, message) => {
			server().setScript([final('never')]);
			const refused = await rejectionOf(
				runAgent({ ...options(new MemoryCheckpoints(), newRunKey()), ...change }),
			);
			expect(refused).toBeInstanceOf(CheckpointError);
			expect(refused.message).toContain(message);
			expect(server().requests).toHaveLength(0);
		});
	});
});
