// Every Redis feature on a real local Redis Cluster (3 masters, 1 replica each), reached through URLs naming different nodes.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ICredentialTestFunctions } from 'n8n-workflow';
import { AgentContext } from '../../nodes/AgentContext/AgentContext.node';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { testRedisCredential } from '../../nodes/shared/redis-credential';
import { budgetKey, RedisBudgetLedger } from '../../src/budget/redis-ledger';
import { RedisContextStore, redisSessionKeys } from '../../src/context/redis/redis-store';
import { persistSession, prepareSession } from '../../src/context/session/session';
import { RedisError } from '../../src/context/store';
import { quitClient } from '../../src/redis/connection';
import { hashTag, keySlot } from '../../src/redis/hash-tag';
import { isClusterClient, openRedisClient, pingRedis } from '../../src/redis/open-client';
import { closeSharedRedisClients } from '../../src/redis/shared-clients';
import { checkpointKey, RedisCheckpoints } from '../../src/run-state/checkpoint-store';
import { RedisUsedStates } from '../../src/run-state/used-states';
import {
	redisContextTool,
	sessionNamespace,
	type RedisContextArgs,
} from '../../src/tools/redis-context';
import { validateAgainst } from '../../src/validation/validate';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { engineInstanceId, runWorkflow } from '../support/n8n-engine';
import { startRedisCluster, type TestRedisCluster } from '../support/redis-cluster';
import { connectInSequence, createInputNode, createNode } from '../support/test-nodes';

let cluster: TestRedisCluster;
const closing: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
	cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
	await Promise.all(closing.splice(0).map((owner) => owner.close()));
	await closeSharedRedisClients();
	await cluster?.stop();
});

/** The URL of the cluster's node `index` (0–5: masters and replicas alike). */
const node = (index: number) => cluster.urls[index];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function owned<T extends { close(): Promise<void> }>(owner: T): T {
	closing.push(owner);
	return owner;
}

/**
 * Units (sessions, scopes) whose keys (`keyOf`) are served by each of the three masters, `perMaster` of each, so a
 * test covers every node rather than the one its units happen to hash to.
 */
async function onEveryMaster(
	label: string,
	keyOf: (unit: string) => string,
	perMaster = 3,
): Promise<string[]> {
	const masterPortOf = await cluster.masterPorts();
	const byMaster = new Map<number, string[]>();
	for (
		let index = 0;
		[...byMaster.values()].filter((units) => units.length >= perMaster).length < 3;
		index++
	) {
		const unit = `${label}-${index}-${randomUUID().slice(0, 8)}`;
		const units = byMaster.get(masterPortOf(keySlot(keyOf(unit)))) ?? [];
		if (units.length < perMaster) units.push(unit);
		byMaster.set(masterPortOf(keySlot(keyOf(unit))), units);
	}
	return [...byMaster.values()].flat();
}

describe('finding out that a connection names a cluster node', () => {
	it('opens a cluster client from any node, a replica included, and a plain client nowhere', async () => {
		for (const url of [node(0), node(4)]) {
			const client = await openRedisClient({ url });
			try {
				expect(isClusterClient(client)).toBe(true);
				// Writes to keys of every slot range go to their masters (a plain client would get MOVED).
				for (const key of await onEveryMaster('route', (unit) => unit))
					await client.set(key, 'x', 'EX', 60);
			} finally {
				await quitClient(client);
			}
		}
	});

	it('computes the slot of a key as Redis does, hash tags included', async () => {
		const admin = cluster.admin();
		const keys = [
			'',
			'plain',
			'{user1000}.following',
			'foo{}{bar}',
			'foo{{bar}}zap',
			'foo{bar}{zap}',
			'{}x',
			'ünïcødé{€}',
			hashTag('a}b{%c'),
		];
		for (const key of keys)
			expect(keySlot(key)).toBe(Number(await admin.call('CLUSTER', 'KEYSLOT', key)));
	});

	it('refuses a database other than 0, naming Redis and saying why, on every surface', async () => {
		const store = owned(new RedisContextStore({ connection: { url: `${node(1)}/1` } }));
		const error = (await store
			.prepare('chat', { maxTurns: 5, maxCharacters: 0 })
			.catch((caught: unknown) => caught)) as RedisError;
		expect(error).toBeInstanceOf(RedisError);
		const address = new URL(node(1)).host;
		expect(error.message).toBe(
			`Redis at ${address} is a node of a Redis Cluster, and a cluster has only database 0: database 1 cannot be used`,
		);
		expect(error.details.failure).toBe('configuration');
		expect(error.fixNaming('--redis-url')).toBe(
			"Set the database in --redis-url to 0 (the /1 at the end of a Redis URL, or the credential's Database).",
		);

		const { hostname, port } = new URL(node(2));
		const credentialTest = await testRedisCredential.call({} as ICredentialTestFunctions, {
			id: '1',
			name: 'Redis',
			type: 'agentCoreRedisApi',
			data: { host: hostname, port: Number(port), database: 2, tls: false },
		});
		expect(credentialTest).toEqual({
			status: 'Error',
			message: expect.stringContaining(
				'is a node of a Redis Cluster, and a cluster has only database 0',
			),
		});
		await expect(
			callRedisContext({ operation: 'list' }, 'chat', { redis_url: `${node(3)}/1` }),
		).rejects.toThrow(/^redis_context failed: Redis at .* Redis Cluster/);
	});

	it('leaves a process free to end while its shared cluster client is idle (as with a plain client)', async () => {
		// The built package, as n8n loads it; the process persists a turn on the process's shared client and never closes it.
		const store = join(__dirname, '..', '..', 'dist', 'src', 'context', 'redis', 'redis-store.js');
		const script = `
      const { RedisContextStore } = require(${JSON.stringify(store)});
      const turn = { messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], at: new Date().toISOString() };
      new RedisContextStore({ shared: { url: process.argv[1] } })
        .persist('idle-${randomUUID()}', turn, { maxStoredTurns: 5, ttlSeconds: 60 })
        .then((result) => console.log(JSON.stringify(result)));`;
		const started = Date.now();
		const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
			execFile(process.execPath, ['-e', script, node(3)], { timeout: 10_000 }, (error, out) =>
				error ? reject(error) : resolve({ stdout: out }),
			),
		);
		expect(stdout).toBe('{"storedTurns":1}\n');
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it('passes the credential test (PING) on any node', async () => {
		expect(await pingRedis({ url: node(5) })).toMatchObject({ ok: true });
	});
});

describe('conversations on a cluster', () => {
	it('persists through one node and prepares through another, for sessions on every master, keys in one slot', async () => {
		const keyPrefix = 'agent_core_cluster_test:';
		const writer = owned(new RedisContextStore({ connection: { url: node(0) } }));
		const reader = owned(new RedisContextStore({ shared: { url: node(4) } }));
		const sessions = await onEveryMaster(
			'chat',
			(sessionId) => redisSessionKeys('', `${keyPrefix}${sessionId}`).turns,
		);
		for (const sessionId of sessions) {
			await persistSession(writer, {
				sessionId,
				keyPrefix,
				messages: [
					{ role: 'user', content: `I am ${sessionId}` },
					{ role: 'assistant', content: 'Hello.' },
				],
				maxStoredTurns: 10,
				ttlSeconds: 600,
				systemMessage: 'Be brief.',
			});
			await persistSession(writer, {
				sessionId,
				keyPrefix,
				messages: [
					{ role: 'user', content: 'Again' },
					{ role: 'assistant', content: 'Hi.' },
				],
				maxStoredTurns: 10,
				ttlSeconds: 600,
			});
		}
		for (const sessionId of sessions) {
			const prepared = await prepareSession(reader, {
				sessionId,
				keyPrefix,
				window: { maxTurns: 10, maxCharacters: 0 },
				userMessage: 'Who am I?',
			});
			expect(prepared).toMatchObject({ history_turns: 2, stored_turns: 2 });
			expect(prepared.messages_json.map((message) => message.content)).toEqual([
				'Be brief.',
				`I am ${sessionId}`,
				'Hello.',
				'Again',
				'Hi.',
				'Who am I?',
			]);
			const keys = redisSessionKeys('', `${keyPrefix}${sessionId}`);
			expect(keySlot(keys.turns)).toBe(keySlot(keys.system));
			expect((await reader.get(`${keyPrefix}${sessionId}`)).systemMessage).toBe('Be brief.');
		}
		expect(await writer.clear(`${keyPrefix}${sessions[0]}`)).toEqual({ deleted: true });
		expect((await reader.get(`${keyPrefix}${sessions[0]}`)).turns).toEqual([]);
	});

	it('appends a persist sent twice with one turn id once', async () => {
		const store = owned(
			new RedisContextStore({
				connection: { url: node(2) },
				keyPrefix: 'agent_core_cluster_test:twice:',
			}),
		);
		const session = `twice-${randomUUID()}`;
		const turn = {
			messages: [
				{ role: 'user' as const, content: 'q' },
				{ role: 'assistant' as const, content: 'a' },
			],
			at: new Date().toISOString(),
		};
		expect(
			await store.persist(
				session,
				turn,
				{ maxStoredTurns: 10, ttlSeconds: 60 },
				{ turnId: 'turn-1' },
			),
		).toEqual({ storedTurns: 1 });
		expect(
			await store.persist(
				session,
				turn,
				{ maxStoredTurns: 10, ttlSeconds: 60 },
				{ turnId: 'turn-1' },
			),
		).toEqual({ storedTurns: 1 });
		expect(
			await store.persist(
				session,
				turn,
				{ maxStoredTurns: 10, ttlSeconds: 60 },
				{ turnId: 'turn-2' },
			),
		).toEqual({ storedTurns: 2 });
	});

	describe('through the n8n nodes', () => {
		const server = useScriptedServer();
		const credential = (url: string) => ({
			host: new URL(url).hostname,
			port: Number(new URL(url).port),
			username: '',
			password: '',
			database: 0,
			tls: false,
		});

		it('Agent Context → Agent Core → Agent Context keeps one conversation across executions whose credentials name different nodes', async () => {
			server().setScript((request) => {
				const name = /my name is (\w+)/i.exec(
					request.messages
						.slice(1, -1)
						.map((message) => message.content)
						.join(' '),
				)?.[1];
				return final(name ? `You are ${name}.` : 'Hello, stranger.');
			});
			const session = `node-${randomUUID()}`;
			const context = (name: string, operation: string) =>
				createNode({
					name,
					type: 'agentContext',
					parameters: { operation, storage: 'redis', options: {} },
					settings: { credentials: { agentCoreRedisApi: { id: '3', name: 'Redis' } } },
				});
			const chain = (prompt: string, url: string) =>
				runWorkflow({
					nodes: [
						createInputNode([{ body: { session_id: session, prompt } }], 'Webhook'),
						context('Prepare', 'prepare'),
						createNode({
							name: 'Agent Core',
							type: 'agentCore',
							parameters: {
								model: { __rl: true, mode: 'id', value: 'scripted-model' },
								inputMode: 'messages',
							},
							settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
						}),
						context('Persist', 'persist'),
					],
					connections: connectInSequence('Webhook', 'Prepare', 'Agent Core', 'Persist'),
					nodeTypes: { agentCore: new AgentCore(), agentContext: new AgentContext() },
					credentials: {
						agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
						agentCoreRedisApi: credential(url),
					},
				});
			await chain('My name is Grace', node(0));
			const second = await chain('Who am I?', node(5));
			expect(second.outputOf('Persist')[0].json).toMatchObject({
				final_answer: 'You are Grace.',
				context: { stored_turns: 2 },
			});
		});

		it("Agent Core's redis_context tool keeps a value across executions through the credential", async () => {
			const session = `node-kv-${randomUUID()}`;
			const execute = (prompt: string, url: string) =>
				runWorkflow({
					nodes: [
						createInputNode([{ prompt, session_id: session }]),
						createNode({
							name: 'Agent Core',
							type: 'agentCore',
							parameters: {
								model: { __rl: true, mode: 'id', value: 'm' },
								allowedTools: ['redis_context'],
							},
							settings: {
								credentials: {
									agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
									agentCoreRedisApi: { id: '3', name: 'Redis' },
								},
							},
						}),
					],
					connections: connectInSequence('Input', 'Agent Core'),
					nodeTypes: { agentCore: new AgentCore() },
					credentials: {
						agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
						agentCoreRedisApi: credential(url),
					},
				});
			server().setScript([
				action('redis_context', { operation: 'set', key: 'color', value: 'teal' }),
				final('noted'),
			]);
			await execute('remember teal', node(1));
			server().setScript([
				action('redis_context', { operation: 'get', key: 'color' }),
				final('teal'),
			]);
			const second = await execute('what color?', node(3));
			expect(
				(second.outputOf('Agent Core')[0].json.trace as Array<Record<string, unknown>>)[0]
					.observation,
			).toBe('teal');
		});

		it('Durable Runs: a run whose model failed after step 1, run again through another node, goes on after step 1 (run keys on every master)', async () => {
			const runKeys = await onEveryMaster(
				'durable',
				(runKey) =>
					`agent_core:checkpoint:{test-workflow:Agent Core:${runKey}@${engineInstanceId().slice(0, 16)}}`,
				1,
			);
			const execute = (runKey: string, url: string) =>
				runWorkflow({
					nodes: [
						createInputNode([{ prompt: `Look it up (${runKey}).` }]),
						createNode({
							name: 'Agent Core',
							type: 'agentCore',
							typeVersion: 2,
							parameters: {
								provider: 'openai',
								model: { __rl: true, mode: 'id', value: 'm' },
								allowedTools: ['json_transform'],
								governance: true,
								durableRuns: true,
								runKey,
								options: { onModelError: 'returnItem' },
							},
							settings: {
								credentials: {
									agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
									agentCoreRedisApi: { id: '3', name: 'Redis' },
									agentCoreRunStateApi: { id: '4', name: 'Run State' },
								},
							},
						}),
					],
					connections: connectInSequence('Input', 'Agent Core'),
					nodeTypes: { agentCore: new AgentCore() },
					credentials: {
						agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
						agentCoreRedisApi: credential(url),
						agentCoreRunStateApi: { signingSecret: 'cluster-durable-secret-0123456789' },
					},
				});
			for (const [index, runKey] of runKeys.entries()) {
				server().setScript([action('json_transform', { data: { a: index }, expression: 'a' })]);
				const failed = await execute(runKey, node(index % 6));
				expect(failed.outputOf('Agent Core')[0].json.finish_reason).toBe('llm_error');
				const before = server().requests.length;
				server().setScript([final(`done ${index}`)]);
				const resumed = await execute(runKey, node((index + 3) % 6));
				expect(resumed.outputOf('Agent Core')[0].json).toMatchObject({
					finish_reason: 'final',
					final_answer: `done ${index}`,
				});
				expect(server().requests.length - before).toBe(1);
			}
		});
	});
});

describe('the CLI on a cluster', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-cluster-cli-'))));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	it('keeps one --session conversation and one shared budget across runs whose --redis-url names different nodes', async () => {
		const session = `cli-${randomUUID()}`;
		const scope = `cli-${randomUUID()}`;
		const config = join(folder, 'config.json');
		writeFileSync(
			config,
			JSON.stringify({
				model: 'm',
				shared_budget: { scope, tokens: 1_000_000, period_seconds: 3600 },
			}),
		);
		server().setScript((request) => {
			const name = /my name is (\w+)/i.exec(
				request.messages
					.slice(1, -1)
					.map((message) => message.content)
					.join(' '),
			)?.[1];
			return {
				text: final(name ? `You are ${name}.` : 'Hello, stranger.'),
				usage: { prompt_tokens: 70, completion_tokens: 30 },
			};
		});
		const run = (prompt: string, url: string) =>
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
				url,
			]);
		expect(await run('My name is Ada', node(0))).toMatchObject({ code: 0, stderr: '' });
		const second = await run('Who am I?', node(4));
		expect(second.stderr).toBe('');
		expect(JSON.parse(second.stdout)).toMatchObject({
			final_answer: 'You are Ada.',
			context: { history_turns: 1, stored_turns: 2 },
		});
		const ledger = owned(new RedisBudgetLedger({ connection: { url: node(2) } }));
		expect(await ledger.totals(scope, 3600)).toEqual({ tokens: 200, cost: expect.any(Number) });
	});

	it('refuses a database other than 0 on a cluster with exit 2, saying why and what to change', async () => {
		const config = join(folder, 'plain.json');
		writeFileSync(config, JSON.stringify({ model: 'm' }));
		const failed = await runCli([
			'run',
			'--config',
			config,
			'--prompt',
			'hi',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			'--session',
			's',
			'--redis-url',
			`${node(1)}/3`,
		]);
		expect(failed.code).toBe(2);
		expect(failed.stderr).toBe(
			`agent-core: Redis at ${new URL(node(1)).host} is a node of a Redis Cluster, and a cluster has only database 0: database 3 cannot be used\n` +
				"  fix: Set the database in --redis-url to 0 (the /3 at the end of a Redis URL, or the credential's Database).\n",
		);
	});
});

describe('shared budgets on a cluster', () => {
	it('adds up concurrent charges from clients on different nodes, for scopes on every master', async () => {
		const keyPrefix = `agent_core_cluster_test:budget:${randomUUID().slice(0, 8)}:`;
		const ledgers = [0, 2, 4].map((index) =>
			owned(new RedisBudgetLedger({ connection: { url: node(index) }, keyPrefix })),
		);
		ledgers.push(owned(new RedisBudgetLedger({ shared: { url: node(5) }, keyPrefix })));
		const scopes = await onEveryMaster('scope', (scope) =>
			budgetKey(keyPrefix, scope, 3600, Date.now()),
		);
		await Promise.all(
			scopes.flatMap((scope) =>
				ledgers.flatMap((ledger) =>
					Array.from({ length: 5 }, (_, index) =>
						ledger.charge(scope, 3600, { tokens: index + 1, cost: 0.5 }),
					),
				),
			),
		);
		for (const scope of scopes)
			expect(await ledgers[1].totals(scope, 3600)).toEqual({ tokens: 4 * 15, cost: 4 * 5 * 0.5 });
	});

	it('counts a charge sent twice with one id once', async () => {
		const ledger = owned(
			new RedisBudgetLedger({
				connection: { url: node(1) },
				keyPrefix: 'agent_core_cluster_test:once:',
			}),
		);
		const scope = `once-${randomUUID()}`;
		await ledger.charge(scope, 60, { tokens: 7 }, { chargeId: 'charge-1' });
		expect(await ledger.charge(scope, 60, { tokens: 7 }, { chargeId: 'charge-1' })).toEqual({
			tokens: 7,
			cost: 0,
		});
	});
});

describe('used run states on a cluster', () => {
	it('refuses through node B a state used once through node A', async () => {
		const viaA = owned(new RedisUsedStates({ connection: { url: node(0) } }));
		const viaB = owned(new RedisUsedStates({ shared: { url: node(3) } }));
		for (const id of await onEveryMaster('state', (id) => `agent_core:run_state:${id}`, 2)) {
			expect(await viaA.markUsed(id, 60)).toBe(true);
			expect(await viaB.markUsed(id, 60)).toBe(false);
			expect(await viaA.markUsed(id, 60)).toBe(false);
		}
	});
});

async function callRedisContext(
	args: Record<string, unknown>,
	sessionId: string,
	settings: Record<string, unknown>,
): Promise<string> {
	const validation = validateAgainst<RedisContextArgs>(redisContextTool.parameters, args);
	if (!validation.ok) throw new Error(`invalid args: ${validation.issues.join('; ')}`);
	return (await redisContextTool.execute(validation.value, {
		signal: new AbortController().signal,
		settings,
		sessionId,
	})) as string;
}

describe('redis_context on a cluster', () => {
	it('sets, appends, gets, lists and deletes through different nodes, for sessions on every master', async () => {
		const key_prefix = 'agent_core_cluster_test:kv:';
		const sessions = await onEveryMaster(
			'kv',
			(sessionId) => `${sessionNamespace(key_prefix, sessionId)}#index`,
		);
		for (const sessionId of sessions) {
			expect(
				await callRedisContext({ operation: 'set', key: 'city', value: 'Zürich' }, sessionId, {
					redis_url: node(0),
					key_prefix,
				}),
			).toContain('stored "city"');
			expect(
				await callRedisContext({ operation: 'append', key: 'log', value: 'one' }, sessionId, {
					redis_url: node(2),
					key_prefix,
				}),
			).toContain('now 3 bytes');
			expect(
				await callRedisContext({ operation: 'append', key: 'log', value: ',two' }, sessionId, {
					redis_url: node(4),
					key_prefix,
				}),
			).toContain('now 7 bytes');
			expect(
				await callRedisContext({ operation: 'get', key: 'city' }, sessionId, {
					redis_url: node(5),
					key_prefix,
				}),
			).toBe('Zürich');
			expect(
				await callRedisContext({ operation: 'list' }, sessionId, {
					redis_url: node(1),
					key_prefix,
				}),
			).toBe('["city","log"]');
			expect(
				await callRedisContext({ operation: 'delete', key: 'city' }, sessionId, {
					redis_url: node(3),
					key_prefix,
				}),
			).toBe('deleted "city"');
			expect(
				await callRedisContext({ operation: 'get', key: 'log' }, sessionId, {
					redis_url: node(0),
					key_prefix,
				}),
			).toBe('one,two');
		}
	});
});

describe('credentials on a cluster', () => {
	it('carries the password to every node it reaches, and reports a wrong one as such without showing it', async () => {
		const keyPrefix = 'agent_core_cluster_test:auth:';
		const sessions = await onEveryMaster(
			'auth',
			(session) => redisSessionKeys(keyPrefix, session).turns,
		);
		await cluster.setPassword('cluster-pw-1');
		try {
			const store = owned(
				new RedisContextStore({
					connection: { url: node(1).replace('redis://', 'redis://:cluster-pw-1@') },
					keyPrefix,
				}),
			);
			const turn = {
				messages: [
					{ role: 'user' as const, content: 'q' },
					{ role: 'assistant' as const, content: 'a' },
				],
				at: new Date().toISOString(),
			};
			for (const session of sessions)
				await store.persist(session, turn, { maxStoredTurns: 10, ttlSeconds: 60 });
			for (const session of sessions) expect((await store.get(session)).turns).toHaveLength(1);
			await store.close();

			const wrong = owned(
				new RedisBudgetLedger({
					connection: { url: node(2).replace('redis://', 'redis://:not-the-pw@') },
				}),
			);
			const failure = (await wrong
				.totals('scope', 60)
				.catch((error: unknown) => error)) as RedisError;
			expect(failure.details.failure).toBe('authentication');
			expect(failure.message).not.toContain('not-the-pw');
		} finally {
			await cluster.setPassword('');
		}
	});
});

describe('writes wait for a replica', () => {
	it('reports a write done only once a replica of its master holds it, and fails naming Redis when none confirms in time', async () => {
		const keyPrefix = `agent_core_cluster_test:wait:${randomUUID().slice(0, 8)}:`;
		const scope = 'wait-scope';
		const { replica } = await cluster.ownersOf(budgetKey(keyPrefix, scope, 3600, Date.now()));
		// Deadline 300 + 2 × 600 ms: shorter than the cluster's node timeout (2 s), so the stopped replica is not yet
		// taken for failed (a failed replica is not waited for: there is nothing to wait for).
		const ledger = owned(
			new RedisBudgetLedger({
				connection: { url: node(0), connectTimeoutMs: 300, commandTimeoutMs: 600 },
				keyPrefix,
			}),
		);
		await ledger.charge(scope, 3600, { tokens: 1 });
		replica.process.kill('SIGSTOP'); // the replica stops acknowledging; its master keeps serving
		let failure: unknown;
		const started = Date.now();
		try {
			failure = await ledger
				.charge(scope, 3600, { tokens: 2 }, { chargeId: 'unconfirmed' })
				.catch((error: unknown) => error);
		} finally {
			replica.process.kill('SIGCONT');
		}
		expect(Date.now() - started).toBeLessThan(1500 + 200);
		expect(failure).toBeInstanceOf(RedisError);
		expect((failure as RedisError).message).toMatch(
			/^Redis at 127\.0\.0\.1:\d+ applied charge the budget, but no replica confirmed it within 300 ms, so a failover now could lose it$/,
		);
		// Applied on the master all the same; sent again with its id, it counts once, now confirmed.
		expect(await ledger.charge(scope, 3600, { tokens: 2 }, { chargeId: 'unconfirmed' })).toEqual({
			tokens: 3,
			cost: 0,
		});
	});
});

describe('a master killed mid-traffic, its replica promoted', () => {
	let longestWriteMs = 0;
	/** Tries a write until it is reported done, with the same id each time; records each failed attempt. */
	async function untilDone(
		write: () => Promise<unknown>,
		failures: Array<{ ms: number; message: string }>,
	): Promise<void> {
		const first = Date.now();
		for (;;) {
			const started = Date.now();
			try {
				await write();
				longestWriteMs = Math.max(longestWriteMs, Date.now() - first);
				return;
			} catch (error) {
				failures.push({ ms: Date.now() - started, message: (error as Error).message });
				await sleep(100);
			}
		}
	}

	it('keeps every write reported done exactly once, and the budget total equal to the charges', async () => {
		const keyPrefix = `agent_core_cluster_test:failover:${randomUUID().slice(0, 8)}:`;
		const scope = 'failover-scope';
		const { master, replica } = await cluster.ownersOf(
			budgetKey(keyPrefix, scope, 3600, Date.now()),
		);
		// A conversation on the same master, so both kinds of write meet the failover.
		let session = '';
		for (let index = 0; !session; index++) {
			const candidate = `failover-chat-${index}`;
			if ((await cluster.ownersOf(redisSessionKeys(keyPrefix, candidate).turns)).master === master)
				session = candidate;
		}
		// One client named by the master that dies (its seed is gone afterwards), one by another node.
		const other = cluster.nodes.find((candidate) => candidate !== master && candidate !== replica)!;
		const urls = [master.url, other.url];
		const ledgers = urls.map((url) =>
			owned(new RedisBudgetLedger({ connection: { url }, keyPrefix })),
		);
		const stores = urls.map((url) =>
			owned(new RedisContextStore({ connection: { url }, keyPrefix })),
		);
		// And a durable run's checkpoints per client, each run key on that master too: its last record reported written must survive.
		const checkpointStores = urls.map((url) =>
			owned(new RedisCheckpoints({ connection: { url }, keyPrefix })),
		);
		const runKeys: string[] = [];
		for (let index = 0; runKeys.length < urls.length; index++) {
			if (
				(await cluster.ownersOf(checkpointKey(keyPrefix, `failover-run-${index}`))).master ===
				master
			)
				runKeys.push(`failover-run-${index}`);
		}
		await Promise.all([
			...ledgers.map((ledger) => ledger.totals(scope, 3600)),
			...stores.map((store) => store.get(session)),
		]);
		for (const [writer, store] of checkpointStores.entries())
			expect(await store.claim(runKeys[writer], `attempt-${writer}`, 'run')).toEqual({
				taken: true,
			});
		const lastCheckpoint: string[] = [];

		const charged: number[] = [];
		const persisted: string[] = [];
		const failures: Array<{ ms: number; message: string }> = [];
		let stop = false;
		let firstDoneAfterKill: number | undefined;
		let killedAt = 0;
		let promotedAt = 0;
		let chargedAfterPromotion = 0;
		const noteDone = () => {
			if (killedAt && firstDoneAfterKill === undefined) firstDoneAfterKill = Date.now() - killedAt;
		};
		const writers = [
			...ledgers.map(async (ledger, writer) => {
				for (let index = 0; !stop; index++) {
					const tokens = (index % 7) + 1;
					await untilDone(
						() =>
							ledger.charge(
								scope,
								3600,
								{ tokens, cost: tokens / 1000 },
								{ chargeId: `charge-${writer}-${index}` },
							),
						failures,
					);
					charged.push(tokens);
					if (promotedAt && Date.now() > promotedAt) chargedAfterPromotion++;
					noteDone();
				}
			}),
			...stores.map(async (store, writer) => {
				for (let index = 0; !stop; index++) {
					const label = `${writer}-${index}`;
					const turn = {
						messages: [
							{ role: 'user' as const, content: `question ${label}` },
							{ role: 'assistant' as const, content: `answer ${label}` },
						],
						at: new Date().toISOString(),
					};
					await untilDone(
						() =>
							store.persist(
								session,
								turn,
								{ maxStoredTurns: 100_000, ttlSeconds: 600 },
								{ turnId: `turn-${label}` },
							),
						failures,
					);
					persisted.push(label);
					noteDone();
				}
			}),
			...checkpointStores.map(async (store, writer) => {
				for (let index = 0; !stop; index++) {
					let written = false;
					await untilDone(
						async () =>
							(written = await store.write(runKeys[writer], `attempt-${writer}`, `step ${index}`)),
						failures,
					);
					// A write refused means the claim was lost in the failover: then the record below is wrong, and the test says so.
					if (!written) break;
					lastCheckpoint[writer] = `step ${index}`;
					noteDone();
				}
			}),
		];
		await sleep(500);
		killedAt = Date.now();
		master.process.kill('SIGKILL');
		await cluster.promote(replica);
		promotedAt = Date.now();
		const promotedMs = promotedAt - killedAt;
		await sleep(2000);
		stop = true;
		await Promise.all(writers);

		const checker = owned(new RedisBudgetLedger({ connection: { url: other.url }, keyPrefix }));
		const totals = await checker.totals(scope, 3600);
		const reader = owned(new RedisContextStore({ connection: { url: other.url }, keyPrefix }));
		const stored = (await reader.get(session)).turns.map((turn) =>
			turn.messages[0].content.replace('question ', ''),
		);
		const deadlineMs = 1500 + 2 * 2000;
		console.log(
			`failover: promoted ${promotedMs} ms after the kill; first write done after the kill at ${firstDoneAfterKill} ms; ` +
				`${charged.length} charges and ${persisted.length} turns done, the longest in ${longestWriteMs} ms (retries included); ${failures.length} failed attempts (longest ${Math.max(0, ...failures.map((failure) => failure.ms))} ms): ` +
				[...new Set(failures.map((failure) => failure.message.replace(/\d+/g, 'N')))].join(' | '),
		);
		expect(totals.tokens).toBe(charged.reduce((sum, tokens) => sum + tokens, 0));
		expect(totals.cost).toBeCloseTo(
			charged.reduce((sum, tokens) => sum + tokens / 1000, 0),
			6,
		);
		expect(stored.sort()).toEqual([...persisted].sort());
		expect(new Set(stored).size).toBe(stored.length);
		const readBack = owned(new RedisCheckpoints({ connection: { url: other.url }, keyPrefix }));
		for (const [writer, runKey] of runKeys.entries())
			expect(await readBack.claim(runKey, `attempt-${writer}`, 'run')).toEqual({
				taken: true,
				record: lastCheckpoint[writer],
			});
		expect(chargedAfterPromotion).toBeGreaterThan(0); // the writes went on, to the promoted replica
		for (const failure of failures) {
			expect(failure.message).toMatch(/^Redis at /);
			expect(failure.ms).toBeLessThan(deadlineMs + 1000);
		}
	}, 60_000);
});

describe('long memory on a cluster (issue #31)', () => {
	const keyPrefix = `agent_core_cluster_test:memory:${randomUUID().slice(0, 8)}:`;
	const exchange = (label: string) => ({
		messages: [
			{ role: 'user' as const, content: `q ${label}` },
			{ role: 'assistant' as const, content: `a ${label}` },
		],
		at: new Date().toISOString(),
	});
	const persistOptions = { maxStoredTurns: 50, ttlSeconds: 600 };
	const summary = (through: number) => ({
		through_seq: through,
		replaced_turns: through,
		model: 'm',
		tokens_before: 100,
		tokens_after: 10,
		at: new Date().toISOString(),
		content: `turns 1-${through}`,
	});
	const states = async (store: RedisContextStore, session: string) =>
		(await store.list(session)).turns.map((turn) => `${turn.seq}:${turn.state}`);
	/** The URL of the `index`th node still running: the failover test above may have killed one. */
	const live = (index: number) =>
		cluster.nodes.filter(
			(member) => member.process.exitCode === null && member.process.signalCode === null,
		)[index].url;

	it('keeps every key of a session in one slot, summary, archive, counter and lock included', () => {
		const keys = Object.values(redisSessionKeys(keyPrefix, 'a{b}c'));
		expect(keys).toHaveLength(7);
		expect(new Set(keys.map(keySlot)).size).toBe(1);
	});

	it('summarises, rewinds and forks through different nodes, sources and targets on every master', async () => {
		const writer = owned(new RedisContextStore({ connection: { url: live(0) }, keyPrefix }));
		const reader = owned(new RedisContextStore({ connection: { url: live(4) }, keyPrefix }));
		const sessions = await onEveryMaster(
			'memory',
			(session) => redisSessionKeys(keyPrefix, session).turns,
			1,
		);
		const masterOf = await cluster.masterPorts();
		for (const session of sessions) {
			for (const label of ['1', '2', '3'])
				await writer.persist(session, exchange(label), persistOptions);
			expect(
				await writer.append(session, exchange('4'), persistOptions, { summary: summary(2) }),
			).toMatchObject({ stored: true, seq: 4, archivedTurns: 2 });
			expect(await states(reader, session)).toEqual([
				'1:summarised',
				'2:summarised',
				'3:live',
				'4:live',
			]);

			// The fork's target is served by another master than its source.
			const masterOfSession = (name: string) =>
				masterOf(keySlot(redisSessionKeys(keyPrefix, name).turns));
			let target = '';
			for (let attempt = 0; !target; attempt++)
				if (masterOfSession(`${session}-fork-${attempt}`) !== masterOfSession(session))
					target = `${session}-fork-${attempt}`;
			expect(await reader.fork(session, target, 3, { ttlSeconds: 600 })).toMatchObject({
				turns: 1,
				summary: true,
			});
			expect(await states(writer, target)).toEqual(['1:summarised', '2:summarised', '3:live']);
			await expect(writer.fork(session, target, 1, { ttlSeconds: 600 })).rejects.toMatchObject({
				refusal: { code: 'target_exists' },
			});

			expect(await reader.rewind(session, 1, {})).toEqual({
				archived: 2,
				restored: 1,
				summary_dropped: true,
				live_turns: 1,
			});
			expect(await states(writer, session)).toEqual([
				'1:live',
				'2:rewound',
				'3:rewound',
				'4:rewound',
			]);
		}
	});

	it('a persist with a summary, a rewind and a fork sent twice with one id each apply once', async () => {
		const store = owned(new RedisContextStore({ connection: { url: live(1) }, keyPrefix }));
		const session = `twice-${randomUUID()}`;
		for (const label of ['1', '2', '3'])
			await store.persist(session, exchange(label), persistOptions);
		const write = { turnId: 'turn-4', summary: summary(2) };
		const first = await store.append(session, exchange('4'), persistOptions, write);
		expect(await store.append(session, exchange('4'), persistOptions, write)).toEqual(first);
		const rewound = await store.rewind(session, 3, {}, { rewindId: 'rewind-1' });
		expect(await store.rewind(session, 3, {}, { rewindId: 'rewind-1' })).toEqual(rewound);
		const forked = await store.fork(
			session,
			`${session}-b`,
			3,
			{ ttlSeconds: 60 },
			{ forkId: 'fork-1' },
		);
		expect(
			await store.fork(session, `${session}-b`, 3, { ttlSeconds: 60 }, { forkId: 'fork-1' }),
		).toEqual(forked);
		expect(await states(store, session)).toEqual([
			'1:summarised',
			'2:summarised',
			'3:live',
			'4:rewound',
		]);
	});

	it('holds a session for one run across nodes: a second prepare is refused, a later one with latest takes it over', async () => {
		const first = owned(new RedisContextStore({ connection: { url: live(0) } }));
		const second = owned(new RedisContextStore({ shared: { url: live(4) } }));
		const sessionId = `busy-${randomUUID()}`;
		const prepare = (store: RedisContextStore, policy: 'reject' | 'latest', userMessage: string) =>
			prepareSession(store, { sessionId, keyPrefix, window: {}, userMessage, busy: { policy } });
		const early = await prepare(first, 'reject', 'first');
		await expect(prepare(second, 'reject', 'second')).rejects.toThrow(
			`session "${sessionId}" is busy with another run; try again when it answered`,
		);
		const late = await prepare(second, 'latest', 'third');
		const answered = (question: string) => [
			{ role: 'user', content: question },
			{ role: 'assistant', content: 'ok' },
		];
		expect(
			await persistSession(first, {
				sessionId,
				keyPrefix,
				...persistOptions,
				messages: answered('first'),
				busyToken: early.busy_token,
			}),
		).toMatchObject({
			stored: false,
			skipped: expect.stringContaining('a later message took session'),
		});
		expect(
			await persistSession(second, {
				sessionId,
				keyPrefix,
				...persistOptions,
				messages: answered('third'),
				busyToken: late.busy_token,
			}),
		).toMatchObject({ stored: true, seq: 1 });
	});

	it('the CLI lists, forks and rewinds through URLs naming different nodes', async () => {
		const session = `cli-${randomUUID()}`;
		const store = owned(new RedisContextStore({ connection: { url: live(2) } }));
		for (const label of ['1', '2', '3'])
			await store.persist(`agent_core:ctx:${session}`, exchange(label), persistOptions);
		const cli = (url: string, ...args: string[]) =>
			runCli(['session', ...args, '--redis-url', url]);
		const forked = await cli(
			live(3),
			'fork',
			'--session',
			session,
			'--to-session',
			`${session}-b`,
			'--turn',
			'2',
		);
		expect(JSON.parse(forked.stdout)).toMatchObject({ turns: 2, last_seq: 2 });
		expect(
			JSON.parse((await cli(live(1), 'rewind', '--session', session, '--turn', '1')).stdout),
		).toMatchObject({ archived: 2, live_turns: 1 });
		const listed = JSON.parse((await cli(live(4), 'list', '--session', `${session}-b`)).stdout);
		expect(
			listed.turns.map((turn: { seq: number; state: string }) => `${turn.seq}:${turn.state}`),
		).toEqual(['1:live', '2:live']);
	});
});
