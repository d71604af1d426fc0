// OpenAI and compatible chat completions through the `openai` SDK: the public names of src/providers/openai.
export { OpenAiChatModel, type OpenAiModelOptions } from './model';
export { readOpenAiUsage } from './reply';
export { openAiResponseFormat, promptCacheKey } from './request';
