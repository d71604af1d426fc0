/** Agent Core's engine, usable from plain Node code; the n8n nodes and the CLI are thin callers of it. */
export { runAgent } from './agent/run-agent';
export type { RunAgentOptions } from './agent/base/run-options';
export {
	HOOK_POINTS,
	type AgentHook,
	type GuardrailDecision,
	type HookData,
	type HookDecision,
	type HookPoint,
} from './agent/hooks';
export type { AgentEvent, AgentEventListener } from './agent/base/events';
export {
	resolveConfig,
	ConfigError,
	DEFAULT_CONFIG,
	REASONING_EFFORTS,
	toolSettingsProblems,
	type AgentConfig,
	type JsonMode,
} from './settings/config';
export {
	SETTINGS,
	RUN_OPTION_SETTINGS,
	settingEntries,
	type Setting,
	type PanelFacts,
	type PanelChoice,
} from './settings/settings';
export { AgentCoreError, type ErrorFacts } from './core/agent-core-error';
export { InputError } from './core/input-error';
export {
	parseTurn,
	MAX_NESTING_DEPTH,
	MAX_REPLY_CHARACTERS,
	type ParsedTurn,
	type ActionTurn,
	type FinalTurn,
	type ProtocolError,
} from './agent/protocol/protocol';
export type {
	AgentResult,
	AuditOutcome,
	FinishReason,
	RunMetrics,
	RunPlan,
	RunPlanStep,
	StepError,
	SubRun,
	TraceStep,
	ToolUsage,
} from './trace/types';
export { callRan, callStoppedByLimit, TOOL_CALL_ERRORS } from './trace/readable-step';
export type { ChatMessage, FileRef } from './core/messages';
export { RunFile, readStreamBounded, type BoundedRead, type FileInput } from './files';
export { shownFileName } from './trace/shown-file-name';
export type { TokenUsage } from './core/usage';
export type {
	ChatModel,
	ChatRequest,
	ChatResponse,
	ModelFinishReason,
	ReasoningEffort,
	ResponseFormat,
} from './providers/chat-model';
export { ProviderResponseError } from './providers/chat-model';
export { sanitiseUsage, MAX_TOKENS_PER_CALL } from './core/usage';
export { createChatModel, type ProviderName, type ProviderOptions } from './providers/create-model';
export { OpenAiChatModel } from './providers/openai';
export { GeminiChatModel } from './providers/gemini';
export type {
	GeminiModelOptions,
	LangChainChatModelOptions,
	OpenAiModelOptions,
} from './providers/model-options';
export { mapGeminiFinishReason, mapOpenAiFinishReason } from './providers/finish-reasons';
export { LangChainChatModel } from './providers/langchain';
export { TruncatedText, WithFiles, type Tool, type ToolContext } from './tools/tool';
export { ToolRegistry, builtInTools } from './tools/registry';
export { domainEntryProblem } from './tools/http-request/address-policy';
export { HEADER_NAME_PATTERN } from './tools/http-request/settings';
export { validateAgainst, type JsonSchema, type ValidationResult } from './validation/validate';
export { toJsonSchemaObject } from './validation/json-schema-of';
export { SchemaError } from './validation/schema-error';
export {
	JSON_TRANSFORM_MAX_DATA_LENGTH,
	JSON_TRANSFORM_MAX_RESULT_LENGTH,
	JSON_TRANSFORM_WORKER_MEMORY_MB,
} from './tools/json-transform';
export {
	BudgetInputError,
	MemoryBudgetLedger,
	type BudgetLedger,
	type Charge,
	type LedgerTotals,
} from './budget/ledger';
export { budgetKey, RedisBudgetLedger, DEFAULT_BUDGET_KEY_PREFIX } from './budget/redis-ledger';
export type { PriceTable } from './budget/model-catalogue';
export type { SharedBudgetConfig } from './budget/ledger';
export { resumeAgent, type ResumeAgentOptions } from './agent/resume';
export type { ApprovalDecision } from './agent/pause/paused-run';
export type { PlanDecision } from './agent/plan';
export { agentTool, subAgentOf, type AgentTool, type SubAgentSpec } from './agent/subagent';
export { RunStateError, stateSecretProblem } from './run-state/signed-state';
export { MemoryUsedStates, RedisUsedStates, type UsedStates } from './run-state/used-states';
export {
	DEFAULT_CHECKPOINT_TTL_SECONDS,
	MemoryCheckpoints,
	RedisCheckpoints,
	type CheckpointStore,
	type CheckpointStoreOptions,
} from './run-state/checkpoint-store';
export { CheckpointError } from './agent/pause/checkpoints';
export { chainBase, traceChain, traceDigest, type ChainBase } from './trace/digest';
export {
	auditSinkFor,
	closeAuditSinks,
	pingAuditDatabase,
	AuditWriteError,
	PostgresAuditSink,
	type AuditWriteReport,
	type PostgresTarget,
} from './audit/postgres-sink';
export type { AuditRecord, AuditStep, AuditTool, AuditOrigin, ForkedFrom } from './audit/record';
export { verifyRecord, type VerifyReport } from './audit/verify';
export { verifyStoredRun, type ReadRun } from './audit/sub-run-links';
export type { ParentRun } from './audit/parent-run';
export {
	CHAIN_VERSION,
	RECORD_FIELDS,
	recordDigest,
	recordHashes,
	sealRecord,
	type RecordHashes,
} from './audit/record-chain';
export { escapeStoredText, unescapeStoredText } from './audit/stored-text';
export {
	replayRecord,
	counterfactualReplay,
	counterfactualTotals,
	firstDivergence,
	recordedTools,
	forkAuditedRun,
	ForkError,
	UnverifiedRecordError,
	type ReplayReport,
	type Candidate,
	type CounterfactualRunReport,
	type CounterfactualTotals,
	type Divergence,
	type RunBehaviour,
	type RunFigures,
	type RecordedCallLedger,
	type RecordedToolsMode,
	type UnrecordedCall,
	type ForkOptions,
	type ForkResult,
	type RecordMismatch,
	type RecordTrustOptions,
	replayGuardrails,
	AuditReadError,
	type GuardrailReplayReport,
	type ReplayGuardrailsOptions,
	type ReplayedDecision,
	type RunGuardrailsReport,
	type UnverifiedRun,
	type WouldEnd,
} from './replay';
export { ambientTracer, tracingFromEnvironment, type RunTracing } from './telemetry/otlp';
export { recordRunSpans, type RunSpanFacts } from './telemetry/run-spans';
export {
	DEFAULT_MCP_PIN_PREFIX,
	MemoryMcpPins,
	McpServerError,
	RedisMcpPins,
	mcpPinKey,
	mcpServersProblem,
	renderCallResult,
	toolFingerprint,
	type McpPinStore,
	type McpServerConfig,
	type McpToolRecord,
	type PinStatus,
} from './tools/mcp';
