// Gemini generateContent through the `@google/genai` SDK: the public names of src/providers/gemini.
export { GeminiChatModel, type GeminiModelOptions } from './model';
export { toGeminiContents } from './parts';
export { GEMINI_THINKING_BUDGETS } from './request';
