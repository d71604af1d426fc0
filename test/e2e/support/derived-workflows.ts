import type { WorkflowJson } from '../../../scripts/n8n-local';

/** The chat trigger of examples/agent-core-chat.json answers at `<webhookId>/chat`, as the widget posts. */
export const CHAT_TRIGGER_WEBHOOK_ID = '5e0b8f52-0c6d-4a8e-b1f3-6a2d9c7e4b10';
/** Test-only: the same chat workflow with the Chat Trigger in streaming mode. */
export const STREAMING_CHAT_TRIGGER_WEBHOOK_ID = '9a41c3e7-2f5d-4b86-a0c9-1e7d3b5f8a22';
/** Test-only: the main webhook example with Retry On Fail and a credential holding a wrong API key. */
export const WRONG_KEY_WEBHOOK_PATH = 'agent-core-wrong-key';

const copy = (workflow: WorkflowJson): WorkflowJson => {
  const copied: WorkflowJson = JSON.parse(JSON.stringify(workflow));
  delete copied.id;
  return copied;
};

/** The chat example with its Chat Trigger answering in streaming mode (NDJSON chunks) on its own webhook. */
export function withStreamingChatTrigger(chatExample: WorkflowJson): WorkflowJson {
  const workflow = copy(chatExample);
  workflow.name = `${workflow.name} (streaming)`;
  for (const node of workflow.nodes) {
    if (!node.type.endsWith('.chatTrigger')) continue;
    node.webhookId = STREAMING_CHAT_TRIGGER_WEBHOOK_ID;
    node.parameters.options = { ...node.parameters.options, responseMode: 'streaming' };
  }
  return workflow;
}

/**
 * The main webhook example with Agent Core on a credential whose API key the model server refuses (HTTP
 * 401), n8n's Retry On Fail at 2 tries, and its error output answering HTTP 400 as in the example.
 */
export function withWrongKeyAndRetry(webhookExample: WorkflowJson, wrongKeyCredential: { id: string; name: string }): WorkflowJson {
  const workflow = copy(webhookExample);
  workflow.name = `${workflow.name} (wrong API key, Retry On Fail)`;
  for (const node of workflow.nodes) {
    if (node.type === 'n8n-nodes-base.webhook') {
      node.parameters.path = WRONG_KEY_WEBHOOK_PATH;
      node.webhookId = 'c6f0d1a2-8b3e-4c5d-9e7f-0a1b2c3d4e55';
    }
    if (node.type.endsWith('.agentCore')) {
      Object.assign(node, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
      node.credentials = { agentCoreOpenAiApi: { id: wrongKeyCredential.id, name: wrongKeyCredential.name } };
    }
  }
  return workflow;
}
