/** The chat models connected to the node's Chat Model and Fallback Model inputs, read from n8n and handed to the engine as ChatModels. */
import { NodeConnectionTypes, type IExecuteFunctions } from 'n8n-workflow';
import { LangChainChatModel, type ChatModel } from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';

/** n8n's error when a required sub-node input is empty, for the two chat-model inputs. */
const EMPTY_INPUT = /^A (Chat Model|Fallback Model) sub-node must be connected/;

/** The error when `input` has no chat model, whoever noticed first (n8n or the node). */
export const noModelMessage = (input: string) => `No chat model is connected to the ${input} input`;

/** What to do about an empty chat-model input. */
const NO_MODEL_FIX: Record<string, string> = {
	'Chat Model':
		'Click + under Chat Model and pick a chat model sub-node (OpenAI, Anthropic, Gemini, Ollama, …), or set ' +
		'Provider to "OpenAI or OpenAI-Compatible" or "Google Gemini" to call the model with an Agent Core credential.',
	'Fallback Model':
		'Click + under Fallback Model and pick a chat model sub-node, or turn off Enable Fallback Model.',
};

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
	const supplied: unknown = await context
		.getInputConnectionData(NodeConnectionTypes.AiLanguageModel, itemIndex)
		.catch((error: Error) => {
			// n8n's own check of a required input ("A Chat Model sub-node must be connected and enabled"): said
			// here with the fix.
			const input = EMPTY_INPUT.exec(String(error?.message))?.[1];
			if (input === undefined) throw error;
			throw nodeError(context, noModelMessage(input), itemIndex, NO_MODEL_FIX[input]);
		});
	const models: unknown[] = Array.isArray(supplied) ? [...supplied].reverse() : [supplied];
	const [primary, fallback] = inputs.primary
		? [models[0], inputs.fallback ? models[1] : undefined]
		: [undefined, models[0]];
	const adapt = (model: unknown, input: string, hint: string) => {
		if (model === undefined || model === null)
			throw nodeError(context, noModelMessage(input), itemIndex, hint);
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
					primary: adapt(primary, 'Chat Model', NO_MODEL_FIX['Chat Model']),
				}
			: {}),
		...(inputs.fallback
			? {
					fallback: adapt(fallback, 'Fallback Model', NO_MODEL_FIX['Fallback Model']),
				}
			: {}),
	};
}
