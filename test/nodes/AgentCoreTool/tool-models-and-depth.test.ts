// The Agent Core Tool's own model choices and its depth, under Agent Core in n8n's engine (issue #52): Provider set to
// an Agent Core credential instead of a connected Chat Model, its Fallback Model input taking over when the Chat Model
// fails, and Options → Max Sub-Agent Depth stopping a sub-agent of its own.
import { NodeConnectionTypes, type IConnections, type INode } from 'n8n-workflow';
import type { ScriptedServer } from '../../../src/demo/scripted-server';
import type { TraceStep } from '../../../src/trace/types';
import { action, final, startsScriptedServers } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import { createInputNode, createNode } from '../../support/test-nodes';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { AgentCoreTool } from '../../../nodes/AgentCoreTool/AgentCoreTool.node';
import { CHILD, chatModelNode, childNode, multiplyNode } from './sub-agent-workflow';

/** Agent Core version 2 as the parent, on a connected chat model (so the credential is the Agent Core Tool's alone). */
const parentNode = createNode({
	name: 'Agent Core',
	type: 'agentCore',
	typeVersion: 2,
	parameters: { provider: 'connected', prompt: '={{ $json.prompt }}' },
});

const link = (node: string, type: string, index = 0) => ({ node, type, index }) as never;

describe("Agent Core Tool's own models and depth under Agent Core", () => {
	const startServer = startsScriptedServers();
	let parent: ScriptedServer;
	let child: ScriptedServer;
	let backup: ScriptedServer;
	beforeEach(async () => {
		[parent, child, backup] = await Promise.all([startServer(), startServer(), startServer()]);
	});

	/** Input → Agent Core ← Parent Model; `tool` on Agent Core's Tool input, with `extra` nodes and their connections. */
	async function run(tool: INode, extra: INode[], connections: IConnections, calls: unknown[]) {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'What is 6 times 7?' }]),
				parentNode,
				createNode({ name: 'Parent Model', type: 'parentModel' }),
				tool,
				...extra,
			],
			connections: {
				Input: { main: [[link('Agent Core', NodeConnectionTypes.Main)]] },
				'Parent Model': {
					ai_languageModel: [[link('Agent Core', NodeConnectionTypes.AiLanguageModel)]],
				},
				[CHILD]: { ai_tool: [[link('Agent Core', NodeConnectionTypes.AiTool)]] },
				...connections,
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				agentCoreTool: new AgentCoreTool(),
				parentModel: chatModelNode(parent, 'gpt-4o-mini'),
				chatModel: chatModelNode(child, 'gpt-5-mini'),
				backupModel: chatModelNode(backup, 'backup-model'),
				multiplyTool: multiplyNode(calls),
			},
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'child-credential-key', url: child.openaiBaseUrl },
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return result.outputOf('Agent Core')[0].json as Record<string, any> & { trace: TraceStep[] };
	}
	const multiply = createNode({ name: 'Multiply', type: 'multiplyTool' });
	const multiplyOn = (node: string) => ({
		Multiply: { ai_tool: [[link(node, NodeConnectionTypes.AiTool)]] },
	});

	it('runs on the model of its Agent Core credential when Provider is a credential, with no Chat Model connected', async () => {
		const calls: unknown[] = [];
		parent.setScript([action(CHILD, { task: 'multiply 6 by 7' }), final('It is 42.')]);
		child.setScript([action('multiply', { a: 6, b: 7 }), final('6 times 7 is 42')]);
		const tool: INode = {
			...childNode({
				provider: 'openai',
				model: { __rl: true, mode: 'id', value: 'gpt-4.1-mini' },
			}),
			credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } },
		};
		const json = await run(tool, [multiply], multiplyOn(CHILD), calls);
		expect(json).toMatchObject({ finish_reason: 'final', final_answer: 'It is 42.' });
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		// The credential's endpoint, key and model, chosen in the panel: no chat model sub-node was asked.
		expect(child.requests.map((request) => request.model)).toEqual([
			'gpt-4.1-mini',
			'gpt-4.1-mini',
		]);
		expect(child.requests[0].headers.authorization).toBe('Bearer child-credential-key');
		const sub = json.trace[0].sub_run!;
		expect(sub).toMatchObject({ agent: CHILD, finish_reason: 'final' });
		expect(sub.steps.map((step) => step.model)).toEqual(['gpt-4.1-mini', 'gpt-4.1-mini']);
	});

	it('hands the run to its Fallback Model input when its Chat Model fails as a real API does (503)', async () => {
		const calls: unknown[] = [];
		parent.setScript([action(CHILD, { task: 'multiply 6 by 7' }), final('It is 42.')]);
		child.setScript({
			status: 503,
			errorMessage: 'The engine is currently overloaded, please try again later.',
		});
		backup.setScript([action('multiply', { a: 6, b: 7 }), final('42, said the fallback')]);
		const json = await run(
			childNode({ needsFallback: true }),
			[
				multiply,
				createNode({ name: 'Child Model', type: 'chatModel' }),
				createNode({ name: 'Backup Model', type: 'backupModel' }),
			],
			{
				...multiplyOn(CHILD),
				'Child Model': {
					ai_languageModel: [[link(CHILD, NodeConnectionTypes.AiLanguageModel, 0)]],
				},
				'Backup Model': {
					ai_languageModel: [[link(CHILD, NodeConnectionTypes.AiLanguageModel, 1)]],
				},
			},
			calls,
		);
		expect(json).toMatchObject({ finish_reason: 'final', final_answer: 'It is 42.' });
		expect(json.trace[0].observation).toBe('42, said the fallback');
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		expect(child.requests.length).toBeGreaterThan(0);
		const sub = json.trace[0].sub_run!;
		expect(sub.steps.map((step) => step.model)).toEqual(['backup-model', 'backup-model']);
		expect(sub.steps[0].notices?.[0]).toMatch(
			/gpt-5-mini failed .*currently overloaded.*backup-model answers from this step on/,
		);
	});

	it('stops a sub-agent of its own past Options → Max Sub-Agent Depth, with an observation that says so', async () => {
		parent.setScript([action(CHILD, { task: 'ask your helper' }), final('No deeper.')]);
		child.setScript([action('Helper', { task: 'help' }), final('my helper could not run')]);
		const helper = createNode({
			name: 'Helper',
			type: 'agentCoreTool',
			typeVersion: 3,
			parameters: { toolDescription: 'Helps.', provider: 'connected' },
		});
		const json = await run(
			childNode({ options: { maxAgentDepth: 1 } }),
			[helper, createNode({ name: 'Child Model', type: 'chatModel' })],
			{
				Helper: { ai_tool: [[link(CHILD, NodeConnectionTypes.AiTool)]] },
				'Child Model': {
					ai_languageModel: [
						[
							link(CHILD, NodeConnectionTypes.AiLanguageModel),
							link('Helper', NodeConnectionTypes.AiLanguageModel),
						],
					],
				},
			},
			[],
		);
		expect(json.final_answer).toBe('No deeper.');
		const sub = json.trace[0].sub_run!;
		expect(sub).toMatchObject({ agent: CHILD, depth: 1, finish_reason: 'final' });
		// Agent Core's own limit is 3; the Agent Core Tool's 1 is the smaller, so its Helper (depth 2) never runs.
		expect(sub.steps[0].error?.message).toBe(
			'Helper was not run: it would run 2 levels below the run that started it, past max_agent_depth (1)',
		);
		expect(child.requests).toHaveLength(2);
	});
});
