// Version 2 runs as version 1 (issue #28): each Agent Core node of examples/ (version 2 since issue #41, as committed) and the same settings on version 1, in n8n's engine.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ChatOpenAI } from '@langchain/openai';
import {
	NodeConnectionTypes,
	type IDataObject,
	type INode,
	type INodeParameters,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { agentCoreInputs } from '../../../../nodes/AgentCore/panel/connections';
import { CREDENTIAL_LABELS } from '../../../../nodes/AgentCore/V2/credential-labels';
import { OPEN_HTTP_REQUEST_NOTICE } from '../../../../src/agent/setup/configure-run';
import { DEMO_PROMPT, demoModel } from '../../../../src/demo/demo-model';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { asVersionOne } from '../../../support/agent-core-versions';
import {
	connectInSequence,
	createInputNode,
	createNode,
	subNode,
} from '../../../support/test-nodes';

const EXAMPLES = path.join(__dirname, '..', '..', '..', '..', 'examples');
/** Every Agent Core node of every example, as committed. */
const exampleNodes = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.flatMap((file) =>
		(JSON.parse(readFileSync(path.join(EXAMPLES, file), 'utf8')).nodes as INode[])
			.filter((node) => node.type.endsWith('.agentCore'))
			.map((node) => ({ file, node })),
	);

describe("the examples ship as version 2, as the README's Quick start describes (issue #41)", () => {
	it.each(exampleNodes.map(({ file, node }) => [`${file} → ${node.name}`, node] as const))(
		'%s is an Agent Core version 2 node with no version 1 field left at its top',
		(_name, node) => {
			expect(node.typeVersion).toBe(2);
			for (const field of [
				'limits',
				'operation',
				'developerText',
				'sessionId',
				'toolSettingsJson',
				'workflowTools',
			])
				expect([field, node.parameters[field]]).toEqual([field, undefined]);
		},
	);
});

describe('the chat example `npm run dev` imports (issue #48)', () => {
	const workflow = JSON.parse(
		readFileSync(path.join(EXAMPLES, 'agent-core-simple-chat.json'), 'utf8'),
	) as { nodes: INode[]; connections: Record<string, Record<string, unknown[][]>> };

	it("has n8n's Simple Memory on Agent Core's Memory input, so a second message sees the first", () => {
		const agent = workflow.nodes.find((node) => node.type.endsWith('.agentCore'))!;
		const memories = Object.entries(workflow.connections).flatMap(([from, outputs]) =>
			(outputs.ai_memory ?? []).flat().map((to) => ({ from, to })),
		);
		expect(memories).toEqual([
			{ from: 'Simple Memory', to: { node: agent.name, type: 'ai_memory', index: 0 } },
		]);
		const memory = workflow.nodes.find((node) => node.name === 'Simple Memory');
		expect(memory).toMatchObject({ type: '@n8n/n8n-nodes-langchain.memoryBufferWindow' });
		// The connection type is the one Agent Core version 2 draws its Memory input with.
		const inputs = new AgentCore().nodeVersions[2].description.inputs;
		expect(String(inputs)).toContain(
			'agentCoreInputs(provider, needsFallback, fallbackSource, true)',
		);
		expect(agentCoreInputs('openai', false, undefined, true)).toContainEqual(
			expect.objectContaining({ type: 'ai_memory', displayName: 'Memory' }),
		);
	});
});

/** One item every example's Prompt, Messages JSON and Session ID read (webhook body, chat input, Agent Context's fields). */
const ITEM: IDataObject = {
	body: { prompt: DEMO_PROMPT, decision: 'approve' },
	chatInput: DEMO_PROMPT,
	sessionId: 'chat-session',
	session_id: 'context-session',
	messages_json: [{ role: 'user', content: DEMO_PROMPT }],
};

/** How often each tool ran (its timings differ from run to run). */
const usedToolCounts = (used: unknown) =>
	Object.fromEntries(
		Object.entries((used ?? {}) as Record<string, { count: number }>).map(([tool, { count }]) => [
			tool,
			count,
		]),
	);

describe("each example (version 2) and the same settings on version 1 in n8n's engine", () => {
	const server = useScriptedServer({ script: demoModel });

	async function run(node: INode, typeVersion: number, parameters: INodeParameters) {
		const connected = parameters.provider === 'connected';
		const chatModel = subNode(
			'chatModel',
			NodeConnectionTypes.AiLanguageModel,
			() =>
				new ChatOpenAI({
					apiKey: 'sub-node-key',
					model: 'gpt-4o-mini',
					maxRetries: 0,
					configuration: { baseURL: server().openaiBaseUrl },
				}),
		);
		const models = connected
			? [
					createNode({ name: 'Chat Model', type: 'chatModel' }),
					createNode({ name: 'Fallback Chat Model', type: 'chatModel' }),
				]
			: [];
		const modelInput = (index: number) => ({
			ai_languageModel: [
				[{ node: 'Agent Core', type: NodeConnectionTypes.AiLanguageModel, index }],
			],
		});
		const result = await runWorkflow({
			nodes: [
				createInputNode([ITEM]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion,
					parameters,
					settings: { credentials: node.credentials },
				}),
				...models,
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				...(connected ? { 'Chat Model': modelInput(0), 'Fallback Chat Model': modelInput(1) } : {}),
			},
			nodeTypes: { agentCore: new AgentCore(), chatModel },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'demo', url: server().openaiBaseUrl },
				agentCoreFeishuBotApi: {
					webhookUrlWithToken: 'http://127.0.0.1:9/open-apis/bot/v2/hook/example',
				},
				agentCoreHttpHeaderApi: {
					headerName: 'X-API-Key',
					headerSecret: 'example-secret-123456',
					allowedDomains: 'api.example.com',
				},
				agentCoreRunStateApi: {
					signingSecret: '4f9c2a7e1b8d3f6a0c5e9b2d7a4f1c8e3b6d9a2f5c8e1b4d7a0f3c6e9b2d5a8f',
				},
				agentCoreRedisApi: { host: '127.0.0.1', port: 6379 },
			},
		});
		const error = result.errorOf('Agent Core');
		if (error)
			return { error: error.message, fix: (error as { description?: string }).description };
		return result.run.data.resultData.runData['Agent Core'][0].data!.main.map((items) =>
			(items ?? []).map(({ json }) => ({
				fields: Object.keys(json).sort(),
				finish_reason: json.finish_reason,
				output: json.output,
				final_answer: json.final_answer,
				used_tools: usedToolCounts(json.used_tools),
				session_id: json.session_id,
			})),
		);
	}

	it.each(exampleNodes.map(({ file, node }) => [`${file} → ${node.name}`, node] as const))(
		'%s gives the same output fields and answer',
		async (_name, node) => {
			const versionOne = await run(node, 1, asVersionOne(node.parameters));
			const versionTwo = await run(node, 2, node.parameters);

			// A limit's sentence names the field as each version's panel does (Max Steps under Limits, Max
			// Iterations under Options): the same sentence otherwise.
			const inVersionOneWords = JSON.parse(
				JSON.stringify(versionTwo).replaceAll('Max Iterations (Options)', 'Max Steps (Limits)'),
			);
			expect(inVersionOneWords).toEqual(versionOne);
			// Each ran the model, or failed the same way before it (the resume node without a paused run).
			expect(JSON.stringify(versionOne)).toMatch(/finish_reason|error/);
		},
	);

	it('routes a call waiting for approval to Needs Approval on both versions (examples/agent-core-approval.json)', async () => {
		const { node } = exampleNodes.find(
			({ file, node }) =>
				file === 'agent-core-approval.json' && node.parameters.runOrResume !== 'resume',
		)!;
		const outputs = [];
		for (const [version, parameters] of [
			[1, asVersionOne(node.parameters)],
			[2, node.parameters],
		] as const) {
			server().setScript([action('feishu_bot', { text: 'Release is out' }), final('unused')]);
			outputs.push(await run(node, version, parameters));
		}

		expect(outputs[1]).toEqual(outputs[0]);
		expect(outputs[0]).toMatchObject([[], [{ finish_reason: 'awaiting_approval' }]]);
	});

	it('on version 2, Require Approval left in the JSON with Governance off pauses nothing (one output, the call runs)', async () => {
		const { node } = exampleNodes.find(
			({ file, node }) =>
				file === 'agent-core-approval.json' && node.parameters.runOrResume !== 'resume',
		)!;
		server().setScript([action('feishu_bot', { text: 'Release is out' }), final('sent')]);

		const outputs = await run(node, 2, { ...node.parameters, governance: false });

		expect(outputs).toMatchObject([
			[{ finish_reason: 'final', output: 'sent', used_tools: { feishu_bot: 1 } }],
		]);
	});

	it('on version 2, the Redis Context tool without a Redis credential names the picker by its label, under Governance', async () => {
		const node = {
			credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } },
		} as unknown as INode;
		const parameters = {
			provider: 'openai',
			model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
			allowedTools: ['redis_context'],
		};

		expect(await run(node, 2, parameters)).toEqual({
			error: `The Redis Context tool needs a credential in "${CREDENTIAL_LABELS.agentCoreRedisApi}" (under Governance), and none is selected`,
			fix: `Turn on Governance and select an "Agent Core: Redis API" credential in "${CREDENTIAL_LABELS.agentCoreRedisApi}".`,
		});
		expect(server().requests).toHaveLength(0);
	});

	/** A version 2 node with HTTP Request allowed whose model calls a loopback address, and the run's first step. */
	async function httpFirstStep(httpAllowedDomains: string) {
		server().setScript([
			action('http_request', { url: 'http://127.0.0.1:9/private', method: 'GET' }),
			final('refused'),
		]);
		const parameters = {
			provider: 'openai',
			model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
			allowedTools: ['http_request'],
			httpAllowedDomains,
		};
		const result = await runWorkflow({
			nodes: [
				createInputNode([ITEM]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters,
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'demo', url: server().openaiBaseUrl } },
		});
		return (result.outputOf('Agent Core')[0].json as Record<string, any>).trace[0];
	}

	it('on version 2, Allowed Domains (HTTP Request) limits the tool as allowed_domains does, and the trace then has no open-host notice', async () => {
		const step = await httpFirstStep('api.example.com, docs.example.com');

		expect(step.error).toEqual({
			type: 'tool_error',
			message:
				'http_request refused: host 127.0.0.1 is not in allowed_domains [api.example.com, docs.example.com]; use one of those hosts',
		});
		expect(step.notices).toBeUndefined();
	});

	it("on version 2, HTTP Request without allowed domains says in the output's trace that it may reach any public host", async () => {
		const step = await httpFirstStep('');

		expect(step.notices).toEqual([OPEN_HTTP_REQUEST_NOTICE]);
		// Loopback stays refused by the address policy all the same.
		expect(step.error.message).toMatch(/^http_request refused/);
	});
});
