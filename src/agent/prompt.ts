import type { ChatMessage } from '../providers/chat-model';
import type { Tool } from '../tools/tool';

/**
 * Few-shot transcripts (design §15.3): success, a failed call repaired, and a direct answer. They use a
 * tool that is never offered, and say so, so the model copies the format and not the tool.
 */
const FEW_SHOT = `Examples (format only; "lookup_order" is not a real tool, use only the tools listed above):
1. Tool call, then answer.
User: Where is order 123?
You: {"type":"action","tool":"lookup_order","args":{"id":"123"}}
User: Observation from lookup_order: {"status":"shipped","eta":"Friday"}
You: {"type":"final","answer":"Order 123 has shipped and should arrive on Friday."}
2. A failed call, corrected.
You: {"type":"action","tool":"lookup_order","args":{"order":"123"}}
User: Error: lookup_order args are invalid: args: missing required property "id"
You: {"type":"action","tool":"lookup_order","args":{"id":"123"}}
3. No tool needed.
User: Say hello in French.
You: {"type":"final","answer":"Bonjour !"}`;

const RULES = `You are an agent that completes the user's task, calling tools when they help.
Each of your replies is exactly one JSON object and nothing else: no prose, no markdown, no second object.
- To call a tool: {"type":"action","tool":"<tool name>","args":{...}} with args matching the tool's schema.
- To finish: {"type":"final","answer":"<your complete answer for the user>"}.
After each call you get the observation (possibly shortened) or an error as the next user message. On an error, fix the call or finish; invalid calls are not run.`;

function describeTools(tools: readonly Tool[]): string {
  if (tools.length === 0) return 'No tools are available: answer directly with a final object.';
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.description}\n  args schema: ${JSON.stringify(tool.parameters)}`);
  return `Tools you may call (no others exist):\n${lines.join('\n')}`;
}

/** The system message: protocol rules, the whitelisted tools with their schemas, examples, and the workflow's own text. */
export function buildSystemPrompt(tools: readonly Tool[], developerText?: string, conversationSystemText?: string): string {
  const parts = [RULES, describeTools(tools), FEW_SHOT];
  if (conversationSystemText && conversationSystemText.trim() !== '') {
    parts.push(`Instructions from the conversation:\n${conversationSystemText.trim()}`);
  }
  if (developerText && developerText.trim() !== '') {
    parts.push(`Instructions for this task:\n${developerText.trim()}`);
  }
  return parts.join('\n\n');
}

/**
 * History kept by the context manager stores answers as plain text; replayed as they are they would teach
 * the model to answer without the protocol. Wrap each plain assistant message as the final object it was.
 */
export function protocolAssistantMessage(content: string): string {
  const trimmed = content.trim();
  if (trimmed.startsWith('{') && /"type"\s*:\s*"(action|final)"/.test(trimmed)) return content;
  return JSON.stringify({ type: 'final', answer: content });
}

/** Builds the conversation for the first model call; the system message always comes first. */
export function buildConversation(
  tools: readonly Tool[],
  history: readonly ChatMessage[],
  developerText?: string,
): ChatMessage[] {
  const conversationSystem = history.filter((message) => message.role === 'system').map((message) => message.content);
  const turns = history
    .filter((message) => message.role !== 'system')
    .map((message) => (message.role === 'assistant' ? { role: message.role, content: protocolAssistantMessage(message.content) } : message));
  return [{ role: 'system', content: buildSystemPrompt(tools, developerText, conversationSystem.join('\n\n')) }, ...turns];
}
