// Agent Core Tool as n8n loads it (issue #52): version 3, an Agent Core run as a tool of a parent agent; 1 and 2, the old copies.
import { type INodeTypeBaseDescription, VersionedNodeType } from 'n8n-workflow';
import { agentCoreToolCopies } from './Legacy/agent-core-tool-copies';
import { AgentCoreToolV3 } from './V3/agent-core-tool-v3';

/**
 * Agent Core Tool: an agent with its own model and tools that a parent agent (Agent Core, or n8n's AI Agent) calls
 * as a tool. Its type name is the one n8n gave Agent Core's tool copy, deliberately: the workflows that use the copy
 * load versions 1 and 2, which are that copy, and new nodes get version 3.
 */
export class AgentCoreTool extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Agent Core Tool',
			name: 'agentCoreTool',
			icon: {
				light: 'file:../AgentCore/agentCore.svg',
				dark: 'file:../AgentCore/agentCore.dark.svg',
			},
			group: ['transform'],
			description:
				'An Agent Core agent with its own model and tools, as a tool of a parent agent: under Agent Core it runs inside that run’s budget',
			defaultVersion: 3,
		};
		super(
			{ ...agentCoreToolCopies(baseDescription), 3: new AgentCoreToolV3(baseDescription) },
			baseDescription,
		);
	}
}
