import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The PostgreSQL database Agent Core keeps its audit trail in (one row per run, one per step; tables
 * created on first use). Every n8n process that runs the node writes there, workers included.
 */
export class AgentCoreAuditDatabaseApi implements ICredentialType {
	name = 'agentCoreAuditDatabaseApi';

	displayName = 'Agent Core: Audit Database API';

	icon = 'file:audit-database.svg' as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-agent-core';

	properties: INodeProperties[] = [
		{ displayName: 'Host', name: 'host', type: 'string', default: 'localhost', required: true },
		{ displayName: 'Port', name: 'port', type: 'number', default: 5432 },
		{
			displayName: 'Database',
			name: 'database',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'audit',
			description: 'An existing database; Agent Core creates its two tables there on first use',
		},
		{
			displayName: 'User',
			name: 'user',
			type: 'string',
			default: '',
			required: true,
			description: 'Needs CREATE on the database the first time, then INSERT, SELECT and DELETE',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'SSL',
			name: 'ssl',
			type: 'options',
			options: [
				{
					name: 'Disable',
					value: 'disable',
					description: 'Plain connection, e.g. to a database on the same host or private network',
				},
				{
					name: 'Require',
					value: 'require',
					description: 'Encrypted, and the server certificate must be valid',
				},
				{
					name: 'Require (Do Not Verify Certificate)',
					value: 'allow-unverified',
					description: 'Encrypted, any certificate (self-signed)',
				},
			],
			default: 'disable',
		},
	];
}
