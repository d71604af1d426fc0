// OpenAI and compatible chat completions through the `openai` SDK: the public names of src/providers/openai.
export { OpenAiChatModel } from './model';
export type { OpenAiModelOptions } from '../model-options';
export { readOpenAiUsage } from './reply';
export { openAiResponseFormat, promptCacheKey } from './request';
