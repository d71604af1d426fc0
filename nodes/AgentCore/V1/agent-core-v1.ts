// Agent Core version 1: the node class of the panel published first (description.ts), kept as it was.
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { agentCoreInputs, agentCoreOutputs } from '../panel/connections';
import { whileOn } from '../panel/credential-conditions';
import { agentCoreMethods } from '../methods';
import { agentCoreProperties } from './description';

/** How many tools the panel defines: the allowed built-ins and the workflow tools. */
const TOOL_COUNT =
	'(($parameter["allowedTools"] || []).length + (($parameter["workflowTools"] || {}).tools || []).length)';

/** The inputs expression's call of agentCoreInputs with the panel's parameters. */
const INPUTS_CALL =
	'return agentCoreInputs(provider, needsFallback, fallbackSource); })' +
	'($parameter.provider, $parameter.needsFallback === true, $parameter.fallbackSource)';

/** Version 1: the panel published first, kept as it was for the workflows built on it (test/nodes/AgentCore/panel/agent-core-v1-panel.test.ts). */
export class AgentCoreV1 implements INodeType {
	description: INodeTypeDescription;

	/** The name, icon, group and description are the node type's (AgentCore.node.ts); version 1 never had a default version. */
	constructor(baseDescription: INodeTypeBaseDescription) {
		const shared = { ...baseDescription };
		delete shared.defaultVersion;
		this.description = {
			...shared,
			version: 1,
			// Model and how many tools the panel defines (allowed built-ins + workflow tools), singular when one.
			subtitle:
				'={{ ($parameter["provider"] === "connected" ? "connected model" : ' +
				'($parameter["model"].value || $parameter["model"])) + " · " + ' +
				`(${TOOL_COUNT} === 1 ? "1 tool" : ${TOOL_COUNT} + " tools") }}`,
			defaults: { name: 'Agent Core' },
			// Chat Model appears with Provider → Connected Chat Model, Fallback Model with Enable Fallback Model
			// (unless the fallback is another model of the credential).
			inputs: `={{ ((provider, needsFallback, fallbackSource) => { ${agentCoreInputs.toString()}; ${INPUTS_CALL} }}`,
			// With Require Approval, runs that wait for a person leave by a second output, Needs Approval.
			outputs: `={{ ((needsApproval) => { ${agentCoreOutputs.toString()}; return agentCoreOutputs(needsApproval); })($parameter.needsApproval === true) }}`,
			credentials: [
				{
					name: 'agentCoreOpenAiApi',
					required: true,
					displayOptions: { show: { provider: ['openai'] } },
				},
				{
					name: 'agentCoreGeminiApi',
					required: true,
					displayOptions: { show: { provider: ['gemini'] } },
				},
				// Needed by the redis_context tool and by a shared budget (Limits): n8n cannot show one credential
				// under either of two settings, so it is always offered, and each use says so when it is missing.
				{ name: 'agentCoreRedisApi', required: false, testedBy: 'agentCoreRedisApiTest' },
				// Optional: without them the tools read their settings from Tool Settings (JSON).
				{
					name: 'agentCoreHttpHeaderApi',
					required: false,
					testedBy: 'agentCoreHttpHeaderApiTest',
					displayOptions: { show: { allowedTools: ['http_request'] } },
				},
				{
					name: 'agentCoreRunStateApi',
					required: true,
					testedBy: 'agentCoreRunStateApiTest',
					displayOptions: whileOn('needsApproval'),
				},
				{
					name: 'agentCoreAuditDatabaseApi',
					required: true,
					testedBy: 'agentCoreAuditDatabaseApiTest',
					displayOptions: whileOn('auditTrail'),
				},
				{
					name: 'agentCoreFeishuBotApi',
					required: false,
					testedBy: 'agentCoreFeishuBotApiTest',
					displayOptions: { show: { allowedTools: ['feishu_bot'] } },
				},
			],
			properties: agentCoreProperties,
		};
	}

	methods = agentCoreMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// The run path loads on the first execute, not when n8n lists the node (issue #39).
		const [{ agentCoreExecute }, { VERSION_1_PANEL }] = await Promise.all([
			import('../execute'),
			import('./panel'),
		]);
		return await agentCoreExecute.call(this, VERSION_1_PANEL);
	}
}
