import {
  mapGeminiFinishReason,
  mapOpenAiFinishReason,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ModelFinishReason,
  type TokenUsage,
} from '../../src';

/**
 * The part of a LangChain chat model this adapter uses. It is duck-typed on purpose: n8n hands the node an
 * object built by n8n's own copy of @langchain/core, so `instanceof` against ours would always fail.
 */
interface LangChainModelLike {
  invoke(messages: unknown, options?: Record<string, unknown>): Promise<unknown>;
  stream?(messages: unknown, options?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  _llmType?(): string;
  lc_id?: unknown;
  model?: unknown;
  modelName?: unknown;
}

/** The fields of an AIMessage / AIMessageChunk the adapter reads; every one may be missing. */
interface MessageLike {
  content?: unknown;
  additional_kwargs?: Record<string, unknown>;
  response_metadata?: Record<string, unknown>;
  usage_metadata?: Record<string, unknown>;
  tool_calls?: Array<{ name?: unknown }>;
  concat?(other: unknown): MessageLike;
}

type Fields = Record<string, unknown>;

/** How the sub-node's class takes a JSON mode, if it has one. */
type JsonStyle = 'response_format' | 'ollama_format' | 'none';

/**
 * Any n8n chat model sub-node (a LangChain chat model: ChatOpenAI, ChatAnthropic, ChatGoogleGenerativeAI,
 * ChatOllama, …) as the engine's ChatModel. The request's temperature, maxOutputTokens and reasoningEffort
 * are ignored: the sub-node owns those settings, and the user set them there.
 */
export class LangChainChatModel implements ChatModel {
  readonly provider: string;
  readonly modelName?: string;
  readonly secrets: readonly string[];
  private readonly model: LangChainModelLike;
  private readonly jsonStyle: JsonStyle;

  /** `input`: the node input the model came from, for the error when it is not a chat model. */
  constructor(model: unknown, input = 'Chat Model') {
    if (!isChatModelLike(model)) {
      throw new Error(`The ${input} input is not a chat model (it has no invoke method; got ${describeValue(model)})`);
    }
    this.model = model;
    this.provider = normaliseProvider(safeLlmType(model));
    this.jsonStyle = this.provider === 'ollama' ? 'ollama_format' : isOpenAiClass(model) ? 'response_format' : 'none';
    const name = typeof model.model === 'string' && model.model !== '' ? model.model : model.modelName;
    if (typeof name === 'string' && name !== '') this.modelName = name;
    this.secrets = secretsOf(model);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const messages = request.messages.map(({ role, content }) => ({ role, content }));
    const options = { signal: request.signal, ...this.jsonModeOptions(request) };
    if (request.onTextDelta && typeof this.model.stream === 'function') {
      return this.streamReply(messages, options, request.onTextDelta);
    }
    return readReply(asMessage(await this.model.invoke(messages, options)));
  }

  /**
   * Streams the reply, passing each chunk's text on as it arrives. Text and reasoning are the chunks' pieces
   * joined; usage, finish reason and tool calls come from the chunks merged by LangChain's own `concat`
   * (which sums usage and joins tool-call pieces), or from the last chunk when the object has no `concat`.
   */
  private async streamReply(messages: unknown, options: Fields, onTextDelta: (delta: string) => void): Promise<ChatResponse> {
    const texts: string[] = [];
    const reasonings: string[] = [];
    let merged: MessageLike | undefined;
    for await (const raw of await this.model.stream!(messages, options)) {
      const chunk = asMessage(raw);
      const { text, reasoning } = splitContent(chunk);
      if (text !== '') {
        texts.push(text);
        onTextDelta(text);
      }
      if (reasoning !== '') reasonings.push(reasoning);
      merged = merged && typeof merged.concat === 'function' ? merged.concat(chunk) : chunk;
    }
    return { ...readReply(merged ?? {}), text: texts.join(''), ...reasoningField(reasonings.join('')) };
  }

  /**
   * The call options that ask for JSON where the sub-node's class has a JSON mode: OpenAI's `response_format`
   * (chat completions and, through LangChain, the Responses API), Ollama's `format`. Other providers get
   * nothing: the text protocol and its repair turn carry the format there.
   */
  private jsonModeOptions(request: ChatRequest): Fields {
    const format = request.responseFormat;
    if (format.type === 'text' || this.jsonStyle === 'none') return {};
    if (this.jsonStyle === 'ollama_format') return { format: 'json' };
    if (format.type === 'json_object') return { response_format: { type: 'json_object' } };
    const strict = format.strictSchema !== undefined;
    return { response_format: { type: 'json_schema', json_schema: { name: format.name, schema: format.strictSchema ?? format.schema, strict } } };
  }
}

/** An object with `invoke`: the one thing every LangChain chat model (and runnable) has. */
function isChatModelLike(value: unknown): value is LangChainModelLike {
  return typeof value === 'object' && value !== null && typeof (value as { invoke?: unknown }).invoke === 'function';
}

/** A short description of what was connected instead of a chat model, for the error message. */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an object';
}

/** `_llmType()` when the object has it and it answers with a string; a wrapper may lack it or throw. */
function safeLlmType(model: LangChainModelLike): string | undefined {
  try {
    const type = typeof model._llmType === 'function' ? model._llmType() : undefined;
    return typeof type === 'string' && type !== '' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** LangChain's llm type in the names the engine's own adapters use, so traces read the same either way. */
function normaliseProvider(llmType: string | undefined): string {
  if (llmType === undefined) return 'langchain';
  const type = llmType.toLowerCase();
  if (type === 'openai') return 'openai';
  if (type.includes('anthropic')) return 'anthropic';
  if (type.includes('google') || type.includes('gemini') || type.includes('genai')) return 'gemini';
  if (type.includes('ollama')) return 'ollama';
  return llmType;
}

/** ChatOpenAI or a subclass (Azure, and every OpenAI-compatible sub-node built on it): it takes `response_format`. */
function isOpenAiClass(model: LangChainModelLike): boolean {
  if (safeLlmType(model) === 'openai') return true;
  const id = model.lc_id;
  return Array.isArray(id) && id.some((part) => typeof part === 'string' && part.includes('ChatOpenAI'));
}

const SECRET_NAME = /api[_-]?key|token|secret/i;

/**
 * The credentials the object holds, for the engine to redact: its own string properties named like a key,
 * token or secret (apiKey, openAIApiKey, anthropicApiKey, …), and the key of its client configuration.
 */
function secretsOf(model: object): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(model)) {
    if (SECRET_NAME.test(name) && typeof value === 'string' && value !== '') found.add(value);
  }
  for (const holder of ['clientConfig', 'configuration']) {
    const apiKey = ((model as Fields)[holder] as { apiKey?: unknown } | undefined)?.apiKey;
    if (typeof apiKey === 'string' && apiKey !== '') found.add(apiKey);
  }
  return [...found];
}

/** A model's reply as a message; anything that is not an object reads as an empty message. */
function asMessage(value: unknown): MessageLike {
  return typeof value === 'object' && value !== null ? (value as MessageLike) : {};
}

/** A whole reply (from `invoke`, or the merged chunks of a stream) as the engine's ChatResponse. */
function readReply(message: MessageLike): ChatResponse {
  const { text, reasoning } = splitContent(message);
  const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((call) =>
    typeof call?.name === 'string' && call.name !== '' ? call.name : 'unnamed',
  );
  const finishReason = finishReasonOf(message);
  return {
    text,
    usage: usageOf(message),
    ...(finishReason ? { finishReason } : {}),
    ...(toolCalls.length ? { nativeToolCalls: toolCalls } : {}),
    ...reasoningField(reasoning),
  };
}

/** The optional `reasoning` field, present only when there was reasoning text. */
function reasoningField(reasoning: string): { reasoning?: string } {
  return reasoning === '' ? {} : { reasoning };
}

/**
 * The message's reply text and its reasoning, apart. `content` is a string or a list of blocks: text blocks
 * make the text; `thinking` (Anthropic, Gemini) and `reasoning` (OpenAI Responses, LangChain's standard
 * blocks) make the reasoning; `redacted_thinking` carries no readable text; other blocks (tool use, images)
 * are neither. DeepSeek and vLLM reasoning arrives as `additional_kwargs.reasoning_content`.
 */
function splitContent(message: MessageLike): { text: string; reasoning: string } {
  const texts: string[] = [];
  const reasonings: string[] = [];
  const content = message.content;
  if (typeof content === 'string') texts.push(content);
  for (const block of Array.isArray(content) ? content : []) {
    if (typeof block === 'string') texts.push(block);
    else if (typeof block !== 'object' || block === null) continue;
    else if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasonings.push(block.thinking);
    else if (block.type === 'reasoning' && typeof block.reasoning === 'string') reasonings.push(block.reasoning);
  }
  const extra = message.additional_kwargs?.reasoning_content;
  if (typeof extra === 'string') reasonings.push(extra);
  return { text: texts.join(''), reasoning: reasonings.join('') };
}

/** A non-negative count, or 0 for anything else. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** Usage in the engine's form, with the total filled in when the provider left it out. */
function usage(prompt: unknown, completion: unknown, total: unknown, reasoning?: unknown): TokenUsage {
  const prompt_tokens = count(prompt);
  const completion_tokens = count(completion);
  const reasoning_tokens = count(reasoning);
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: count(total) || prompt_tokens + completion_tokens,
    ...(reasoning_tokens ? { reasoning_tokens } : {}),
  };
}

/**
 * Token usage from wherever the class put it: LangChain's standard `usage_metadata` first; else
 * `response_metadata.tokenUsage` (LangChain's older form), the raw `usage` (OpenAI's or Anthropic's names),
 * or Ollama's eval counts. Zeros when none is there.
 */
function usageOf(message: MessageLike): TokenUsage {
  const standard = message.usage_metadata;
  if (standard && typeof standard === 'object') {
    const details = standard.output_token_details as Fields | undefined;
    return usage(standard.input_tokens, standard.output_tokens, standard.total_tokens, details?.reasoning);
  }
  const metadata = message.response_metadata ?? {};
  const legacy = metadata.tokenUsage as Fields | undefined;
  if (legacy && typeof legacy === 'object') return usage(legacy.promptTokens, legacy.completionTokens, legacy.totalTokens);
  const raw = metadata.usage as Fields | undefined;
  if (raw && typeof raw === 'object') {
    const details = raw.completion_tokens_details as Fields | undefined;
    return usage(raw.prompt_tokens ?? raw.input_tokens, raw.completion_tokens ?? raw.output_tokens, raw.total_tokens, details?.reasoning_tokens);
  }
  return usage(metadata.prompt_eval_count, metadata.eval_count, undefined);
}

/**
 * Why the model stopped, from the provider's own field in `response_metadata`: OpenAI `finish_reason` (or a
 * `refusal`, which is a content filter), Gemini `finishReason`, Anthropic `stop_reason`, Ollama `done_reason`,
 * the Responses API `status`. Undefined when none is there.
 */
function finishReasonOf(message: MessageLike): ModelFinishReason | undefined {
  const metadata = message.response_metadata ?? {};
  const refusal = message.additional_kwargs?.refusal;
  if (typeof refusal === 'string' && refusal !== '') return 'content_filter';
  const finish = metadata.finish_reason ?? metadata.finishReason;
  // Gemini's values are upper-case enums (STOP, MAX_TOKENS, SAFETY), under either key depending on the LangChain package.
  if (finish != null) return typeof finish === 'string' && /^[A-Z_]+$/.test(finish) ? mapGeminiFinishReason(finish) : mapOpenAiFinishReason(finish);
  if (metadata.stop_reason != null) return mapAnthropicStopReason(metadata.stop_reason);
  if (metadata.done_reason != null) return mapOllamaDoneReason(metadata.done_reason);
  if (metadata.status != null) return mapResponsesStatus(metadata.status, metadata.incomplete_details);
  return undefined;
}

/** Anthropic's stop_reason values (provider-behaviours.md §3) in the engine's terms. */
function mapAnthropicStopReason(reason: unknown): ModelFinishReason {
  if (reason === 'end_turn' || reason === 'stop_sequence' || reason === 'tool_use') return 'stop';
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (reason === 'refusal') return 'content_filter';
  return 'other';
}

/** Ollama's done_reason (`stop`, `length`; `load`/`unload` are not replies) in the engine's terms. */
function mapOllamaDoneReason(reason: unknown): ModelFinishReason {
  if (reason === 'stop') return 'stop';
  if (reason === 'length') return 'length';
  return 'other';
}

/** The Responses API's `status` and `incomplete_details.reason` in the engine's terms. */
function mapResponsesStatus(status: unknown, incomplete: unknown): ModelFinishReason {
  if (status === 'completed') return 'stop';
  const reason = (incomplete as { reason?: unknown } | null | undefined)?.reason;
  if (status === 'incomplete' && reason === 'max_output_tokens') return 'length';
  if (status === 'incomplete' && reason === 'content_filter') return 'content_filter';
  return 'other';
}
