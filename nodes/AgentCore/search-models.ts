import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { createChatModel, type ProviderName } from '../../src';

/** Lists the endpoint's models for the Model field; typing an ID stays possible when listing fails. */
export async function searchModels(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
  const provider = this.getNodeParameter('provider', 'openai') as ProviderName;
  const credentials =
    provider === 'gemini' ? await this.getCredentials('agentCoreGeminiApi') : await this.getCredentials('agentCoreOpenAiApi');
  const model = createChatModel({
    provider,
    apiKey: String(credentials.apiKey),
    baseUrl: ((provider === 'gemini' ? credentials.host : credentials.url) as string) || undefined,
    maxRetries: 0,
  });
  const ids = (await model.listModels?.(AbortSignal.timeout(10_000))) ?? [];
  const needle = filter?.toLowerCase() ?? '';
  return { results: ids.filter((id) => id.toLowerCase().includes(needle)).map((id) => ({ name: id, value: id })) };
}
