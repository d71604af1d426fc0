// Files that tools return (issue #40), in n8n's real engine: a workflow tool whose sub-workflow makes an image with
// n8n's binary data service gives it to the model; an n8n tool sub-node's binary is dropped by n8n itself, as for
// n8n's AI Agent (n8n-core get-input-connection-data.js makeHandleToolInvocation), and the run goes on with n8n's words.
import { createHash } from 'node:crypto';
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
} from 'n8n-workflow';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { action, final, useScriptedServer } from '../support/agent';
import { engineInstanceId, runWorkflow } from '../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	createSubWorkflowTriggerNode,
} from '../support/test-nodes';

process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';

const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
	'base64',
);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A node that draws a chart: one item with a PNG stored through n8n's binary data service, and `json` beside it. */
function chartNode(name: string, outputs: string[], json: IDataObject): INodeType {
	return {
		description: {
			displayName: name,
			name,
			group: ['transform'],
			version: 1,
			description: 'Draws the sales chart as a PNG.',
			defaults: { name },
			inputs: outputs.includes(NodeConnectionTypes.AiTool) ? [] : [NodeConnectionTypes.Main],
			outputs: outputs as never,
			properties: [],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const data = await this.helpers.prepareBinaryData(PNG, 'chart.png', 'image/png');
			return [[{ json, binary: { data } }]];
		},
	};
}

describe('files a tool returns, in n8n’s engine', () => {
	const server = useScriptedServer();
	beforeAll(async () => {
		engineInstanceId(); // n8n's folders point at the harness's temporary user folder first
		await Container.get(BinaryDataService).init();
	});
	const credentials = () => ({ agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } });
	const agent = (parameters: Record<string, unknown>) =>
		createNode({
			name: 'Agent Core',
			type: 'agentCore',
			typeVersion: 2,
			parameters: {
				provider: 'openai',
				model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
				...parameters,
			},
			settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
		});

	it('a workflow tool’s sub-workflow image reaches the model with the observation', async () => {
		server().setScript([
			action('sales_chart', { query: 'sales by month' }),
			final('Sales rose in May.'),
		]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ chatInput: 'How did sales go?' }]),
				agent({
					options: {
						workflowTools: {
							tools: [
								{
									name: 'sales_chart',
									description: 'Draws the sales chart.',
									workflowId: { __rl: true, mode: 'id', value: 'charts' },
								},
							],
						},
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: {
				agentCore: new AgentCore(),
				chart: chartNode('chart', [NodeConnectionTypes.Main], { drawn: true }),
			},
			credentials: credentials(),
			workflows: {
				charts: {
					nodes: [createSubWorkflowTriggerNode(), createNode({ name: 'Chart', type: 'chart' })],
					connections: connectInSequence('When Called', 'Chart'),
				},
			},
		});
		const json = result.outputOf('Agent Core')[0].json;
		expect(json.finish_reason).toBe('final');
		const second = server().requests[1];
		expect(second.files.map((file) => [file.wire, file.type, file.sha256])).toEqual([
			['image_url', 'image/png', sha256(PNG)],
		]);
		const step = (json.trace as Array<Record<string, any>>)[0];
		expect(step.observation_files).toEqual([
			expect.objectContaining({ type: 'image/png', bytes: PNG.length, sha256: sha256(PNG) }),
		]);
	});

	it.each([
		[
			'binary alone',
			{},
			'"Error: The Tool attempted to return binary data, which is not supported in Agents"',
		],
		['binary beside json', { drawn: true }, '[{"drawn":true}]'],
	])(
		'an n8n tool sub-node returning %s: n8n drops the binary before Agent Core, and the run goes on',
		async (_label, json, observation) => {
			server().setScript([action('Chart_Tool', {}), final('I could not see the chart.')]);
			const result = await runWorkflow({
				nodes: [
					createInputNode([{ chatInput: 'How did sales go?' }]),
					agent({}),
					createNode({ name: 'Chart Tool', type: 'chartTool' }),
				],
				connections: {
					...connectInSequence('Input', 'Agent Core'),
					'Chart Tool': {
						ai_tool: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiTool, index: 0 }]],
					},
				},
				nodeTypes: {
					agentCore: new AgentCore(),
					chartTool: chartNode('chartTool', [NodeConnectionTypes.AiTool], json),
				},
				credentials: credentials(),
			});
			const out = result.outputOf('Agent Core')[0].json;
			expect(out.finish_reason).toBe('final');
			const step = (out.trace as Array<Record<string, any>>)[0];
			expect(step.observation).toBe(observation);
			expect(step.observation_files).toBeUndefined();
			expect(server().requests[1].files).toEqual([]);
		},
	);
});
