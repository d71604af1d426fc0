import {
  NodeConnectionTypes,
  type ICredentialsDecrypted,
  type ICredentialTestFunctions,
  type IExecuteFunctions,
  type INodeCredentialTestResult,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { pingRedis } from '../../src/context/redis-store';
import { agentContextProperties } from './description';
import { agentContextExecute } from './execute';

/** Agent Context: conversation history for Agent Core (prepare → Agent Core → persist). */
export class AgentContext implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Agent Context',
    name: 'agentContext',
    icon: 'file:agentContext.svg',
    group: ['transform'],
    version: 1,
    subtitle: '={{ $parameter["operation"] }} · {{ $parameter["storage"] }}',
    description: 'Keeps multi-turn conversation history for Agent Core, in Redis or in memory',
    defaults: { name: 'Agent Context' },
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'agentCoreRedis', required: true, testedBy: 'agentCoreRedisTest', displayOptions: { show: { storage: ['redis'] } } }],
    properties: agentContextProperties,
  };

  methods = {
    credentialTest: {
      /** Connects, sends PING and closes, failing within about two seconds when Redis does not answer. */
      async agentCoreRedisTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
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
      },
    },
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await agentContextExecute.call(this);
  }
}
