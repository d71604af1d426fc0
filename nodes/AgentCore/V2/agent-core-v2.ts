// Agent Core version 2: the same node and run, with a short first view and n8n's names (V2/description.ts).
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { agentCoreInputs, agentCoreOutputs } from '../panel/connections';
import { whileOn } from '../panel/credential-conditions';
import { CREDENTIAL_LABELS } from './credential-labels';
import { agentCorePropertiesV2 } from './description';
import { agentCoreMethods } from '../methods';

export { CREDENTIAL_LABELS };

/** How many tools the panel defines: the allowed built-ins and the workflow tools (under Options in version 2). */
const TOOL_COUNT =
	'(($parameter["allowedTools"] || []).length + ((($parameter["options"] || {}).workflowTools || {}).tools || []).length)';

/** The inputs expression's call of agentCoreInputs with the panel's parameters; version 2 has the Memory input. */
const INPUTS_CALL =
	'return agentCoreInputs(provider, needsFallback, fallbackSource, true); })' +
	'($parameter.provider, $parameter.needsFallback === true, $parameter.fallbackSource)';

/** The outputs expression's call of agentCoreOutputs: Require Approval counts only while Governance is on. */
const OUTPUTS_CALL =
	'return agentCoreOutputs(needsApproval); })' +
	'($parameter.governance === true && $parameter.needsApproval === true)';

/** Agent Core version 2: what a new node gets. */
export class AgentCoreV2 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 2,
			subtitle:
				'={{ ($parameter["provider"] === "connected" ? "connected model" : ' +
				'($parameter["model"].value || $parameter["model"])) + " · " + ' +
				`(${TOOL_COUNT} === 1 ? "1 tool" : ${TOOL_COUNT} + " tools") }}`,
			defaults: { name: 'Agent Core' },
			inputs: `={{ ((provider, needsFallback, fallbackSource) => { ${agentCoreInputs.toString()}; ${INPUTS_CALL} }}`,
			// Require Approval counts only while Governance, which shows it, is on.
			outputs: `={{ ((needsApproval) => { ${agentCoreOutputs.toString()}; ${OUTPUTS_CALL} }}`,
			// Each picker shows only with the setting that uses it, labelled by what it is for (CREDENTIAL_LABELS).
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
				// Redis serves a shared budget, durable runs, resuming a state only once, and the Redis Context tool. n8n
				// shows a credential under one condition (every key must match; a run reads the first entry of a type),
				// so it shows with Governance, where three of its four uses are; the tool's error says where to find it.
				// Switches are written with whileOn (see there): n8n 1.x's editor would hide them otherwise.
				{
					name: 'agentCoreRedisApi',
					displayName: CREDENTIAL_LABELS.agentCoreRedisApi,
					required: false,
					testedBy: 'agentCoreRedisApiTest',
					displayOptions: whileOn('governance'),
				},
				{
					name: 'agentCoreHttpHeaderApi',
					displayName: CREDENTIAL_LABELS.agentCoreHttpHeaderApi,
					required: false,
					testedBy: 'agentCoreHttpHeaderApiTest',
					displayOptions: { show: { allowedTools: ['http_request'] } },
				},
				// Run State signs Require Approval's paused runs and Durable Runs' checkpoints: shown with Governance,
				// for the same reason, and each use says when it is missing (execute/governance/approval.ts readStateSecret).
				{
					name: 'agentCoreRunStateApi',
					displayName: CREDENTIAL_LABELS.agentCoreRunStateApi,
					required: false,
					testedBy: 'agentCoreRunStateApiTest',
					displayOptions: whileOn('governance'),
				},
				{
					name: 'agentCoreAuditDatabaseApi',
					displayName: CREDENTIAL_LABELS.agentCoreAuditDatabaseApi,
					required: true,
					testedBy: 'agentCoreAuditDatabaseApiTest',
					displayOptions: whileOn('governance', 'auditTrail'),
				},
				{
					name: 'agentCoreFeishuBotApi',
					displayName: CREDENTIAL_LABELS.agentCoreFeishuBotApi,
					required: false,
					testedBy: 'agentCoreFeishuBotApiTest',
					displayOptions: { show: { allowedTools: ['feishu_bot'] } },
				},
			],
			properties: agentCorePropertiesV2,
		};
	}

	methods = agentCoreMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// The run path loads on the first execute, not when n8n lists the node (issue #39).
		const [{ agentCoreExecute }, { VERSION_2_PANEL }] = await Promise.all([
			import('../execute'),
			import('./panel'),
		]);
		return await agentCoreExecute.call(this, VERSION_2_PANEL);
	}
}
