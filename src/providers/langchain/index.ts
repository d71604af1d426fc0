// Any LangChain chat model (what an n8n chat model sub-node supplies) as the engine's ChatModel, with the
// Anthropic facts ChatAnthropic needs and the bound on a model stream: the public names of src/providers/langchain.
export { LangChainChatModel } from './model';
export type { LangChainChatModelOptions } from '../model-options';
export {
	MAX_CONTENT_FREE_IN_A_ROW,
	MAX_CONTENT_FREE_TOTAL,
	MAX_MESSAGE_STARTS,
	PIECES_BETWEEN_TURNS,
} from './stream-bound';
