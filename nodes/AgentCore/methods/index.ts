// What both versions of Agent Core share besides execute: credential tests, the approval tool list, the model search.
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	ILoadOptionsFunctions,
	INodeCredentialTestResult,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';

/**
 * The bodies, loaded on the first call: they reach Redis, PostgreSQL and the providers' clients, which n8n
 * should not load at start for a panel it only lists (issue #39). Under CommonJS `import()` is a require.
 */
const bodies = async () => (await import('./bodies')).agentCoreMethodBodies;

type CredentialTestName = keyof Awaited<ReturnType<typeof bodies>>['credentialTest'];

/** A credential test that loads its body when n8n first runs it. */
function credentialTest(name: CredentialTestName) {
	return async function (
		this: ICredentialTestFunctions,
		credential: ICredentialsDecrypted,
	): Promise<INodeCredentialTestResult> {
		return await (await bodies()).credentialTest[name].call(this, credential);
	};
}

/** The node's methods, for each version's node type. */
export const agentCoreMethods = {
	credentialTest: {
		agentCoreRedisApiTest: credentialTest('agentCoreRedisApiTest'),
		agentCoreHttpHeaderApiTest: credentialTest('agentCoreHttpHeaderApiTest'),
		agentCoreFeishuBotApiTest: credentialTest('agentCoreFeishuBotApiTest'),
		agentCoreRunStateApiTest: credentialTest('agentCoreRunStateApiTest'),
		agentCoreAuditDatabaseApiTest: credentialTest('agentCoreAuditDatabaseApiTest'),
	},
	loadOptions: {
		/** The tools Require Approval can name: the allowed built-ins and the workflow tools defined above. */
		async getApprovalTools(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
			return await (await bodies()).loadOptions.getApprovalTools.call(this);
		},
	},
	listSearch: {
		async searchModels(
			this: ILoadOptionsFunctions,
			filter?: string,
		): Promise<INodeListSearchResult> {
			return await (await bodies()).listSearch.searchModels.call(this, filter);
		},
	},
};
