// Agent Context as n8n loads it: the description; the store, Redis and the run path load on first use (issue #39).
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { contextCredentialMethods } from '../shared/context-storage-credential';
import { AGENT_CONTEXT_TOOL_DESCRIPTION, agentContextProperties } from './description';

/** Agent Context: conversation history for Agent Core (prepare → Agent Core → persist). */
export class AgentContext implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Agent Context',
		name: 'agentContext',
		icon: { light: 'file:agentContext.svg', dark: 'file:agentContext.dark.svg' },
		group: ['transform'],
		version: [1, 2, 3],
		defaultVersion: 3,
		subtitle: '={{ $parameter["operation"] }} · {{ $parameter["storage"] }}',
		description: 'Keeps multi-turn conversation history for Agent Core, in Redis or in memory',
		defaults: { name: 'Agent Context' },
		// n8n offers every usableAsTool node to AI agents as "<name> Tool"; this says, in the nodes panel, what it is for.
		usableAsTool: { replacements: { description: AGENT_CONTEXT_TOOL_DESCRIPTION } },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Written out here: n8n's lint reads each credential entry from the node class itself.
		credentials: [
			{
				name: 'agentCoreRedisApi',
				required: true,
				testedBy: 'agentCoreRedisApiTest',
				displayOptions: { show: { storage: ['redis'] } },
			},
		],
		properties: agentContextProperties,
	};

	methods = contextCredentialMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { agentContextExecute } = await import('./execute');
		return await agentContextExecute.call(this);
	}
}
