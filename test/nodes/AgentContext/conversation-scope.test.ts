// Conversation Scope (issue #48) in n8n's engine: two workflows sending one session id share it only when the scope is Shared.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentContext } from '../../../nodes/AgentContext/AgentContext.node';
import { redisSessionKeys } from '../../../src/context/redis/redis-keys';
import { keySlot } from '../../../src/redis/hash-tag';
import { runWorkflow } from '../../support/n8n-engine';
import { redisCredentialData, useTestRedis } from '../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../support/test-nodes';

const REDIS_CREDENTIAL = { agentCoreRedisApi: { id: '3', name: 'Test Redis' } };

describe('Agent Context’s Conversation Scope across workflows', () => {
	const redis = useTestRedis();
	const keyPrefix = redis.keyPrefix('scope');

	/** One execution of `workflowId`: an Agent Context node of `typeVersion` running `operation` on one item. */
	async function run(
		workflowId: string,
		typeVersion: number,
		operation: 'prepare' | 'persist' | 'list',
		item: IDataObject,
		extra: INodeParameters = {},
		storage: 'redis' | 'memory' = 'redis',
	) {
		const result = await runWorkflow({
			workflowId,
			nodes: [
				createInputNode([item], 'Webhook'),
				createNode({
					name: 'Context',
					type: 'agentContext',
					typeVersion,
					parameters: { operation, storage, options: { keyPrefix }, ...extra },
					settings: storage === 'redis' ? { credentials: REDIS_CREDENTIAL } : {},
				}),
			],
			connections: connectInSequence('Webhook', 'Context'),
			nodeTypes: { agentContext: new AgentContext() },
			credentials: { agentCoreRedisApi: redisCredentialData(redis.url) },
		});
		return result;
	}

	/** Workflow `workflowId` stores one turn of `session`. */
	async function store(
		workflowId: string,
		typeVersion: number,
		session: string,
		extra: INodeParameters = {},
		storage: 'redis' | 'memory' = 'redis',
	) {
		const messages = [
			{ role: 'user', content: `asked in ${workflowId}` },
			{ role: 'assistant', content: `answered in ${workflowId}` },
		];
		const result = await run(
			workflowId,
			typeVersion,
			'persist',
			{ session_id: session, messages },
			extra,
			storage,
		);
		expect(result.outputOf('Context')[0].json.context).toMatchObject({ stored: true });
	}

	/** What a prepare in `workflowId` hands the agent for `session`: the stored contents. */
	async function history(
		workflowId: string,
		typeVersion: number,
		session: string,
		extra: INodeParameters = {},
		storage: 'redis' | 'memory' = 'redis',
	): Promise<string[]> {
		const result = await run(
			workflowId,
			typeVersion,
			'prepare',
			{ session_id: session },
			extra,
			storage,
		);
		const error = result.errorOf('Context');
		if (error) throw error;
		const json = result.outputOf('Context')[0].json as {
			messages_json: Array<{ content: string }>;
		};
		return json.messages_json.map((message) => message.content);
	}

	describe.each(['redis', 'memory'] as const)('with %s storage', (storage) => {
		it('version 3 (new nodes) keeps each workflow’s conversation apart under one session id', async () => {
			const session = `same-${randomUUID()}`;
			await store('wf-A', 3, session, {}, storage);
			expect(await history('wf-B', 3, session, {}, storage)).toEqual([]);
			expect(await history('wf-A', 3, session, {}, storage)).toEqual([
				'asked in wf-A',
				'answered in wf-A',
			]);
		});

		it('versions 1 and 2 (saved workflows) keep sharing the conversation, as before', async () => {
			const session = `same-${randomUUID()}`;
			await store('wf-A', 2, session, {}, storage);
			expect(await history('wf-B', 1, session, {}, storage)).toEqual([
				'asked in wf-A',
				'answered in wf-A',
			]);
		});
	});

	it('Shared chosen on a version 3 node shares with every workflow, and with versions 1 and 2', async () => {
		const session = `chosen-${randomUUID()}`;
		await store('wf-A', 3, session, { contextScope: 'shared' });
		expect(await history('wf-B', 3, session, { contextScope: 'shared' })).toHaveLength(2);
		expect(await history('wf-C', 2, session)).toHaveLength(2);
		// This Workflow on a version 2 node (chosen by hand) does not see it.
		expect(await history('wf-A', 2, session, { contextScope: 'workflow' })).toEqual([]);
	});

	it('a workflow-scoped session keeps every key under one Redis Cluster hash tag, apart from the shared one', async () => {
		const session = `tagged-${randomUUID()}`;
		await store('wf-tag', 3, session);
		const keys = redisSessionKeys('', `${keyPrefix}{wf}6:wf-tag:${session}`);
		expect(await redis.admin.llen(keys.turns)).toBe(1);
		expect(new Set(Object.values(keys).map(keySlot)).size).toBe(1);
		expect(await redis.admin.exists(redisSessionKeys('', `${keyPrefix}${session}`).turns)).toBe(0);
	});

	it('a caller cannot reach another workflow’s conversation by spelling its key as a shared session id', async () => {
		const session = `victim-${randomUUID()}`;
		await store('123', 3, session);
		// The stored key's own spelling, and near misses of it, sent to a shared (version 2) node of another workflow.
		for (const forged of [
			`{wf}3:123:${session}`,
			`wf:123:${session}`,
			`123:${session}`,
			`{wf}123:${session}`,
		]) {
			const attempt = await run('attacker', 2, 'prepare', { session_id: forged });
			const error = attempt.errorOf('Context');
			if (error) {
				expect(error.message).toMatch(/shared session ID may not start with "\{wf\}"/);
				continue;
			}
			expect(attempt.outputOf('Context')[0].json).toMatchObject({ history_turns: 0 });
		}
		// Nor a workflow whose id and session id split the same text another way (the id's length is in the key).
		await store('a:b', 3, session);
		expect(await history('a', 3, `b:${session}`)).toEqual([]);
		expect(await history('a:b', 3, session)).toHaveLength(2);
		expect(await history('123', 3, session)).toHaveLength(2);
	});

	it('This Workflow in a workflow with no id yet fails the item saying to save it or choose Shared', async () => {
		const attempt = await run('', 3, 'prepare', { session_id: `no-id-${randomUUID()}` });
		expect(attempt.errorOf('Context')?.message).toMatch(
			/Conversation Scope is This Workflow, and this workflow has no ID yet/,
		);
		expect(JSON.stringify(attempt.errorOf('Context'))).toMatch(
			/Save the workflow, or set Conversation Scope to Shared/,
		);
	});

	it('persist warns when its prepare upstream uses another Conversation Scope (a new node beside an old one)', async () => {
		const session = `pair-${randomUUID()}`;
		const result = await runWorkflow({
			workflowId: 'wf-pair',
			nodes: [
				createInputNode(
					[
						{
							session_id: session,
							messages: [
								{ role: 'user', content: 'q' },
								{ role: 'assistant', content: 'a' },
							],
						},
					],
					'Webhook',
				),
				createNode({
					name: 'Old Prepare',
					type: 'agentContext',
					typeVersion: 2,
					parameters: { operation: 'prepare', storage: 'memory', options: { keyPrefix } },
				}),
				createNode({
					name: 'New Persist',
					type: 'agentContext',
					typeVersion: 3,
					parameters: { operation: 'persist', storage: 'memory', options: { keyPrefix } },
				}),
			],
			connections: connectInSequence('Webhook', 'Old Prepare', 'New Persist'),
			nodeTypes: { agentContext: new AgentContext() },
		});
		const [hint] = (result.run.data.resultData.runData['New Persist'][0].hints ?? []).map(
			(entry) => entry.message,
		);
		expect(hint).toMatch(/"Old Prepare" uses In-Memory, .*Conversation Scope Shared but/);
		expect(hint).toMatch(/"New Persist" uses In-Memory, .*Conversation Scope This Workflow:/);
	});

	it('the webhook example (examples/agent-context-chat.json) keeps each workflow’s conversations apart', async () => {
		const example = JSON.parse(
			readFileSync(join(__dirname, '../../../examples/agent-context-chat.json'), 'utf8'),
		) as { nodes: Array<{ name: string; typeVersion: number; parameters: INodeParameters }> };
		const nodeOf = (name: string) => example.nodes.find((node) => node.name === name)!;
		const session = `example-${randomUUID()}`;
		const [load, save] = [nodeOf('Load History'), nodeOf('Save Turn')];
		for (const node of [load, save]) expect(node.parameters.contextScope).toBe('workflow');
		await store('wf-example', save.typeVersion, session, { contextScope: 'workflow' });
		const scope = { contextScope: load.parameters.contextScope };
		expect(await history('wf-other', load.typeVersion, session, scope)).toEqual([]);
		expect(await history('wf-example', load.typeVersion, session, scope)).toHaveLength(2);
	});
});
