import type { ToolRegistry } from '../tools/registry';
import { USED_STATE_MEMORY_DAYS } from '../run-state/signed-state';
import { assertValidSchema, validateAgainst, type JsonSchema } from '../validation/validate';
import type { ReasoningEffort } from '../providers/chat-model';
import type { PromptExamples } from './prompt';
import type { PriceTable, SharedBudgetConfig } from './shared-budget';

/** The values `reasoning_effort` takes. */
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

/** How the provider's JSON output mode is used; the text protocol stays the contract either way. */
export type JsonMode = 'json_object' | 'json_schema' | 'off';

/** The run configuration: model, tools, limits and prompt settings, plus `tool_settings`, `json_mode` and `prompt_examples`. */
export interface AgentConfig {
  /** Model id as the provider names it. */
  model: string;
  /** Sent only when set; absent = the model's own default (GPT-5 and o-series models refuse any other). */
  temperature?: number;
  /** Cap on each reply's tokens (OpenAI `max_completion_tokens`, Gemini `maxOutputTokens`); absent = the provider's default. */
  max_output_tokens?: number;
  /** How hard a reasoning model thinks (OpenAI `reasoning_effort`, Gemini thinking budget); absent = the model's default. */
  reasoning_effort?: ReasoningEffort;
  /** Whole-run timeout, seconds. */
  timeout: number;
  /** Maximum model turns (each reply, repair turns included, is a step). */
  max_steps: number;
  /** Maximum tool executions. */
  max_tool_calls: number;
  /** The identical call (same tool, same args) this many times ends the run (`loop`); 0 = never ends it. */
  loop_limit: number;
  /** Tools the model may see and call. */
  allowed_tools: string[];
  /** Allowed tools whose calls wait for a person: the run pauses (`awaiting_approval`) with a signed run state. */
  approval_required: string[];
  /** A paused run's state older than this many days is refused on resume (at most 30: used states are remembered 30 days). */
  run_state_max_age_days: number;
  /** Timeout of each model call and each tool call, seconds. */
  single_call_timeout: number;
  /** Stop before the next model call once reported usage reaches this many tokens; 0 = no budget. */
  total_token_budget: number;
  /** Observations fed back to the model are cut to this many characters; 0 = no cut. */
  observation_max_len: number;
  /**
   * Kept only so that existing configs stay valid: its one value, `final_answer`, is the field a
   * synchronous caller reads, and nothing else reads this key.
   */
  primary_output: 'final_answer';
  /** Per-tool settings, e.g. `{ "http_request": { "allowed_domains": ["api.example.com"] } }`. */
  tool_settings: Record<string, Record<string, unknown>>;
  json_mode: JsonMode;
  /** Few-shot examples in every call's system message (`always`) or only with a protocol repair turn (`on_error`). */
  prompt_examples: PromptExamples;
  /**
   * The final answer is a JSON value checked against this JSON Schema (a mismatch gets the repair turn, a
   * second one ends the run `output_invalid`); the result then carries it as `final_output`. Absent = text.
   */
  output_schema?: JsonSchema;
  /** A budget shared by every run that names the same scope, per period, counted in a ledger (Redis for many processes). */
  shared_budget?: SharedBudgetConfig;
  /** Per model: the price of a million prompt and completion tokens; gives the result a `cost` and allows a cost budget. */
  prices?: PriceTable;
}

export const DEFAULT_CONFIG: Omit<AgentConfig, 'model' | 'temperature' | 'max_output_tokens' | 'reasoning_effort' | 'output_schema' | 'shared_budget' | 'prices'> = {
  timeout: 120,
  max_steps: 5,
  max_tool_calls: 10,
  loop_limit: 3,
  allowed_tools: [],
  approval_required: [],
  run_state_max_age_days: 7,
  single_call_timeout: 30,
  total_token_budget: 0,
  observation_max_len: 2000,
  primary_output: 'final_answer',
  tool_settings: {},
  json_mode: 'json_object',
  prompt_examples: 'on_error',
};

/** A configuration problem; `key` names the offending key and the message says what is expected. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

type Check = (value: unknown, key: string) => string | undefined;

/** Keys that may be absent (the provider's own default then applies). */
const OPTIONAL_KEYS = new Set<string>(['temperature', 'max_output_tokens', 'reasoning_effort', 'output_schema', 'shared_budget', 'prices']);

const SHARED_BUDGET_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    scope: { type: 'string', minLength: 1, maxLength: 200 },
    tokens: { type: 'integer', minimum: 1 },
    cost: { type: 'number', exclusiveMinimum: 0 },
    period_seconds: { type: 'integer', minimum: 1, maximum: 31_536_000 },
  },
  required: ['scope', 'period_seconds'],
  anyOf: [{ required: ['tokens'] }, { required: ['cost'] }],
  additionalProperties: false,
};

const PRICES_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: { input_per_million: { type: 'number', minimum: 0 }, output_per_million: { type: 'number', minimum: 0 } },
    required: ['input_per_million', 'output_per_million'],
    additionalProperties: false,
  },
};

/** A check by JSON Schema, its problems as `key.path: problem` lines. */
const bySchema =
  (schema: JsonSchema, example: string): Check =>
  (value, key) => {
    const result = validateAgainst(schema, value, key);
    return result.ok ? undefined : `${result.issues.join('; ')} (e.g. ${example})`;
  };

const number =
  (minimum: number, maximum: number, integer: boolean): Check =>
  (value, key) => {
    const ok =
      typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isInteger(value)) && value >= minimum && value <= maximum;
    if (ok) return undefined;
    const kind = integer ? 'an integer' : 'a number';
    return maximum === Number.MAX_SAFE_INTEGER ? `${key} must be ${kind} ≥ ${minimum}` : `${key} must be ${kind} from ${minimum} to ${maximum}`;
  };

const CHECKS: Record<keyof AgentConfig, Check> = {
  model: (value, key) => (typeof value === 'string' && value.trim() !== '' ? undefined : `${key} must be a non-empty string (the model id)`),
  temperature: number(0, 2, false),
  max_output_tokens: number(1, 10_000_000, true),
  reasoning_effort: (value, key) =>
    typeof value === 'string' && (REASONING_EFFORTS as readonly string[]).includes(value)
      ? undefined
      : `${key} must be one of ${REASONING_EFFORTS.map((effort) => `"${effort}"`).join(', ')}`,
  timeout: number(0.001, 86_400, false),
  max_steps: number(1, 1000, true),
  max_tool_calls: number(0, 10_000, true),
  loop_limit: number(0, 1000, true),
  allowed_tools: (value, key) =>
    Array.isArray(value) && value.every((name) => typeof name === 'string') ? undefined : `${key} must be an array of tool names`,
  approval_required: (value, key) =>
    Array.isArray(value) && value.every((name) => typeof name === 'string') ? undefined : `${key} must be an array of tool names`,
  run_state_max_age_days: (value, key) =>
    number(0.001, USED_STATE_MEMORY_DAYS, false)(value, key) &&
    `${key} must be a number of days from 0.001 to ${USED_STATE_MEMORY_DAYS}: a used state is remembered ${USED_STATE_MEMORY_DAYS} days, so an older one could be resumed again`,
  single_call_timeout: number(0.001, 3600, false),
  total_token_budget: number(0, Number.MAX_SAFE_INTEGER, true),
  observation_max_len: number(0, 1_000_000, true),
  primary_output: (value, key) => (value === 'final_answer' ? undefined : `${key} must be "final_answer"`),
  tool_settings: (value, key) =>
    isPlainObject(value) && Object.values(value).every(isPlainObject)
      ? undefined
      : `${key} must be an object mapping tool names to settings objects`,
  json_mode: (value, key) =>
    value === 'json_object' || value === 'json_schema' || value === 'off'
      ? undefined
      : `${key} must be "json_object", "json_schema" or "off"`,
  prompt_examples: (value, key) => (value === 'on_error' || value === 'always' ? undefined : `${key} must be "on_error" or "always"`),
  shared_budget: bySchema(SHARED_BUDGET_SCHEMA, '{"scope":"workflow-7","tokens":200000,"period_seconds":86400}'),
  prices: bySchema(PRICES_SCHEMA, '{"gpt-4o-mini":{"input_per_million":0.15,"output_per_million":0.6}}'),
  output_schema: (value, key) => {
    if (!isPlainObject(value)) return `${key} must be a JSON Schema object, e.g. {"type":"object","properties":{"total":{"type":"number"}},"required":["total"]}`;
    try {
      assertValidSchema(value, key);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  },
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a raw configuration (from a JSON file, the node panel or code), fills defaults and returns it.
 * Throws `ConfigError` naming the first offending key. Tools named in `allowed_tools` and `tool_settings`
 * must exist in the registry, and each tool's settings must match its settings schema.
 */
export function resolveConfig(raw: unknown, registry: ToolRegistry): AgentConfig {
  if (!isPlainObject(raw)) throw new ConfigError('config', 'config must be a JSON object');
  const input = { ...raw };
  if (input.json_mode === true) input.json_mode = 'json_object';
  if (input.json_mode === false) input.json_mode = 'off';

  for (const key of Object.keys(input)) {
    // Own properties only: "constructor", "toString" or "__proto__" are unknown keys like any other.
    if (!Object.prototype.hasOwnProperty.call(CHECKS, key)) {
      throw new ConfigError(key, `unknown config key "${key}" (known keys: ${Object.keys(CHECKS).join(', ')})`);
    }
  }
  if (input.model === undefined) throw new ConfigError('model', 'model is required (the model id, e.g. "gpt-4o-mini")');

  const config = { ...DEFAULT_CONFIG, ...input } as AgentConfig;
  for (const [key, check] of Object.entries(CHECKS)) {
    const value = config[key as keyof AgentConfig];
    // An absent optional key, or null / "" from an empty panel field, means the provider's default.
    if (OPTIONAL_KEYS.has(key) && (value === undefined || value === null || value === '')) {
      delete config[key as keyof AgentConfig];
      continue;
    }
    const problem = check(value, key);
    if (problem) throw new ConfigError(key, problem);
  }

  if (config.shared_budget?.cost !== undefined && !config.prices?.[config.model]) {
    throw new ConfigError('prices', `shared_budget.cost needs the price of ${config.model} in prices, e.g. {"${config.model}":{"input_per_million":0.15,"output_per_million":0.6}}`);
  }
  const unallowed = config.approval_required.find((name) => !config.allowed_tools.includes(name));
  if (unallowed !== undefined) {
    throw new ConfigError('approval_required', `approval_required names "${unallowed}", which is not in allowed_tools; list only tools the agent may call`);
  }
  const available = registry.names();
  for (const name of config.allowed_tools) {
    if (!registry.get(name)) {
      throw new ConfigError('allowed_tools', `allowed_tools names unknown tool "${name}" (available: ${available.join(', ') || 'none'})`);
    }
  }
  for (const [name, settings] of Object.entries(config.tool_settings)) {
    const tool = registry.get(name);
    if (!tool) {
      throw new ConfigError('tool_settings', `tool_settings names unknown tool "${name}" (available: ${available.join(', ') || 'none'})`);
    }
    if (tool.settingsSchema) {
      const result = validateAgainst(tool.settingsSchema, settings, `tool_settings.${name}`);
      if (!result.ok) throw new ConfigError(`tool_settings.${name}`, result.issues.join('; '));
    }
    const problems = tool.checkSettings?.(settings) ?? [];
    if (problems.length > 0) throw new ConfigError(`tool_settings.${name}`, problems.map((problem) => `tool_settings.${name}.${problem}`).join('; '));
  }
  return config;
}
