import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

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
			description:
				'The /v1 URL of OpenAI or of any OpenAI-compatible server (vLLM, Ollama, LiteLLM, OpenRouter, Azure proxy…)',
		},
	];

	// No `authenticate` block: the node calls the model through its own client, never through n8n's request
	// helpers, and n8n gives every credential with one an "Allowed HTTP Request Domains" field and every node
	// using it a "Custom API Call" operation (shouldAddDomainRestrictions / supportsProxyAuth in n8n's
	// packages/cli/src/load-nodes-and-credentials.ts), neither of which means anything here. The Test button
	// sends the key in its own request instead.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.url.replace(/\\/+$/, "") }}',
			url: '/models',
			headers: { Authorization: '=Bearer {{$credentials.apiKey}}' },
		},
	};
}
