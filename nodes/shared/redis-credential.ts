import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import { pingRedis, type RedisConnectionOptions } from '../../src/context';

/** The "Agent Core: Redis API" credential's fields as connection options; empty fields are left out. */
export function redisConnectionFromCredential(
	data: ICredentialDataDecryptedObject,
): RedisConnectionOptions {
	return {
		host: (data.host as string) || '127.0.0.1',
		port: Number(data.port) || 6379,
		...(data.username ? { username: data.username as string } : {}),
		...(data.password ? { password: data.password as string } : {}),
		db: Number(data.database) || 0,
		tls: data.tls === true,
	};
}

/**
 * The test of the "Agent Core: Redis API" credential, registered by every node that uses the credential
 * (`testedBy: 'agentCoreRedisApiTest'`): connects, sends PING and closes, failing within about two seconds
 * when Redis does not answer.
 */
export async function testRedisCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const result = await pingRedis(redisConnectionFromCredential(credential.data ?? {}));
	return result.ok
		? { status: 'OK', message: `Connected (PING ${result.latencyMs} ms)` }
		: { status: 'Error', message: result.message };
}
