/** One message of the neutral conversation form shared by the engine, the context store and the providers. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  /** Ask the provider for its JSON output mode (the Action/Final text protocol stays the contract). */
  jsonMode: boolean;
  /** With jsonMode: constrain replies to the Action/Final union schema where the provider supports it. */
  jsonSchema?: boolean;
  /** Aborted by the per-call or whole-run timeout. */
  signal: AbortSignal;
}

export interface ChatResponse {
  text: string;
  /** Usage as the provider reported it; zeros when it reported none. */
  usage: TokenUsage;
  /** Things the adapter did that the trace should show (e.g. "retried without response_format"). */
  notices?: string[];
}

/** The provider contract: the engine never imports a vendor SDK, only this. */
export interface ChatModel {
  readonly provider: string;
  generate(request: ChatRequest): Promise<ChatResponse>;
  /** Model ids the endpoint offers, when it can list them. */
  listModels?(signal?: AbortSignal): Promise<string[]>;
}
