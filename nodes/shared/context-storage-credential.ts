// The test of the Redis credential that Agent Context and Agent Context Memory keep a conversation with.
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

/** The node methods that test the credential; the Redis client loads only when n8n runs the test. */
export const contextCredentialMethods = {
	credentialTest: {
		async agentCoreRedisApiTest(
			this: ICredentialTestFunctions,
			credential: ICredentialsDecrypted,
		): Promise<INodeCredentialTestResult> {
			const { testRedisCredential } = await import('./redis-credential');
			return await testRedisCredential.call(this, credential);
		},
	},
};
