import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * A secret header for Agent Core's http_request tool (an API token), bound to the hosts it is for: while
 * the credential is set, the tool calls those hosts only, so the model cannot send the token elsewhere,
 * and only over https to the default port unless Tool Settings allow insecure headers.
 */
export class AgentCoreHttpHeaderApi implements ICredentialType {
	name = 'agentCoreHttpHeaderApi';

	displayName = 'Agent Core: HTTP Request Tool API';

	icon = 'file:http-header.svg' as const;

	documentationUrl =
		'https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Authorization';

	properties: INodeProperties[] = [
		{
			displayName: 'Header Name',
			name: 'headerName',
			type: 'string',
			required: true,
			default: 'Authorization',
			placeholder: 'Authorization',
			description: 'E.g. Authorization or X-API-Key',
		},
		{
			displayName: 'Header Value',
			name: 'headerSecret',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'Bearer sk-…',
			description:
				'Sent with every call of the HTTP Request tool, over https to the default port only (for a plain-http API, add "allow_insecure_headers": true to http_request in Tool Settings); the model never sees it and it never appears in the output',
		},
		{
			displayName: 'Allowed Domains',
			name: 'allowedDomains',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'api.example.com, *.example.org',
			description:
				'The host names this header is for, separated by commas, without https:// or a path; "*.example.org" matches its subdomains. The tool calls no other host while this credential is set.',
		},
	];
}
