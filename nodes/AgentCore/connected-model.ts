/** The chat models connected to the node's Chat Model and Fallback Model inputs, read from n8n and handed to the engine as ChatModels. */
import { NodeConnectionTypes, type IExecuteFunctions } from 'n8n-workflow';
import { LangChainChatModel, type ChatModel } from '../../src';
import { nodeError } from '../shared/node-errors';

/**
 * The node's inputs for a given Provider, Enable Fallback Model and Fallback From, as the `inputs` expression
 * builds them: the Fallback Model input exists unless the fallback is another model of the credential.
 */
export function agentCoreInputs(provider: string, needsFallback: boolean, fallbackSource: string | undefined) {
  const chatModel = (displayName: string) => ({ type: 'ai_languageModel', displayName, required: true, maxConnections: 1 });
  const fallbackInput = needsFallback && (provider === 'connected' || fallbackSource !== 'credential');
  // 'main' as a string: n8n's editor evaluates this function on its own and has no NodeConnectionTypes there.
  return [
    'main',
    ...(provider === 'connected' ? [chatModel('Chat Model')] : []),
    ...(fallbackInput ? [chatModel('Fallback Model')] : []),
    { type: 'ai_tool', displayName: 'Tool', required: false },
  ];
}

/** Which chat-model inputs the node has for these settings: the same rule as the inputs n8n draws. */
export function chatModelInputs(provider: string, needsFallback: boolean, fallbackSource: string | undefined) {
  const names = agentCoreInputs(provider, needsFallback, fallbackSource).map((input) => (typeof input === 'string' ? input : input.displayName));
  return { primary: names.includes('Chat Model'), fallback: names.includes('Fallback Model') };
}

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
  const supplied = await context.getInputConnectionData(NodeConnectionTypes.AiLanguageModel, itemIndex);
  const models: unknown[] = Array.isArray(supplied) ? [...supplied].reverse() : [supplied];
  const [primary, fallback] = inputs.primary ? [models[0], inputs.fallback ? models[1] : undefined] : [undefined, models[0]];
  const adapt = (model: unknown, input: string, hint: string) => {
    if (model === undefined || model === null) throw nodeError(context, `No chat model is connected to the ${input} input`, itemIndex, hint);
    try {
      return new LangChainChatModel(model, { input });
    } catch (error) {
      throw nodeError(context, (error as Error).message, itemIndex, `Connect a chat model sub-node (OpenAI, Anthropic, Gemini, Ollama, …) to the ${input} input.`);
    }
  };
  return {
    ...(inputs.primary ? { primary: adapt(primary, 'Chat Model', 'Connect a chat model sub-node, or set Provider to a credential.') } : {}),
    ...(inputs.fallback ? { fallback: adapt(fallback, 'Fallback Model', 'Connect a chat model sub-node there, or turn off Enable Fallback Model.') } : {}),
  };
}
