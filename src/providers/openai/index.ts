// OpenAI and compatible chat completions through the `openai` SDK: the public names of src/providers/openai.
export { OpenAiChatModel } from './model';
export type { OpenAiModelOptions } from '../model-options';
export { openAiResponseFormat, promptCacheKey, readOpenAiUsage } from './wire';
