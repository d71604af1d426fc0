import {
  NodeConnectionTypes,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { testRedisCredential } from '../shared/redis-credential';
import { agentContextProperties } from './description';
import { agentContextExecute } from './execute';

/** Agent Context: conversation history for Agent Core (prepare → Agent Core → persist). */
export class AgentContext implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Agent Context',
    name: 'agentContext',
    icon: { light: 'file:agentContext.svg', dark: 'file:agentContext.dark.svg' },
    group: ['transform'],
    version: [1, 2],
    defaultVersion: 2,
    subtitle: '={{ $parameter["operation"] }} · {{ $parameter["storage"] }}',
    description: 'Keeps multi-turn conversation history for Agent Core, in Redis or in memory',
    defaults: { name: 'Agent Context' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'agentCoreRedisApi', required: true, testedBy: 'agentCoreRedisApiTest', displayOptions: { show: { storage: ['redis'] } } }],
    properties: agentContextProperties,
  };

  methods = {
    credentialTest: { agentCoreRedisApiTest: testRedisCredential },
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await agentContextExecute.call(this);
  }
}
