import OpenAI from 'openai';
import { ACTION_FINAL_SCHEMA } from './action-final-schema';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model';

/** Connection settings of an OpenAI or OpenAI-compatible endpoint. */
export interface OpenAiModelOptions {
  apiKey: string;
  /** e.g. https://api.openai.com/v1 (default), or any OpenAI-compatible server's /v1 URL. */
  baseUrl?: string;
  /** Retries of 408/409/429/5xx and connection errors done by the SDK, with its backoff (default 2). */
  maxRetries?: number;
}

/** Chat completions through the official `openai` SDK. */
export class OpenAiChatModel implements ChatModel {
  readonly provider = 'openai';
  private readonly client: OpenAI;
  /** Set once an endpoint rejected `response_format`, so later calls of the same model object skip it. */
  private responseFormatRejected = false;

  constructor(options: OpenAiModelOptions) {
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseUrl || undefined,
      maxRetries: options.maxRetries ?? 2,
      // The engine enforces single_call_timeout itself through the abort signal.
      timeout: 24 * 3600 * 1000,
    });
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const notices: string[] = [];
    const wantsFormat = request.jsonMode && !this.responseFormatRejected;
    try {
      return await this.complete(request, wantsFormat, notices);
    } catch (error) {
      if (!wantsFormat || !rejectsResponseFormat(error) || request.signal.aborted) throw error;
      this.responseFormatRejected = true;
      notices.push(`the endpoint rejected response_format (${(error as Error).message.slice(0, 200)}); retried without JSON mode`);
      return this.complete(request, false, notices);
    }
  }

  private async complete(request: ChatRequest, withFormat: boolean, notices: string[]): Promise<ChatResponse> {
    const completion = await this.client.chat.completions.create(
      {
        model: request.model,
        messages: request.messages,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(withFormat ? { response_format: responseFormat(request) } : {}),
      },
      { signal: request.signal },
    );
    const choice = completion.choices?.[0];
    const text = choice?.message?.content ?? '';
    const usage = completion.usage;
    return {
      text,
      usage: {
        prompt_tokens: usage?.prompt_tokens ?? 0,
        completion_tokens: usage?.completion_tokens ?? 0,
        total_tokens: usage?.total_tokens ?? (usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0),
      },
      ...(notices.length ? { notices } : {}),
    };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const ids: string[] = [];
    for await (const model of this.client.models.list({ signal })) ids.push(model.id);
    return ids.sort();
  }
}

function responseFormat(request: ChatRequest): OpenAI.ResponseFormatJSONObject | OpenAI.ResponseFormatJSONSchema {
  if (!request.jsonSchema) return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: 'agent_turn', schema: ACTION_FINAL_SCHEMA as any, strict: false } };
}

/** A 400/422 whose message or `param` points at response_format: the endpoint has no JSON mode. */
function rejectsResponseFormat(error: unknown): boolean {
  if (!(error instanceof OpenAI.APIError)) return false;
  if (error.status !== 400 && error.status !== 422) return false;
  return error.param === 'response_format' || /response_format|json_object|json_schema/i.test(error.message);
}
