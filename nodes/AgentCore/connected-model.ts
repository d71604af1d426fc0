/** The chat models connected to the node's Chat Model and Fallback Model inputs, read from n8n and handed to the engine as ChatModels. */
import { NodeConnectionTypes, type IExecuteFunctions } from 'n8n-workflow';
import { LangChainChatModel, type ChatModel } from '../../src';
import { nodeError } from '../shared/node-errors';

/**
 * The chat models connected to the Chat Model and Fallback Model inputs, as engine models. n8n returns one
 * object when a single chat-model input exists, and an array in reverse input order when both do.
 */
export async function readConnectedModels(
	context: IExecuteFunctions,
	itemIndex: number,
	inputs: { primary: boolean; fallback: boolean },
): Promise<{ primary?: ChatModel; fallback?: ChatModel }> {
	if (!inputs.primary && !inputs.fallback) return {};
	const supplied = await context.getInputConnectionData(
		NodeConnectionTypes.AiLanguageModel,
		itemIndex,
	);
	const models: unknown[] = Array.isArray(supplied) ? [...supplied].reverse() : [supplied];
	const [primary, fallback] = inputs.primary
		? [models[0], inputs.fallback ? models[1] : undefined]
		: [undefined, models[0]];
	const adapt = (model: unknown, input: string, hint: string) => {
		if (model === undefined || model === null)
			throw nodeError(context, `No chat model is connected to the ${input} input`, itemIndex, hint);
		try {
			return new LangChainChatModel(model, { input });
		} catch (error) {
			throw nodeError(
				context,
				(error as Error).message,
				itemIndex,
				`Connect a chat model sub-node (OpenAI, Anthropic, Gemini, Ollama, …) to the ${input} input.`,
			);
		}
	};
	return {
		...(inputs.primary
			? {
					primary: adapt(
						primary,
						'Chat Model',
						'Connect a chat model sub-node, or set Provider to a credential.',
					),
				}
			: {}),
		...(inputs.fallback
			? {
					fallback: adapt(
						fallback,
						'Fallback Model',
						'Connect a chat model sub-node there, or turn off Enable Fallback Model.',
					),
				}
			: {}),
	};
}
