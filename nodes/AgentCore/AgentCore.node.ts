// Agent Core as n8n loads it: one node type with its versions; new nodes get version 2, saved workflows keep theirs.
import { type INodeTypeBaseDescription, VersionedNodeType } from 'n8n-workflow';
import { AgentCoreV1 } from './V1/agent-core-v1';
import { AgentCoreV2 } from './V2/agent-core-v2';

/** Agent Core: a controlled, auditable agent speaking the Action/Final JSON protocol. */
export class AgentCore extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Agent Core',
			name: 'agentCore',
			icon: { light: 'file:agentCore.svg', dark: 'file:agentCore.dark.svg' },
			group: ['transform'],
			description:
				'An agent to audit: choose it over the AI Agent when tools must be whitelisted, limits hard and every step traced',
			defaultVersion: 2,
		};
		super(
			{ 1: new AgentCoreV1(baseDescription), 2: new AgentCoreV2(baseDescription) },
			baseDescription,
		);
	}
}
