// OpenAI and OpenAI-compatible chat completions through the official `openai` SDK: the public names of src/providers/openai.
export { OpenAiChatModel, type OpenAiModelOptions } from './model';
export { readOpenAiUsage } from './reply';
export { openAiResponseFormat, promptCacheKey } from './request';
