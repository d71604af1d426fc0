import { GoogleGenAI, type Content } from '@google/genai';
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse } from './chat-model';

/** Connection settings of the Gemini API. */
export interface GeminiModelOptions {
  apiKey: string;
  /** Overrides https://generativelanguage.googleapis.com (e.g. a proxy or a local test server). */
  baseUrl?: string;
  /** Retries of 408/429/5xx done by the SDK (default 2). */
  maxRetries?: number;
}

/** generateContent through the official `@google/genai` SDK. */
export class GeminiChatModel implements ChatModel {
  readonly provider = 'gemini';
  private readonly client: GoogleGenAI;

  constructor(options: GeminiModelOptions) {
    this.client = new GoogleGenAI({
      apiKey: options.apiKey,
      httpOptions: {
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        retryOptions: { attempts: (options.maxRetries ?? 2) + 1, initialDelay: 0.5, maxDelay: 8 },
      },
    });
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const { systemInstruction, contents } = toGeminiContents(request.messages);
    const response = await this.client.models.generateContent({
      model: request.model,
      contents,
      config: {
        abortSignal: request.signal,
        ...(systemInstruction ? { systemInstruction } : {}),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.jsonMode ? { responseMimeType: 'application/json' } : {}),
      },
    });
    const metadata = response.usageMetadata;
    const prompt = metadata?.promptTokenCount ?? 0;
    const completion = (metadata?.candidatesTokenCount ?? 0) + (metadata?.thoughtsTokenCount ?? 0);
    return {
      text: response.text ?? '',
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: metadata?.totalTokenCount ?? prompt + completion },
    };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const ids: string[] = [];
    const pager = await this.client.models.list({ config: { abortSignal: signal } });
    for await (const model of pager) {
      if (model.name) ids.push(model.name.replace(/^models\//, ''));
    }
    return ids.sort();
  }
}

/** Gemini takes one system instruction and alternating user/model contents; consecutive same-role turns are merged. */
export function toGeminiContents(messages: readonly ChatMessage[]): { systemInstruction?: string; contents: Content[] } {
  const system = messages.filter((message) => message.role === 'system').map((message) => message.content);
  const contents: Content[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'model' : 'user';
    const previous = contents[contents.length - 1];
    if (previous && previous.role === role) previous.parts!.push({ text: message.content });
    else contents.push({ role, parts: [{ text: message.content }] });
  }
  return { systemInstruction: system.length ? system.join('\n\n') : undefined, contents };
}
