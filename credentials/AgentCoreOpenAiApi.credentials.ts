import type { IAuthenticateGeneric, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** An OpenAI API key, or the key of any OpenAI-compatible endpoint (set the base URL). */
export class AgentCoreOpenAiApi implements ICredentialType {
  name = 'agentCoreOpenAiApi';

  displayName = 'Agent Core: OpenAI-Compatible API';

  icon = 'file:openai.svg' as const;

  documentationUrl = 'https://platform.openai.com/docs/api-reference/authentication';

  properties: INodeProperties[] = [
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      required: true,
      default: '',
    },
    {
      displayName: 'Base URL',
      name: 'url',
      type: 'string',
      default: 'https://api.openai.com/v1',
      description: 'The /v1 URL of OpenAI or of any OpenAI-compatible server (vLLM, Ollama, LiteLLM, OpenRouter, Azure proxy…)',
    },
  ];

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
  };

  test: ICredentialTestRequest = {
    request: { baseURL: '={{ $credentials.url.replace(/\\/+$/, "") }}', url: '/models' },
  };
}
