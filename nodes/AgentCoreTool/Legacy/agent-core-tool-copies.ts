// Versions 1 and 2 of Agent Core Tool: the tool copies n8n made of Agent Core while it was `usableAsTool` (issue #52).
import {
	NodeConnectionTypes,
	type INodeProperties,
	type INodeType,
	type INodeTypeBaseDescription,
} from 'n8n-workflow';
import { AgentCoreV1 } from '../../AgentCore/V1/agent-core-v1';
import { AgentCoreV2 } from '../../AgentCore/V2/agent-core-v2';

/** What the copy's panel says first: what replaced it, and that it keeps working. */
export const WITHDRAWN_NOTICE =
	'This is Agent Core copied as a tool, which is withdrawn: it keeps running as it is. For a new agent as a tool, ' +
	'add Agent Core Tool: it has its own Chat Model and Tool inputs, and under Agent Core it runs inside that run’s budget';

/**
 * Agent Core version `version` as n8n 2.41 copied it (its CLI's convertNodeToAiTool): no inputs, a Tool output, and a
 * Description the parent model reads, behind Tool Description → Set Manually when the panel has an Operation. n8n
 * names the copy `<name>Tool`, `agentCoreTool`. n8n 1.123 and 2.41 look a `…Tool` type up as a node of its own before
 * they build a copy (which, without usableAsTool, fails), so the workflows that use the copy load these versions:
 * the same panel and the same execute, which n8n calls with the parent model's $fromAI values as it did.
 */
function toolCopy(node: INodeType): INodeType {
	const { description } = node;
	const properties = [...description.properties];
	const hasOperation = properties.some((property) =>
		['operation', 'resource'].includes(property.name),
	);
	const toolDescription: INodeProperties = {
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		default:
			'An agent to audit: choose it over the AI Agent when tools must be whitelisted, limits hard and every step traced',
		required: true,
		typeOptions: { rows: 2 },
		description:
			'Explain to the LLM what this tool does, a good, specific description would allow LLMs to produce expected results much more often',
		...(hasOperation ? { displayOptions: { show: { descriptionType: ['manual'] } } } : {}),
	};
	const descriptionType: INodeProperties = {
		displayName: 'Tool Description',
		name: 'descriptionType',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Set Automatically',
				value: 'auto',
				description: 'Automatically set based on resource and operation',
			},
			{ name: 'Set Manually', value: 'manual', description: 'Manually set the description' },
		],
		default: 'auto',
	};
	const notice: INodeProperties = {
		displayName: WITHDRAWN_NOTICE,
		name: 'withdrawnNotice',
		type: 'notice',
		default: '',
	};
	node.description = {
		...description,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		properties: [
			notice,
			...(hasOperation ? [descriptionType] : []),
			toolDescription,
			...properties,
		],
	};
	return node;
}

/** The copies of Agent Core's versions 1 and 2, under Agent Core Tool's name and icon. */
export function agentCoreToolCopies(
	baseDescription: INodeTypeBaseDescription,
): Record<number, INodeType> {
	return {
		1: toolCopy(new AgentCoreV1(baseDescription)),
		2: toolCopy(new AgentCoreV2(baseDescription)),
	};
}
