import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

/** Issue #20: Options → Batch Size runs several items of one execution at once, bounded, order and pairing kept. */
describe('Agent Core batch size in n8n’s engine', () => {
	const server = useScriptedServer();

	/** A model that answers each prompt with its own text after a pause, counting how many calls overlap. */
	function overlappingModel() {
		const seen = { inFlight: 0, most: 0 };
		server().setScript(async (request) => {
			seen.inFlight++;
			seen.most = Math.max(seen.most, seen.inFlight);
			await new Promise((resolve) => setTimeout(resolve, 150));
			seen.inFlight--;
			const prompt = String(request.messages[request.messages.length - 1].content);
			return final(`answer to ${prompt}`);
		});
		return seen;
	}

	const run = (count: number, options: IDataObject, continueOnFail = false) =>
		runWorkflow({
			nodes: [
				createInputNode(Array.from({ length: count }, (_, index) => ({ prompt: `item ${index}` }))),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: { model: { __rl: true, mode: 'id', value: 'm' }, options } as INodeParameters,
					settings: {
						credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } },
						...(continueOnFail ? { continueOnFail: true } : {}),
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});

	it('runs up to Batch Size items at once and keeps the output in input order, each paired with its item', async () => {
		const seen = overlappingModel();
		const result = await run(7, { batchSize: 3 });
		const items = result.outputOf('Agent Core');
		expect(items.map((item) => item.json.final_answer)).toEqual(
			Array.from({ length: 7 }, (_, index) => `answer to item ${index}`),
		);
		expect(items.map((item) => item.pairedItem)).toEqual(
			Array.from({ length: 7 }, (_, index) => ({ item: index })),
		);
		expect(seen.most).toBe(3);
	});

	it('runs items one after another by default', async () => {
		const seen = overlappingModel();
		await run(3, {});
		expect(seen.most).toBe(1);
	});

	it('Max Concurrent Model Calls still caps the calls of a batch', async () => {
		const seen = overlappingModel();
		const result = await run(4, { batchSize: 4, maxConcurrentCalls: 2 });
		expect(result.outputOf('Agent Core')).toHaveLength(4);
		expect(seen.most).toBe(2);
	});

	it('a failed item in a batch becomes its own error item under Continue On Fail, in its place', async () => {
		server().setScript((request) => {
			const prompt = String(request.messages[request.messages.length - 1].content);
			return prompt.endsWith('1')
				? { status: 401, errorMessage: 'Incorrect API key provided' }
				: final(`answer to ${prompt}`);
		});
		const result = await run(3, { batchSize: 3 }, true);
		const items = result.outputOf('Agent Core');
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json.final_answer).toBe('answer to item 0');
		expect(String(items[1].json.error)).toMatch(/401|API key/);
		expect(items[2].json.final_answer).toBe('answer to item 2');
	});
});
