import { randomUUID } from 'node:crypto';
import type { INode, INodeParameters, INodePropertyOptions } from 'n8n-workflow';
import { AgentContext } from '../../../nodes/AgentContext/AgentContext.node';
import { runWorkflow, type WorkflowRunResult } from '../../support/n8n-engine';
import { Redis } from 'ioredis';
import {
	deleteKeysByPrefix,
	getTestRedis,
	redisCredentialData,
	type TestRedis,
} from '../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../support/test-nodes';

const description = new AgentContext().description;
const operations = description.properties.find((p) => p.name === 'operation')!
	.options as INodePropertyOptions[];

describe("Agent Context's operations have one name each, the pair everyone needs first (issue #41)", () => {
	it('lists Prepare and Persist first, then the others by name', () => {
		expect(operations.map((o) => o.value)).toEqual([
			'prepare',
			'persist',
			'clear',
			'fork',
			'get',
			'list',
			'rewind',
		]);
	});

	it.each(operations.map((o) => [o.name, o] as const))(
		'%s: its action and description start with its own verb',
		(name, option) => {
			const verb = name.split(' ')[0];
			expect(option.action).toMatch(new RegExp(`^${verb}\\b`));
			expect(option.description).toMatch(new RegExp(`^${verb}\\b`));
		},
	);

	it('no operation is called by an old name ("Load history", "Save the agent turn", "Read a session")', () => {
		const words = JSON.stringify(operations);
		expect(words).not.toMatch(/Load history|Save the agent turn|Read a session|Delete a session/i);
	});

	it('keeps the saved operation values, so workflows of node versions 1, 2 and 3 open and run as before', () => {
		expect(description.version).toEqual([1, 2, 3]);
		expect(operations.map((o) => o.value).sort()).toEqual(
			['clear', 'fork', 'get', 'list', 'persist', 'prepare', 'rewind'].sort(),
		);
	});

	it('"Agent Context Tool" (n8n\'s tool variant) says in its own description what an AI agent does with it', () => {
		const usable = description.usableAsTool;
		expect(typeof usable).toBe('object');
		const toolDescription = (usable as { replacements: { description: string } }).replacements
			.description;
		expect(toolDescription).toMatch(/AI agent/);
		expect(toolDescription).toMatch(/Prepare and Persist/);
		expect(toolDescription).not.toBe(description.description);
	});
});

describe('persist names a prepare that reads another store, without stopping the run (issue #41)', () => {
	let redis: TestRedis;
	const keyPrefix = `names:${randomUUID()}:`;
	beforeAll(async () => {
		redis = await getTestRedis();
	});
	afterAll(async () => {
		const client = new Redis(redis.url);
		await deleteKeysByPrefix(client, `{${keyPrefix}`);
		client.disconnect();
		await redis.stop();
	});

	const node = (name: string, operation: string, parameters: INodeParameters): INode =>
		createNode({
			name,
			type: 'agentContext',
			parameters: { operation, ...parameters },
			settings:
				parameters.storage === 'redis'
					? { credentials: { agentCoreRedisApi: { id: '3', name: 'Redis' } } }
					: {},
		});

	const chain = (prepare: INodeParameters, persist: INodeParameters) =>
		runWorkflow({
			nodes: [
				createInputNode([{ session_id: `names-${randomUUID()}`, prompt: 'hi' }], 'Chat'),
				node('Load History', 'prepare', prepare),
				node('Save Turn', 'persist', {
					...persist,
					messages:
						'={{ [{ "role": "user", "content": "hi" }, { "role": "assistant", "content": "hello" }] }}',
				}),
			],
			connections: connectInSequence('Chat', 'Load History', 'Save Turn'),
			nodeTypes: { agentContext: new AgentContext() },
			credentials: { agentCoreRedisApi: redisCredentialData(redis.url) },
		});

	const hintsOf = (result: WorkflowRunResult, name: string) =>
		(result.run.data.resultData.runData[name][0].hints ?? []).map((hint) => hint.message);

	it('prepare on In-Memory, persist on Redis: a hint on persist names both nodes and both storages', async () => {
		const options = { keyPrefix };
		const result = await chain({ storage: 'memory', options }, { storage: 'redis', options });
		expect(result.errorOf('Save Turn')).toBeUndefined();
		expect(result.outputOf('Save Turn')[0].json).toMatchObject({ context: { stored_turns: 1 } });
		const [hint] = hintsOf(result, 'Save Turn');
		expect(hint).toMatch(/"Load History" uses In-Memory/);
		expect(hint).toMatch(/"Save Turn" uses Redis/);
		expect(hint).toMatch(/same Storage/);
	});

	it('the same storage under another Key Prefix is named too', async () => {
		const result = await chain(
			{ storage: 'memory', options: { keyPrefix: 'one:' } },
			{ storage: 'memory', options: { keyPrefix: 'two:' } },
		);
		expect(hintsOf(result, 'Save Turn')).toEqual([
			expect.stringMatching(/Key Prefix "one:".*Key Prefix "two:"/),
		]);
	});

	it('two conversations in one workflow, each pair on its own store: each persist checks its nearest prepare, no hint', async () => {
		const messages =
			'={{ [{ "role": "user", "content": "hi" }, { "role": "assistant", "content": "hello" }] }}';
		const pair = (name: string, keyPrefix: string) => [
			node(`Prepare ${name}`, 'prepare', { storage: 'memory', options: { keyPrefix } }),
			node(`Persist ${name}`, 'persist', { storage: 'memory', options: { keyPrefix }, messages }),
		];
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ session_id: `two-${randomUUID()}`, prompt: 'hi' }], 'Chat'),
				...pair('A', 'a:'),
				...pair('B', 'b:'),
			],
			connections: connectInSequence('Chat', 'Prepare A', 'Persist A', 'Prepare B', 'Persist B'),
			nodeTypes: { agentContext: new AgentContext() },
		});
		expect(hintsOf(result, 'Persist A')).toEqual([]);
		expect(hintsOf(result, 'Persist B')).toEqual([]);
	});

	it('prepare and persist on the same storage (both left at the default): no hint', async () => {
		const result = await chain({}, {});
		expect(result.errorOf('Save Turn')).toBeUndefined();
		expect(hintsOf(result, 'Save Turn')).toEqual([]);
	});
});
