import { NodeConnectionTypes, type IExecuteFunctions } from 'n8n-workflow';
import type { ChatModel } from '../../src';
import { nodeError } from '../shared/node-errors';
import { LangChainChatModel } from './langchain-chat-model';

/** The node's inputs for a given Provider and Enable Fallback Model, as the `inputs` expression builds them. */
export function agentCoreInputs(provider: string, needsFallback: boolean) {
  const chatModel = (displayName: string) => ({ type: 'ai_languageModel', displayName, required: true, maxConnections: 1 });
  // 'main' as a string: n8n's editor evaluates this function on its own and has no NodeConnectionTypes there.
  return [
    'main',
    ...(provider === 'connected' ? [chatModel('Chat Model')] : []),
    ...(needsFallback ? [chatModel('Fallback Model')] : []),
    { type: 'ai_tool', displayName: 'Tool', required: false },
  ];
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
      return new LangChainChatModel(model, input);
    } catch (error) {
      throw nodeError(context, (error as Error).message, itemIndex, `Connect a chat model sub-node (OpenAI, Anthropic, Gemini, Ollama, …) to the ${input} input.`);
    }
  };
  return {
    ...(inputs.primary ? { primary: adapt(primary, 'Chat Model', 'Connect a chat model sub-node, or set Provider to a credential.') } : {}),
    ...(inputs.fallback ? { fallback: adapt(fallback, 'Fallback Model', 'Connect a chat model sub-node there, or turn off Enable Fallback Model.') } : {}),
  };
}
