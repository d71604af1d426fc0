// Gemini generateContent through the `@google/genai` SDK: the public names of src/providers/gemini.
export { GeminiChatModel } from './model';
export type { GeminiModelOptions } from '../model-options';
export { toGeminiContents } from './parts';
export { GEMINI_THINKING_BUDGETS } from './request';
