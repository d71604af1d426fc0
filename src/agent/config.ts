import type { ToolRegistry } from '../tools/registry';
import { validateAgainst, type JsonSchema } from '../validation/validate';
import type { ReasoningEffort } from '../providers/chat-model';
import type { PromptExamples } from './prompt';
import type { PriceTable, SharedBudgetConfig } from './shared-budget';
import { type Check, isPlainObject } from './setting-checks';
import { settingEntries } from './settings';

export { REASONING_EFFORTS } from './settings';

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

/** The defaults of every key that has one, from the settings table. */
export const DEFAULT_CONFIG = Object.fromEntries(
  settingEntries().flatMap(([key, setting]) => ('default' in setting ? [[key, setting.default]] : [])),
) as Omit<AgentConfig, 'model' | 'temperature' | 'max_output_tokens' | 'reasoning_effort' | 'output_schema' | 'shared_budget' | 'prices'>;

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

/** Keys that may be absent (the provider's own default then applies): neither a default nor required. */
const OPTIONAL_KEYS = new Set<string>(settingEntries().flatMap(([key, setting]) => ('default' in setting || setting.required ? [] : [key])));

const CHECKS = Object.fromEntries(settingEntries().map(([key, setting]) => [key, setting.check])) as Record<keyof AgentConfig, Check>;

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
