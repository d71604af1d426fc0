import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The secret Agent Core signs (HMAC-SHA256) and seals (AES-256-GCM) a paused run's state with, each under
 * its own derived key, so that nobody can alter or read its secrets while it waits for approval, and any
 * worker can check and open it when the run resumes: every n8n process reads the same one.
 */
export class AgentCoreRunStateApi implements ICredentialType {
	name = 'agentCoreRunStateApi';

	displayName = 'Agent Core: Run State API';

	icon = 'file:run-state.svg' as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-agent-core';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'signingSecret',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'A long random secret (at least 16 characters, 8 of them different), e.g. from `openssl rand -hex 32`. Changing it invalidates every paused run.',
		},
	];
}
