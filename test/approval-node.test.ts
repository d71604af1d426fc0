import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../nodes/AgentCore/AgentCore.node';
import { action, final, lastUserMessage, useScriptedServer } from './support/agent';
import { PRIVATE_ALLOWED, sendJson, startServer, useLoopbackGuard, type TestServer } from './support/http-servers';
import { runWorkflow } from './support/n8n-engine';
import { deleteKeysByPrefix, redisCredentialData, useTestRedis } from './support/redis';
import { connectInSequence, createInputNode, createNode } from './support/test-nodes';

useLoopbackGuard();

/** Issue #18 in n8n's engine: Require Approval's second output, and Operation → Resume a Paused Run. */
describe('Agent Core approval in n8n’s engine', () => {
  const server = useScriptedServer();
  const redis = useTestRedis();
  let payments: TestServer;
  beforeEach(async () => {
    payments = await startServer((_, response) => sendJson(response, { charged: true }));
  });
  afterEach(() => deleteKeysByPrefix(redis.admin, 'agent_core:run_state:'));

  const settings: INodeParameters = {
    model: { __rl: true, mode: 'id', value: 'm' },
    allowedTools: ['http_request'],
    needsApproval: true,
    approvalTools: ['http_request'],
    toolSettingsJson: JSON.stringify({ http_request: PRIVATE_ALLOWED }),
  };

  const run = (items: IDataObject[], parameters: INodeParameters, withRedis = false) => {
    return runWorkflow({
      nodes: [
        createInputNode(items),
        createNode({
          name: 'Agent Core',
          type: 'agentCore',
          parameters: { ...settings, ...parameters },
          settings: {
            credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' }, agentCoreRunStateApi: { id: '4', name: 'Run State' }, ...(withRedis ? { agentCoreRedisApi: { id: '3', name: 'Redis' } } : {}) },
          },
        }),
      ],
      connections: connectInSequence('Input', 'Agent Core'),
      nodeTypes: { agentCore: new AgentCore() },
      credentials: {
        agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
        agentCoreRunStateApi: { signingSecret: 'node-approval-secret-0123456789' },
        agentCoreRedisApi: redisCredentialData(redis.url),
      },
    });
  };

  async function paused(): Promise<IDataObject> {
    server().setScript([action('http_request', { url: `${payments.url}/charge`, method: 'POST' })]);
    const result = await run([{ prompt: 'Charge the customer.' }], {});
    expect(result.outputOf('Agent Core', 0)).toHaveLength(0);
    const [waiting] = result.outputOf('Agent Core', 1);
    expect(waiting.json).toMatchObject({ finish_reason: 'awaiting_approval', pending_action: { tool: 'http_request', args: { method: 'POST' } } });
    expect(waiting.pairedItem).toEqual({ item: 0 });
    expect(payments.requests).toHaveLength(0);
    return waiting.json;
  }

  it('sends a paused run to Needs Approval; Resume with Approve runs the call once and answers on the first output', async () => {
    const waiting = await paused();
    server().setScript([final('Charged.')]);
    const result = await run([waiting], { operation: 'resume', decision: 'approve' });
    expect(result.errorOf('Agent Core')).toBeUndefined();
    expect(result.outputOf('Agent Core', 0)[0].json).toMatchObject({ finish_reason: 'final', final_answer: 'Charged.' });
    expect(result.outputOf('Agent Core', 1)).toHaveLength(0);
    expect(payments.requests).toHaveLength(1);
  });

  it('Resume with Deny tells the model the reason and never reaches the target', async () => {
    const waiting = await paused();
    server().setScript([final('Not charged.')]);
    const result = await run([waiting], { operation: 'resume', decision: 'deny', denyReason: 'paid already' });
    expect(result.outputOf('Agent Core', 0)[0].json.finish_reason).toBe('final');
    expect(lastUserMessage(server(), server().requests.length - 1)).toContain('Their reason: paid already.');
    expect(payments.requests).toHaveLength(0);
  });

  it('refuses a second resume of the same state when the node has the Redis credential', async () => {
    const waiting = await paused();
    server().setScript([final('Charged.'), final('Charged twice?')]);
    await run([waiting], { operation: 'resume', decision: 'approve' }, true);
    const again = await run([waiting], { operation: 'resume', decision: 'approve' }, true);
    expect(again.errorOf('Agent Core')?.message).toBe('run_state was already used to resume this run; a paused run resumes once');
    expect(payments.requests).toHaveLength(1);
  });

  it('refuses an altered run state, naming it', async () => {
    const waiting = await paused();
    const altered = JSON.parse(JSON.stringify(waiting));
    altered.run_state.payload.pending.args.url = 'http://127.0.0.1:9/elsewhere';
    const result = await run([altered], { operation: 'resume', decision: 'approve' });
    expect(result.errorOf('Agent Core')?.message).toMatch(/^run_state was altered, or signed with another key/);
    expect(payments.requests).toHaveLength(0);
  });
});
