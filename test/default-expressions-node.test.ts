import type { IDataObject } from 'n8n-workflow';
import { AgentCore } from '../nodes/AgentCore/AgentCore.node';
import { defaultExpressionOf } from '../nodes/AgentCore/default-expressions';
import { final, useScriptedServer } from './support/agent';
import { runWorkflow } from './support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from './support/test-nodes';

/**
 * Issue #20: Prompt and Session ID left at their default expressions are computed in JavaScript instead of
 * by n8n's expression engine; for every shape of item, the outcome is the one n8n's own evaluation gives.
 */
describe('default expressions computed directly', () => {
  const server = useScriptedServer();
  const items: IDataObject[] = [
    { chatInput: 'from chat', sessionId: 'chat-session' },
    { body: { prompt: 'from a webhook body' }, session_id: 'agent-context-session' },
    { prompt: 'from the item', session_id: 'a', sessionId: 'b' },
    { chatInput: '', prompt: 'not used' },
    { chatInput: null, body: { prompt: null }, prompt: 'third choice', session_id: null, sessionId: 'second choice' },
    { body: 'not an object', prompt: 'with a string body' },
  ];

  /** Each item's prompt as the model received it and its session, with the field as given. */
  async function outcomes(prompt: string, sessionId: string) {
    server().setScript((request) => final(`got ${String(request.messages[request.messages.length - 1].content)}`));
    const result = await runWorkflow({
      nodes: [
        createInputNode(items),
        createNode({
          name: 'Agent Core',
          type: 'agentCore',
          parameters: { model: { __rl: true, mode: 'id', value: 'm' }, prompt, sessionId },
          settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } }, continueOnFail: true },
        }),
      ],
      connections: connectInSequence('Input', 'Agent Core'),
      nodeTypes: { agentCore: new AgentCore() },
      credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
    });
    return result.outputOf('Agent Core').map((item) => ({ answer: item.json.final_answer, session: item.json.session_id, error: item.json.error }));
  }

  it('give what n8n’s evaluation of the same expressions gives, item by item', async () => {
    const prompt = defaultExpressionOf('prompt');
    const sessionId = defaultExpressionOf('sessionId');
    expect(prompt).toBe('={{ $json.chatInput ?? $json.body?.prompt ?? $json.prompt }}');
    // A space more: no longer the default, so n8n's expression engine evaluates it.
    const evaluated = await outcomes(prompt.replace('{{ ', '{{  '), sessionId.replace('{{ ', '{{  '));
    const computed = await outcomes(prompt, sessionId);
    expect(computed).toEqual(evaluated);
    expect(computed.map((outcome) => outcome.answer)).toEqual(['got from chat', 'got from a webhook body', 'got from the item', undefined, 'got third choice', 'got with a string body']);
    // An empty chatInput is the prompt (?? keeps ''), and an empty prompt is refused, naming the field.
    expect(computed[3].error).toMatch(/prompt/i);
    expect(computed.map((outcome) => outcome.session)).toEqual(['chat-session', 'agent-context-session', 'a', undefined, 'second choice', undefined]);
  });
});
