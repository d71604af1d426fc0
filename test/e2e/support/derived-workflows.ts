import type { WorkflowJson } from '../../../scripts/n8n-local';

/** The chat trigger of examples/agent-core-chat.json answers at `<webhookId>/chat`, as the widget posts. */
export const CHAT_TRIGGER_WEBHOOK_ID = '5e0b8f52-0c6d-4a8e-b1f3-6a2d9c7e4b10';
/** Test-only: the same chat workflow with the Chat Trigger in streaming mode. */
export const STREAMING_CHAT_TRIGGER_WEBHOOK_ID = '9a41c3e7-2f5d-4b86-a0c9-1e7d3b5f8a22';
/** Test-only: the main webhook example with Retry On Fail and a credential holding a wrong API key. */
export const WRONG_KEY_WEBHOOK_PATH = 'agent-core-wrong-key';
/** Test-only: the chat example offered in n8n 2.x Chat Hub, by the Chat Trigger's response mode, under these workflow ids. */
export const CHAT_HUB_WORKFLOW_IDS = { lastNode: 'agentCoreChatHub', streaming: 'agentCoreChatHubStream' } as const;
/** Test-only: the webhook chat example with Agent Context on In-Memory storage. */
export const MEMORY_CHAT_WEBHOOK_PATH = 'agent-chat-memory';

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

/** The chat example made available in n8n's Chat (Chat Hub, n8n 2.x), its Chat Trigger in `responseMode`. */
export function withChatHubAccess(chatExample: WorkflowJson, responseMode: keyof typeof CHAT_HUB_WORKFLOW_IDS): WorkflowJson {
  const workflow = copy(chatExample);
  workflow.id = CHAT_HUB_WORKFLOW_IDS[responseMode];
  workflow.name = `${workflow.name} (Chat Hub, ${responseMode})`;
  for (const node of workflow.nodes) {
    if (!node.type.endsWith('.chatTrigger')) continue;
    node.webhookId = responseMode === 'streaming' ? '4a9f3e2d-8c7b-4d6a-9f1e-3b2c0d9e8f44' : '3f8e2d1c-7b6a-4c59-8e0d-2a1b9c8d7e33';
    node.parameters.availableInChat = true;
    node.parameters.options = { ...node.parameters.options, responseMode };
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

/** The webhook chat example (errors answered HTTP 400 with the message) with both Agent Context nodes on In-Memory storage. */
export function withInMemoryContext(webhookChatExample: WorkflowJson): WorkflowJson {
  const workflow = copy(webhookChatExample);
  workflow.name = `${workflow.name} (In-Memory storage)`;
  for (const node of workflow.nodes) {
    if (node.type === 'n8n-nodes-base.webhook') {
      node.parameters.path = MEMORY_CHAT_WEBHOOK_PATH;
      node.webhookId = 'e1d2c3b4-a596-4788-9a0b-1c2d3e4f5a66';
    }
    if (node.type.endsWith('.agentContext')) {
      node.parameters.storage = 'memory';
      delete node.credentials;
    }
  }
  return workflow;
}
