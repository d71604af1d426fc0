// Issue #48: two workflows in one n8n process whose schemas share an `$id` with other content each check by their own.
import type { INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { action, useScriptedServer } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	createSubWorkflowTriggerNode,
} from '../../support/test-nodes';

const typedFinal = (answer: unknown) => JSON.stringify({ type: 'final', answer });
/** An object schema under the one `$id` both workflows use, with one required property of one type, closed. */
const shared = (property: string, type: string) =>
	JSON.stringify({
		$id: 'https://example.com/shared.json',
		type: 'object',
		properties: { [property]: { type } },
		required: [property],
		additionalProperties: false,
	});

describe('two workflows whose schemas share an $id, in one n8n process', () => {
	const server = useScriptedServer();
	const workflow = (name: string, parameters: INodeParameters) =>
		runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'Answer.' }]),
				createNode({
					name,
					type: 'agentCore',
					parameters: { model: { __rl: true, mode: 'id', value: 'm' }, ...parameters },
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', name),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
			workflows: { sub: { nodes: [createSubWorkflowTriggerNode()], connections: {} } },
		});
	const invoices = () =>
		workflow('Invoices', {
			options: { outputFormat: 'json', outputSchema: shared('total', 'number') },
		});
	const labels = () =>
		workflow('Labels', {
			options: { outputFormat: 'json', outputSchema: shared('name', 'string') },
			workflowTools: {
				tools: [
					{
						name: 'lookup',
						description: 'Looks up a product.',
						workflowId: { __rl: true, mode: 'id', value: 'sub' },
						argsSchema: shared('sku', 'integer'),
					},
				],
			},
		});
	const trace = (json: Record<string, unknown>) => json.trace as Array<Record<string, any>>;

	it('each execution checks its answer and its tool calls by its own schemas, in either order', async () => {
		server().setScript([typedFinal({ total: 12 })]);
		const first = await invoices();
		expect(first.errorOf('Invoices')).toBeUndefined();
		expect(first.outputOf('Invoices')[0].json).toMatchObject({ final_output: { total: 12 } });

		server().setScript([
			action('lookup', { name: 'x' }),
			action('lookup', { sku: 4 }),
			typedFinal({ total: 12 }),
			typedFinal({ name: 'Ada' }),
		]);
		const second = await labels();
		expect(second.errorOf('Labels')).toBeUndefined();
		const json = second.outputOf('Labels')[0].json;
		expect(json).toMatchObject({ finish_reason: 'final', final_output: { name: 'Ada' } });
		expect(trace(json).map((step) => step.error?.type)).toEqual([
			'invalid_args',
			undefined,
			'output_invalid',
			undefined,
		]);
		expect(second.executeWorkflowCalls).toHaveLength(1);

		server().setScript([typedFinal({ name: 'Ada' }), typedFinal({ total: 7 })]);
		const third = await invoices();
		const again = third.outputOf('Invoices')[0].json;
		expect(again).toMatchObject({ finish_reason: 'final', final_output: { total: 7 } });
		expect(trace(again)[0].error).toMatchObject({ type: 'output_invalid' });
	});
});
