import { observationMessage } from '../../../../src/agent/protocol/prompt';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import {
	NodeConnectionTypes,
	NodeHelpers,
	Workflow,
	type INodeParameters,
	type INodeTypes,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import type { ScriptedServer } from '../../../../src/demo/scripted-server';
import { action, final, startsScriptedServers } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	subNode,
} from '../../../support/test-nodes';

/**
 * Agent Core driven by chat model sub-nodes in n8n's real engine: the sub-node's supplyData hands over a
 * real LangChain ChatOpenAI (as n8n's OpenAI Chat Model does), pointed at a local scripted server.
 */
const chatModelSubNode = (typeName: string, build: () => ChatOpenAI | ChatAnthropic) =>
	subNode(typeName, NodeConnectionTypes.AiLanguageModel, build);

const languageModelInput = (index = 0) => ({
	ai_languageModel: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiLanguageModel, index }]],
});

describe('Agent Core with chat model sub-nodes in n8n’s engine', () => {
	const startServer = startsScriptedServers();
	let primary: ScriptedServer;
	let second: ScriptedServer;
	beforeEach(async () => {
		primary = await startServer();
		second = await startServer();
	});

	const chatOpenAi = (server: ScriptedServer, model: string, apiKey: string) => () =>
		new ChatOpenAI({
			apiKey,
			model,
			maxRetries: 0,
			configuration: { baseURL: server.openaiBaseUrl },
		});
	const agentNode = (parameters: Record<string, unknown>) =>
		createNode({
			name: 'Agent Core',
			type: 'agentCore',
			parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, ...parameters },
			settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
		});

	it('runs a tool step and a final answer on the model of the Chat Model input, and names it in the trace', async () => {
		primary.setScript([
			action('json_transform', { data: { a: [1, 2, 3] }, expression: 'length(a)' }),
			final('three'),
		]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'how many?' }]),
				agentNode({ provider: 'connected', allowedTools: ['json_transform'] }),
				createNode({ name: 'OpenAI Chat Model', type: 'chatModel' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'OpenAI Chat Model': languageModelInput(),
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				chatModel: chatModelSubNode(
					'chatModel',
					chatOpenAi(primary, 'gpt-5-mini', 'sub-node-key-123456'),
				),
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		const json = result.outputOf('Agent Core')[0].json as Record<string, any>;
		expect(json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'three',
			output: 'three',
			model: 'gpt-5-mini',
		});
		expect(json.trace[0].observation).toBe('3');
		expect(json.trace.map((step: any) => step.model)).toEqual(['gpt-5-mini', 'gpt-5-mini']);
		expect(primary.requests.map((request) => request.model)).toEqual(['gpt-5-mini', 'gpt-5-mini']);
		expect(primary.requests[0].headers.authorization).toBe('Bearer sub-node-key-123456');
		expect(JSON.stringify(json)).not.toContain('sub-node-key-123456');
	});

	it('runs on an Anthropic Chat Model sub-node (ChatAnthropic 1.5.6, as n8n 2.41.1 builds it), counting cached prompt tokens and keeping its key out', async () => {
		// Cache counts as vercel:anthropic:anthropic-code-execution-20260120-prompt-cache.1.chunks.txt reports them beside input_tokens.
		primary.setScript([
			{
				text: final('cached'),
				usage: { prompt_tokens: 900, completion_tokens: 12 },
				anthropic: { cacheReadTokens: 600, cacheCreationTokens: 100 },
			},
		]);
		const claude = () =>
			new ChatAnthropic({
				anthropicApiKey: 'sk-ant-sub-node-777777',
				model: 'claude-sonnet-4-5',
				anthropicApiUrl: primary.url,
				maxRetries: 0,
			});
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'q' }]),
				agentNode({ provider: 'connected' }),
				createNode({ name: 'Anthropic Chat Model', type: 'chatModel' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'Anthropic Chat Model': languageModelInput(),
			},
			nodeTypes: { agentCore: new AgentCore(), chatModel: chatModelSubNode('chatModel', claude) },
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		const json = result.outputOf('Agent Core')[0].json as Record<string, any>;
		expect(json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'cached',
			model: 'claude-sonnet-4-5',
		});
		expect(json.usage).toEqual({
			prompt_tokens: 900,
			completion_tokens: 12,
			total_tokens: 912,
			cached_tokens: 600,
			cache_write_tokens: 100,
		});
		expect(primary.requests[0].headers['x-api-key']).toBe('sk-ant-sub-node-777777');
		expect(JSON.stringify(json)).not.toContain('sk-ant-sub-node-777777');
	});

	it('records a credential-mode run’s calls for n8n: an AI event per model and tool call, and tokenUsage for the Logs view', async () => {
		primary.setScript([
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			final('two'),
		]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'count' }]),
				agentNode({ allowedTools: ['json_transform'] }),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: primary.openaiBaseUrl } },
		});
		const json = result.outputOf('Agent Core')[0].json as Record<string, any>;
		expect(json.tokenUsage).toEqual({
			promptTokens: json.usage.prompt_tokens,
			completionTokens: json.usage.completion_tokens,
			totalTokens: json.usage.total_tokens,
		});
		expect(json.tokenUsage.totalTokens).toBeGreaterThan(0);
		expect(result.aiEvents.map((entry) => [entry.event, entry.node])).toEqual([
			['ai-llm-generated-output', 'Agent Core'],
			['ai-tool-called', 'Agent Core'],
			['ai-llm-generated-output', 'Agent Core'],
		]);
		expect(JSON.parse(result.aiEvents[1].msg)).toMatchObject({
			step: 1,
			tool: 'json_transform',
			ok: true,
		});
		expect(JSON.parse(result.aiEvents[2].msg)).toMatchObject({
			step: 2,
			provider: 'openai',
			model: 'gpt-4o-mini',
			usage: json.trace[1].usage,
		});
	});

	it('leaves a connected chat model’s calls to its own tracing: no AI events or tokenUsage from Agent Core', async () => {
		primary.setScript([final('done')]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'q' }]),
				agentNode({ provider: 'connected' }),
				createNode({ name: 'OpenAI Chat Model', type: 'chatModel' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'OpenAI Chat Model': languageModelInput(),
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				chatModel: chatModelSubNode('chatModel', chatOpenAi(primary, 'gpt-5-mini', 'k-123456')),
			},
		});
		expect(result.outputOf('Agent Core')[0].json).not.toHaveProperty('tokenUsage');
		expect(result.aiEvents.filter((entry) => entry.node === 'Agent Core')).toEqual([]);
	});

	it('fails over from the credential model to the Fallback Model sub-node mid-run, running the tool once', async () => {
		// The credential model retries a 500 twice: every call after the first fails.
		primary.setScript((request) =>
			request.callIndex === 0
				? action('json_transform', { data: [1, 2], expression: 'length(@)' })
				: { status: 500, errorMessage: 'The server had an error processing your request.' },
		);
		second.setScript([final('two, said the fallback')]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'count' }]),
				agentNode({ needsFallback: true, allowedTools: ['json_transform'], options: {} }),
				createNode({ name: 'Fallback Chat Model', type: 'chatModel' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'Fallback Chat Model': languageModelInput(),
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				chatModel: chatModelSubNode(
					'chatModel',
					chatOpenAi(second, 'gpt-4.1-mini', 'fallback-key-123456'),
				),
			},
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'primary-key-123456', url: primary.openaiBaseUrl },
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		const json = result.outputOf('Agent Core')[0].json as Record<string, any>;
		expect(json).toMatchObject({ finish_reason: 'final', final_answer: 'two, said the fallback' });
		expect(json.trace.map((step: any) => [step.provider, step.model])).toEqual([
			['openai', 'gpt-4o-mini'],
			[expect.any(String), 'gpt-4.1-mini'],
		]);
		expect(json.used_tools.json_transform.count).toBe(1);
		expect(primary.requests).toHaveLength(4);
		expect(json.trace[1].notices[0]).toContain('The server had an error processing your request.');
		// The fallback got the conversation with the observation of the tool the primary asked for.
		expect(second.requests[0].messages[second.requests[0].messages.length - 1].content).toBe(
			observationMessage('json_transform', '2'),
		);
	});

	it('takes the Chat Model and the Fallback Model inputs in their order, whatever order n8n hands them over', async () => {
		primary.setScript({ status: 500, errorMessage: 'primary down' });
		second.setScript([final('from the fallback')]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'q' }]),
				agentNode({ provider: 'connected', needsFallback: true }),
				createNode({ name: 'Main Model', type: 'mainModel' }),
				createNode({ name: 'Backup Model', type: 'backupModel' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'Main Model': languageModelInput(0),
				'Backup Model': languageModelInput(1),
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				mainModel: chatModelSubNode('mainModel', chatOpenAi(primary, 'main-model', 'k1-123456')),
				backupModel: chatModelSubNode(
					'backupModel',
					chatOpenAi(second, 'backup-model', 'k2-123456'),
				),
			},
		});
		const json = result.outputOf('Agent Core')[0].json as Record<string, any>;
		expect(json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'from the fallback',
			model: 'backup-model',
		});
		expect(primary.requests).toHaveLength(1);
		expect(json.trace[0].notices[0]).toMatch(
			/main-model failed .*primary down.*backup-model answers from this step on/,
		);
	});

	it('says which input is empty when Enable Fallback Model is on and nothing is connected there', async () => {
		const result = await runWorkflow({
			nodes: [createInputNode([{ prompt: 'q' }]), agentNode({ needsFallback: true })],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: primary.openaiBaseUrl } },
		});
		expect(result.errorOf('Agent Core')?.message).toMatch(/Fallback Model/);
		expect(primary.requests).toHaveLength(0);
	});

	it('fails over to another model of the same credential mid-run, with no Fallback Model input needed', async () => {
		// The primary model answers the tool step, then 500s through its retries; the fallback model of the
		// same endpoint and key finishes the run from the observation.
		primary.setScript((request) => {
			if (request.model === 'gpt-4.1-mini') return final('two, said the smaller model');
			return request.callIndex === 0
				? action('json_transform', { data: [1, 2], expression: 'length(@)' })
				: { status: 500, errorMessage: 'The server had an error processing your request.' };
		});
		const fallbackModel = { __rl: true, mode: 'list', value: 'gpt-4.1-mini' };
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'count' }]),
				agentNode({
					needsFallback: true,
					fallbackSource: 'credential',
					fallbackModel,
					allowedTools: ['json_transform'],
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'one-key-123456', url: primary.openaiBaseUrl } },
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		const json = result.outputOf('Agent Core')[0].json as Record<string, any>;
		expect(json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'two, said the smaller model',
			model: 'gpt-4.1-mini',
		});
		expect(json.trace.map((step: any) => [step.provider, step.model])).toEqual([
			['openai', 'gpt-4o-mini'],
			['openai', 'gpt-4.1-mini'],
		]);
		expect(json.trace[1].notices[0]).toMatch(
			/^openai gpt-4o-mini failed \(.*The server had an error processing your request.*\); the fallback openai gpt-4.1-mini answers from this step on$/,
		);
		expect(json.used_tools.json_transform.count).toBe(1);
		const toFallback = primary.requests.filter((request) => request.model === 'gpt-4.1-mini');
		expect(toFallback).toHaveLength(1);
		expect(toFallback[0].headers.authorization).toBe('Bearer one-key-123456');
		expect(toFallback[0].messages[toFallback[0].messages.length - 1].content).toBe(
			observationMessage('json_transform', '2'),
		);
		expect(JSON.stringify(json)).not.toContain('one-key-123456');
	});

	it('names the Fallback Model field when the fallback is another model of the credential and its expression is empty', async () => {
		// An empty literal is caught by n8n's own required-field check before the run; an expression is not.
		const fallbackModel = { __rl: true, mode: 'id', value: '={{ $json.fallback_model ?? "" }}' };
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'q' }]),
				agentNode({ needsFallback: true, fallbackSource: 'credential', fallbackModel }),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: primary.openaiBaseUrl } },
		});
		expect(result.errorOf('Agent Core')?.message).toBe('Fallback Model is empty');
		expect(primary.requests).toHaveLength(0);
	});
});

describe('the chat-model inputs n8n draws on Agent Core', () => {
	// Version 1, the version of the examples and of these nodes (typeVersion 1).
	const agentCore = new AgentCore().nodeVersions[1];
	const nodeTypes = {
		getByName: () => agentCore,
		getByNameAndVersion: () => agentCore,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	/** The input names n8n's own NodeHelpers computes from the node's inputs expression for these parameters. */
	const inputsFor = (parameters: INodeParameters) => {
		const node = {
			id: '1',
			name: 'Agent Core',
			type: 'agentCore',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters,
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		const inputs = NodeHelpers.getNodeInputs(
			workflow,
			workflow.getNode('Agent Core')!,
			agentCore.description,
		);
		return (inputs as Array<string | { displayName?: string; type: string }>).map((input) =>
			typeof input === 'string' ? input : (input.displayName ?? input.type),
		);
	};

	it('has a Fallback Model input only when the fallback comes from a sub-node, not from another model of the credential', () => {
		expect(inputsFor({ provider: 'openai' })).toEqual(['main', 'Tool']);
		expect(inputsFor({ provider: 'openai', needsFallback: true })).toEqual([
			'main',
			'Fallback Model',
			'Tool',
		]);
		expect(
			inputsFor({ provider: 'gemini', needsFallback: true, fallbackSource: 'credential' }),
		).toEqual(['main', 'Tool']);
		expect(inputsFor({ provider: 'connected' })).toEqual(['main', 'Chat Model', 'Tool']);
		// Fallback From is hidden with a connected model: the fallback is always the Fallback Model input then.
		expect(
			inputsFor({ provider: 'connected', needsFallback: true, fallbackSource: 'credential' }),
		).toEqual(['main', 'Chat Model', 'Fallback Model', 'Tool']);
	});
});
