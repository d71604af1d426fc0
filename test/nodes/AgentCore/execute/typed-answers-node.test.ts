import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeParameters,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

/** A next node that reads the previous item through n8n expressions, as a Set or IF node would. */
class ReadsPreviousItem implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Reads Previous Item',
		name: 'readsPreviousItem',
		group: ['transform'],
		version: 1,
		description: 'Outputs what its expressions read',
		defaults: { name: 'Next' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Total', name: 'total', type: 'number', default: 0 },
			{ displayName: 'Kind', name: 'kind', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, index) => ({
				json: {
					total: this.getNodeParameter('total', index),
					kind: this.getNodeParameter('kind', index),
				},
			})),
		];
	}
}

describe('Output Format → JSON Matching a Schema in n8n’s engine', () => {
	const server = useScriptedServer();
	const schema = JSON.stringify({
		type: 'object',
		properties: { total: { type: 'number' }, currency: { type: 'string' } },
		required: ['total', 'currency'],
	});

	const run = (options: INodeParameters) =>
		runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'What does the invoice total?' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, options },
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
				createNode({
					name: 'Next',
					type: 'readsPreviousItem',
					parameters: {
						total: '={{ $json.final_output.total * 2 }}',
						kind: '={{ typeof $json.final_output }}',
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core', 'Next'),
			nodeTypes: { agentCore: new AgentCore(), readsPreviousItem: new ReadsPreviousItem() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});

	it('hands $json.final_output to the next node as an object', async () => {
		server().setScript([
			JSON.stringify({ type: 'final', answer: { total: 12.5, currency: 'EUR' } }),
		]);
		const result = await run({ outputFormat: 'json', outputSchema: schema });
		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({
			final_output: { total: 12.5, currency: 'EUR' },
			output: '{"total":12.5,"currency":"EUR"}',
		});
		expect(result.outputOf('Next')[0].json).toEqual({ total: 25, kind: 'object' });
	});

	it('ends output_invalid as an item by default (On Limit Reached), after the repair turn', async () => {
		server().setScript([final('twelve fifty'), final('still twelve fifty')]);
		const result = await run({ outputFormat: 'json', outputSchema: schema });
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({
			finish_reason: 'output_invalid',
		});
		expect(server().requests).toHaveLength(2);
	});

	it('names Output Schema when its text is not JSON, before any model call', async () => {
		const result = await run({ outputFormat: 'json', outputSchema: '{"type": "object",' });
		expect(result.errorOf('Agent Core')?.message).toMatch(/^Output Schema is not valid JSON: /);
		expect(server().requests).toHaveLength(0);
	});

	it('leaves the answer as text with Output Format → Text, even with a schema left in the hidden field', async () => {
		server().setScript([final('12.50 EUR')]);
		const result = await run({ outputFormat: 'text', outputSchema: schema });
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({ final_answer: '12.50 EUR' });
		expect(result.outputOf('Agent Core')[0].json).not.toHaveProperty('final_output');
	});
});
