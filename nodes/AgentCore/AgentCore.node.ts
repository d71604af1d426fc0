import {
  type IExecuteFunctions,
  type ILoadOptionsFunctions,
  type INodeExecutionData,
  type INodeListSearchResult,
  type INodePropertyOptions,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { testRedisCredential } from '../shared/redis-credential';
import { agentCoreOutputs, testRunStateCredential } from './approval';
import { testAuditDatabaseCredential } from './audit';
import { agentCoreInputs } from './connected-model';
import { agentCoreProperties } from './description';
import { agentCoreExecute } from './execute';
import { searchModels } from './search-models';
import { testFeishuCredential, testHttpHeaderCredential } from './tool-credentials';

/** Agent Core: a controlled, auditable agent speaking the Action/Final JSON protocol. */
export class AgentCore implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Agent Core',
    name: 'agentCore',
    icon: { light: 'file:agentCore.svg', dark: 'file:agentCore.dark.svg' },
    group: ['transform'],
    version: 1,
    // Model and how many tools the panel defines (allowed built-ins + workflow tools), singular when one.
    subtitle:
      '={{ ($parameter["provider"] === "connected" ? "connected model" : ($parameter["model"].value || $parameter["model"])) + " · " + ((($parameter["allowedTools"] || []).length + (($parameter["workflowTools"] || {}).tools || []).length) === 1 ? "1 tool" : (($parameter["allowedTools"] || []).length + (($parameter["workflowTools"] || {}).tools || []).length) + " tools") }}',
    description: 'Runs an agent with whitelisted tools, hard limits and a step-by-step trace',
    defaults: { name: 'Agent Core' },
    usableAsTool: true,
    // Chat Model appears with Provider → Connected Chat Model, Fallback Model with Enable Fallback Model
    // (unless the fallback is another model of the credential).
    inputs: `={{ ((provider, needsFallback, fallbackSource) => { ${agentCoreInputs.toString()}; return agentCoreInputs(provider, needsFallback, fallbackSource); })($parameter.provider, $parameter.needsFallback === true, $parameter.fallbackSource) }}`,
    // With Require Approval, runs that wait for a person leave by a second output, Needs Approval.
    outputs: `={{ ((needsApproval) => { ${agentCoreOutputs.toString()}; return agentCoreOutputs(needsApproval); })($parameter.needsApproval === true) }}`,
    credentials: [
      { name: 'agentCoreOpenAiApi', required: true, displayOptions: { show: { provider: ['openai'] } } },
      { name: 'agentCoreGeminiApi', required: true, displayOptions: { show: { provider: ['gemini'] } } },
      // Needed by the redis_context tool and by a shared budget (Limits): n8n cannot show one credential
      // under either of two settings, so it is always offered, and each use says so when it is missing.
      { name: 'agentCoreRedisApi', required: false, testedBy: 'agentCoreRedisApiTest' },
      // Optional: without them the tools read their settings from Tool Settings (JSON).
      { name: 'agentCoreHttpHeaderApi', required: false, testedBy: 'agentCoreHttpHeaderApiTest', displayOptions: { show: { allowedTools: ['http_request'] } } },
      { name: 'agentCoreRunStateApi', required: true, testedBy: 'agentCoreRunStateApiTest', displayOptions: { show: { needsApproval: [true] } } },
      { name: 'agentCoreAuditDatabaseApi', required: true, testedBy: 'agentCoreAuditDatabaseApiTest', displayOptions: { show: { auditTrail: [true] } } },
      { name: 'agentCoreFeishuBotApi', required: false, testedBy: 'agentCoreFeishuBotApiTest', displayOptions: { show: { allowedTools: ['feishu_bot'] } } },
    ],
    properties: agentCoreProperties,
  };

  methods = {
    credentialTest: {
      agentCoreRedisApiTest: testRedisCredential,
      agentCoreHttpHeaderApiTest: testHttpHeaderCredential,
      agentCoreFeishuBotApiTest: testFeishuCredential,
      agentCoreRunStateApiTest: testRunStateCredential,
      agentCoreAuditDatabaseApiTest: testAuditDatabaseCredential,
    },
    loadOptions: {
      /** The tools Require Approval can name: the allowed built-ins and the workflow tools defined above. */
      async getApprovalTools(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
        const builtIns = (this.getCurrentNodeParameter('allowedTools') as string[] | undefined) ?? [];
        const workflowTools = ((this.getCurrentNodeParameter('workflowTools') as { tools?: Array<{ name?: string }> } | undefined)?.tools ?? []).map((tool) => tool.name ?? '');
        return [...builtIns, ...workflowTools].filter(Boolean).map((name) => ({ name, value: name }));
      },
    },
    listSearch: {
      async searchModels(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
        return searchModels.call(this, filter);
      },
    },
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await agentCoreExecute.call(this);
  }
}
