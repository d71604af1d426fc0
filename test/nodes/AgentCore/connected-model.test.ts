// With Provider on Connected Chat Model and nothing on the Chat Model input, the node's own error says what to do
// (issue #48).
import { NodeConnectionTypes, type INodeParameters } from 'n8n-workflow';
import { ChatOpenAI } from '@langchain/openai';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { useScriptedServer } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode, subNode } from '../../support/test-nodes';

describe('an empty chat-model input in n8n’s engine (version 2)', () => {
	const server = useScriptedServer();

	async function runWith(parameters: INodeParameters, withModel: { disabled: boolean }[]) {
		const models = withModel.map((model, index) => ({
			...createNode({ name: `Model ${index}`, type: 'chatModel' }),
			disabled: model.disabled,
		}));
		const connections = connectInSequence('Input', 'Agent Core');
		for (const model of models)
			connections[model.name] = {
				ai_languageModel: [
					[{ node: 'Agent Core', type: NodeConnectionTypes.AiLanguageModel, index: 0 }],
				],
			};
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ chatInput: 'hello' }]),
				createNode({ name: 'Agent Core', type: 'agentCore', typeVersion: 2, parameters }),
				...models,
			],
			connections,
			nodeTypes: {
				agentCore: new AgentCore(),
				chatModel: subNode(
					'chatModel',
					NodeConnectionTypes.AiLanguageModel,
					() => new ChatOpenAI({ apiKey: 'k', configuration: { baseURL: server().openaiBaseUrl } }),
				),
			},
		});
		return result.errorOf('Agent Core') as (Error & { description?: string }) | undefined;
	}

	it.each([
		['nothing is connected', []],
		['the connected chat model is disabled', [{ disabled: true }]],
	])(
		'%s: names the input and offers the Provider alternative, not n8n’s generic message',
		async (_, models) => {
			const error = await runWith({}, models);

			expect(error?.message).toBe('No chat model is connected to the Chat Model input');
			expect(error?.description).toBe(
				'Click + under Chat Model and pick a chat model sub-node (OpenAI, Anthropic, Gemini, Ollama, …), or set ' +
					'Provider to "OpenAI or OpenAI-Compatible" or "Google Gemini" to call the model with an Agent Core credential.',
			);
			expect(server().requests).toHaveLength(0);
		},
	);

	it('an empty Fallback Model input is named with its own fix', async () => {
		const error = await runWith({ needsFallback: true }, [{ disabled: false }]);

		expect(error?.message).toBe('No chat model is connected to the Fallback Model input');
		expect(error?.description).toMatch(/turn off Enable Fallback Model\.$/);
	});
});
