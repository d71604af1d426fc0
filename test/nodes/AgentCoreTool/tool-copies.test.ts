// The tool copy n8n made of Agent Core while it was usableAsTool (type agentCoreTool, versions 1 and 2) is withdrawn
// from the node list, and the workflows that use it keep loading and running, their panel saying what replaced it.
import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { WITHDRAWN_NOTICE } from '../../../nodes/AgentCoreTool/Legacy/agent-core-tool-copies';
import { AgentCoreTool } from '../../../nodes/AgentCoreTool/AgentCoreTool.node';
import { action, final, lastUserMessage, useScriptedServer } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../support/test-nodes';

const versionOf = (node: AgentCore | AgentCoreTool, version: number): INodeTypeDescription =>
	node.nodeVersions[version].description;

describe("Agent Core's old tool copy", () => {
	const server = useScriptedServer();

	it('keeps running in a saved workflow under Agent Core: n8n fills its $fromAI Prompt and returns its item', async () => {
		server().setScript([
			action('Agent_Core_Tool', { question: 'What is the capital of France?' }),
			final('Paris.'),
			final('The capital is Paris.'),
		]);
		const model = { __rl: true, mode: 'id', value: 'gpt-4o-mini' };
		const openAi = { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } };
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'Ask the tool for the capital of France.' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters: { provider: 'openai', model, prompt: '={{ $json.prompt }}' },
					settings: openAi,
				}),
				// As n8n 2.41 saved the copy: Agent Core version 2's parameters and the Description it added.
				createNode({
					name: 'Agent Core Tool',
					type: 'agentCoreTool',
					typeVersion: 2,
					parameters: {
						toolDescription: 'Answers geography questions.',
						provider: 'openai',
						model,
						prompt: "={{ $fromAI('question', 'the question', 'string') }}",
					},
					settings: openAi,
				}),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'Agent Core Tool': {
					ai_tool: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiTool, index: 0 }]],
				},
			},
			nodeTypes: { agentCore: new AgentCore(), agentCoreTool: new AgentCoreTool() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		const json = result.outputOf('Agent Core')[0].json as Record<string, any>;
		expect(json.final_answer).toBe('The capital is Paris.');
		expect(lastUserMessage(server(), 1)).toBe('What is the capital of France?');
		expect(server().requests[0].messages[0].content).toContain(
			'Agent_Core_Tool: Answers geography questions.',
		);
		expect(JSON.parse(json.trace[0].observation)).toEqual([
			expect.objectContaining({ final_answer: 'Paris.', finish_reason: 'final' }),
		]);
	});

	it('is versions 1 and 2 of Agent Core Tool, each saying first what replaced it; new nodes get version 3', () => {
		const tool = new AgentCoreTool();
		expect(tool.description.defaultVersion).toBe(3);
		for (const version of [1, 2]) {
			const description = versionOf(tool, version);
			expect(description).toMatchObject({
				name: 'agentCoreTool',
				inputs: [],
				outputs: [NodeConnectionTypes.AiTool],
			});
			expect(description.properties[0]).toMatchObject({
				type: 'notice',
				displayName: WITHDRAWN_NOTICE,
			});
			expect(description.properties.map((property) => property.name)).toContain('toolDescription');
		}
		// n8n lists a `<name>Tool` copy of every usableAsTool node: Agent Core is not one any more.
		const agentCore = new AgentCore();
		expect([1, 2].map((version) => versionOf(agentCore, version).usableAsTool)).toEqual([
			undefined,
			undefined,
		]);
	});
});
