import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';
import { pingRedis } from '../../src/context/redis-store';

/**
 * The test of the "Agent Core: Redis" credential, registered by every node that uses the credential
 * (`testedBy: 'agentCoreRedisTest'`): connects, sends PING and closes, failing within about two seconds
 * when Redis does not answer.
 */
export async function testRedisCredential(
  this: ICredentialTestFunctions,
  credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
  const data = credential.data ?? {};
  const result = await pingRedis({
    host: (data.host as string) || '127.0.0.1',
    port: Number(data.port) || 6379,
    username: (data.username as string) || undefined,
    password: (data.password as string) || undefined,
    db: Number(data.database) || 0,
    tls: data.tls === true,
  });
  return result.ok ? { status: 'OK', message: `Connected (PING ${result.latencyMs} ms)` } : { status: 'Error', message: result.message };
}
