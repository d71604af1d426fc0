// Agent Core Tool version 3, what a new node gets (issue #52): another Agent Core run as a tool of a parent agent.
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeBaseDescription,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
import { agentCoreMethods } from '../../AgentCore/methods';
import { agentCoreInputs } from '../../AgentCore/panel/connections';
import { CREDENTIAL_LABELS } from '../../AgentCore/V2/credential-labels';
import { agentCoreToolProperties } from './description';

/** Agent Core version 2's inputs for the panel's Provider and fallback (its Memory input too), without Main (a tool has none). */
const INPUTS_CALL =
	"return agentCoreInputs(provider, needsFallback, fallbackSource, true).filter((input) => input !== 'main'); })" +
	'($parameter.provider, $parameter.needsFallback === true, $parameter.fallbackSource)';

/**
 * Built as n8n's AI Agent Tool is: a node with its own Chat Model, Fallback Model, Memory and Tool inputs whose output is a
 * tool. Version 3 because versions 1 and 2 are the tool copies n8n made of Agent Core (../Legacy/agent-core-tool-copies.ts).
 */
export class AgentCoreToolV3 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 3,
			defaults: { name: 'Agent Core Tool' },
			inputs: `={{ ((provider, needsFallback, fallbackSource) => { ${agentCoreInputs.toString()}; ${INPUTS_CALL} }}`,
			outputs: [NodeConnectionTypes.AiTool],
			outputNames: ['Tool'],
			credentials: [
				{
					name: 'agentCoreOpenAiApi',
					displayName: CREDENTIAL_LABELS.agentCoreOpenAiApi,
					required: true,
					displayOptions: { show: { provider: ['openai'] } },
				},
				{
					name: 'agentCoreGeminiApi',
					displayName: CREDENTIAL_LABELS.agentCoreGeminiApi,
					required: true,
					displayOptions: { show: { provider: ['gemini'] } },
				},
			],
			properties: agentCoreToolProperties,
		};
	}

	methods = agentCoreMethods;

	// The run path loads on the first call, not when n8n lists the node (issue #39).
	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const { supplySubAgentTool } = await import('./supply');
		return await supplySubAgentTool(this, itemIndex);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { executeSubAgentCalls } = await import('./supply');
		return await executeSubAgentCalls(this);
	}
}
