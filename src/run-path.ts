// What the n8n nodes' execute path needs from the engine, and nothing the nodes never call: no replay, no demo, no CLI.
/**
 * The nodes' door to the run path (issue #49): the nodes import this instead of the library's index, which also
 * loads replay, counterfactual runs and forks, the audit verifier, the OTLP exporter's setup and every provider's
 * public names. `src/index.ts` stays the library's door, with the same names.
 */
export { runAgent } from './agent/run-agent';
export type { RunAgentOptions } from './agent/base/run-options';
export {
	HOOK_METHODS,
	type AgentHook,
	type HookData,
	type HookDecision,
	type HookPoint,
} from './agent/base/hook-types';
export type { AgentEvent, AgentEventListener } from './agent/base/events';
export { resumeAgent } from './agent/resume';
export type { ApprovalDecision } from './agent/pause/paused-run';
export type { PlanDecision } from './agent/plan';
export {
	agentTool,
	rememberedRun,
	subAgentOf,
	type AgentTool,
	type SubAgentMemory,
	type SubAgentSpec,
} from './agent/subagent';
export {
	ConfigError,
	DEFAULT_CONFIG,
	toolSettingsProblems,
	type AgentConfig,
} from './settings/config';
export { SETTINGS } from './settings/settings';
export { AgentCoreError } from './core/agent-core-error';
export { InputError } from './core/input-error';
export type {
	AgentResult,
	FinishReason,
	GuardrailDecision,
	StepError,
	TraceStep,
} from './trace/types';
export { callRan, callStoppedByLimit, TOOL_CALL_ERRORS } from './trace/readable-step';
export type { ChatMessage } from './core/messages';
export { readStreamBounded } from './files';
export { shownFileName } from './trace/shown-file-name';
export type { ChatModel } from './providers/chat-model';
export { createChatModel, type ProviderName, type ProviderOptions } from './providers/create-model';
export { LangChainChatModel } from './providers/langchain';
export { TruncatedText, WithFiles, type Tool } from './tools/tool';
export { builtInTools } from './tools/registry';
export { domainEntryProblem } from './tools/http-request/address-policy';
export { HEADER_NAME_PATTERN } from './tools/http-request/settings';
export { validateAgainst, type JsonSchema } from './validation/validate';
export { toJsonSchemaObject } from './validation/json-schema-of';
export { SchemaError } from './validation/schema-error';
export { RedisBudgetLedger } from './budget/redis-ledger';
export type { BudgetLedger } from './budget/ledger';
export { stateSecretProblem } from './run-state/signed-state';
export { RedisUsedStates, type UsedStates } from './run-state/used-states';
export { RedisCheckpoints, type CheckpointStore } from './run-state/checkpoint-store';
export { pingAuditDatabase, type PostgresTarget } from './audit/postgres-sink';
export { ambientTracer, tracingFromEnvironment, type RunTracing } from './telemetry/otlp';
export {
	RedisMcpPins,
	mcpServersProblem,
	renderCallResult,
	type McpPinStore,
	type McpServerConfig,
} from './tools/mcp';
