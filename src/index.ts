/** Agent Core's engine, usable from plain Node code; the n8n nodes and the CLI are thin callers of it. */
export { runAgent, type RunAgentOptions } from './agent/run-agent';
export type { AgentEvent, AgentEventListener } from './agent/events';
export { resolveConfig, ConfigError, DEFAULT_CONFIG, REASONING_EFFORTS, type AgentConfig, type JsonMode } from './agent/config';
export { InputError } from './agent/input';
export { parseTurn, MAX_NESTING_DEPTH, MAX_REPLY_CHARACTERS, type ParsedTurn, type ActionTurn, type FinalTurn, type ProtocolError } from './agent/protocol';
export type { AgentResult, FinishReason, StepError, TraceStep, ToolUsage } from './trace/types';
export type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ModelFinishReason, ReasoningEffort, ResponseFormat, TokenUsage } from './providers/chat-model';
export { ProviderResponseError } from './providers/chat-model';
export { sanitiseUsage, MAX_TOKENS_PER_CALL } from './providers/usage';
export { createChatModel, type ProviderName, type ProviderOptions } from './providers/create-model';
export { OpenAiChatModel, mapOpenAiFinishReason, type OpenAiModelOptions } from './providers/openai';
export { GeminiChatModel, mapGeminiFinishReason, type GeminiModelOptions } from './providers/gemini';
export { TruncatedText, type Tool, type ToolContext } from './tools/tool';
export { ToolRegistry, builtInTools } from './tools/registry';
export { domainEntryProblem } from './tools/http-request/address-policy';
export { HEADER_NAME_PATTERN } from './tools/http-request/settings';
export { validateAgainst, type JsonSchema, type ValidationResult } from './validation/validate';
export { JSON_TRANSFORM_MAX_DATA_LENGTH, JSON_TRANSFORM_MAX_RESULT_LENGTH, JSON_TRANSFORM_WORKER_MEMORY_MB } from './tools/json-transform';
