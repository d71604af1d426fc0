import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/** Where Agent Context keeps conversation history. Tested by the Agent Context node (connect, PING, close). */
export class AgentCoreRedisApi implements ICredentialType {
	name = 'agentCoreRedisApi';

	displayName = 'Agent Core: Redis API';

	icon = 'file:redis.svg' as const;

	documentationUrl = 'https://redis.io/docs/latest/operate/oss_and_stack/management/security/acl/';

	properties: INodeProperties[] = [
		{ displayName: 'Host', name: 'host', type: 'string', default: '127.0.0.1' },
		{ displayName: 'Port', name: 'port', type: 'number', default: 6379 },
		{
			displayName: 'User',
			name: 'username',
			type: 'string',
			default: '',
			description: 'Leave empty unless Redis uses ACL users',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Database Number', name: 'database', type: 'number', default: 0 },
		{ displayName: 'SSL/TLS', name: 'tls', type: 'boolean', default: false },
	];
}
