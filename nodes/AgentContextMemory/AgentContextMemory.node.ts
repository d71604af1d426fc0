// Agent Context Memory as n8n loads it: the description; the store and the memory itself load on first use (issue #39).
import {
	NodeConnectionTypes,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
import { contextCredentialMethods } from '../shared/context-storage-credential';
import { agentContextMemoryProperties } from './description';

/** Agent Context's prepare and persist as one memory sub-node on Agent Core's Memory input (issue #41). */
export class AgentContextMemory implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Agent Context Memory',
		name: 'agentContextMemory',
		icon: {
			light: 'file:../AgentContext/agentContext.svg',
			dark: 'file:../AgentContext/agentContext.dark.svg',
		},
		group: ['transform'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{ $parameter["storage"] }}',
		description:
			"Agent Context's history (Redis, long memory, busy sessions) as the memory on Agent Core's Memory input (not n8n's AI Agent)",
		defaults: { name: 'Agent Context Memory' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiMemory],
		outputNames: ['Memory'],
		// Written out here: n8n's lint reads each credential entry from the node class itself.
		credentials: [
			{
				name: 'agentCoreRedisApi',
				required: true,
				testedBy: 'agentCoreRedisApiTest',
				displayOptions: { show: { storage: ['redis'] } },
			},
		],
		properties: agentContextMemoryProperties,
	};

	methods = contextCredentialMethods;

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const { supplyAgentContextMemory } = await import('./supply');
		return await supplyAgentContextMemory(this, itemIndex);
	}
}
