// The bodies of Agent Core's node methods (methods/index.ts loads this file on the first call): credential tests, the approval tool list, the model search.
import type {
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';
import { testRedisCredential } from '../../shared/redis-credential';
import { testRunStateCredential } from '../execute/governance/approval';
import { testAuditDatabaseCredential } from '../execute/governance/audit';
import { VERSION_1_PANEL } from '../V1/panel';
import { VERSION_2_PANEL } from '../V2/panel';
import { searchModels } from './search-models';
import { testFeishuCredential, testHttpHeaderCredential } from '../execute/inputs/tool-credentials';

/** The node's methods as they run; index.ts gives n8n light stand-ins that load them. */
export const agentCoreMethodBodies = {
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
			// The methods serve both versions' editors, so the node being edited names its version.
			const { workflowToolsPath } =
				this.getNode().typeVersion >= 2 ? VERSION_2_PANEL : VERSION_1_PANEL;
			const rows =
				(
					this.getCurrentNodeParameter(workflowToolsPath) as
						| { tools?: Array<{ name?: string }> }
						| undefined
				)?.tools ?? [];
			const workflowTools = rows.map((tool) => tool.name ?? '');
			return [...builtIns, ...workflowTools].filter(Boolean).map((name) => ({ name, value: name }));
		},
	},
	listSearch: {
		async searchModels(
			this: ILoadOptionsFunctions,
			filter?: string,
		): Promise<INodeListSearchResult> {
			return searchModels.call(this, filter);
		},
	},
};
