import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** A Google Gemini API key (Google AI Studio). */
export class AgentCoreGeminiApi implements ICredentialType {
	name = 'agentCoreGeminiApi';

	displayName = 'Agent Core: Gemini API';

	icon = 'file:gemini.svg' as const;

	documentationUrl = 'https://ai.google.dev/gemini-api/docs/api-key';

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
			name: 'host',
			type: 'string',
			default: 'https://generativelanguage.googleapis.com',
			description: 'Change only to go through a proxy or gateway that speaks the Gemini API',
		},
	];

	// No `authenticate` block, for the reason given in AgentCoreOpenAiApi.credentials.ts: the Test button sends
	// the key in its own request.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.host.replace(/\\/+$/, "") }}/v1beta',
			url: '/models',
			headers: { 'x-goog-api-key': '={{$credentials.apiKey}}' },
		},
	};
}
