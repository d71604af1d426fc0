/** A JSON Schema object as ajv understands it (draft-07 / 2019-09 keywords). */
export type JsonSchema = Record<string, unknown>;

/** What the engine hands a tool for one call. */
export interface ToolContext {
  /** Aborted when the per-call timeout (`single_call_timeout`) or the whole-run timeout fires. */
  signal: AbortSignal;
  /** This tool's entry of `tool_settings`, already validated against `settingsSchema`. */
  settings: Record<string, unknown>;
  /** The run's `observation_max_len`, for tools that summarise their own output. */
  observationMaxLength: number;
  /** The conversation's session id when the run has one (used to scope per-session tools). */
  sessionId?: string;
}

/**
 * A whitelisted tool ("utool"). `parameters` is the JSON Schema of `args`; the engine validates args
 * against it before `execute` runs, so `execute` receives args of that shape.
 */
export interface Tool<Args = any> {
  name: string;
  /** One or two sentences for the model: what it does and when to use it. */
  description: string;
  parameters: JsonSchema;
  /** JSON Schema of this tool's `tool_settings` entry; checked when the run is configured. */
  settingsSchema?: JsonSchema;
  /**
   * Rules across settings fields that a schema would state only cryptically; called after the schema
   * check, returns `field: problem` lines (empty when the settings are fine).
   */
  checkSettings?(settings: Record<string, unknown>): string[];
  /**
   * Runs the tool. A returned string is the observation as is; anything else is rendered as compact JSON.
   * Throwing (or rejecting) is a tool failure: the model sees the message and gets one repair turn.
   */
  execute(args: Args, context: ToolContext): Promise<unknown>;
}
