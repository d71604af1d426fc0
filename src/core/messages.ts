/** The engine's neutral conversation: one message's shape, its roles, its check, and parsing a conversation from input. */
import { InputError } from './input-error';

/** One message of the neutral conversation form shared by the engine, the context store and the providers. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The roles of the neutral form; no other role is accepted anywhere. */
export const CHAT_ROLES: readonly ChatMessage['role'][] = ['system', 'user', 'assistant'];

/**
 * The one check of a neutral message, shared by the run input and the context store: undefined when
 * `value` is a `{role, content}` message, else a sentence naming `path` and the fix.
 */
export function chatMessageProblem(value: unknown, path: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${path} must be an object with role and content`;
  const { role, content } = value as Record<string, unknown>;
  if (typeof role !== 'string' || !(CHAT_ROLES as readonly string[]).includes(role)) {
    return `${path}.role must be "system", "user" or "assistant", but it was ${JSON.stringify(role)?.slice(0, 60)}`;
  }
  if (typeof content !== 'string') return `${path}.content must be a string`;
  return undefined;
}

/** Checks a neutral conversation (an array, or JSON text of one, of {role, content}); errors name `field`. */
export function parseMessages(raw: unknown, field = 'messages_json'): ChatMessage[] {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new InputError(field, `${field} is not valid JSON (${(error as Error).message}); it must be an array of {role, content} objects`);
    }
  }
  if (!Array.isArray(value)) {
    throw new InputError(field, `${field} must be an array of {role, content} objects, e.g. [{"role":"user","content":"Hi"}]`);
  }
  return value.map((message, index) => {
    const problem = chatMessageProblem(message, `${field}[${index}]`);
    if (problem) throw new InputError(field, problem);
    const { role, content } = message as ChatMessage;
    return { role: role as ChatMessage['role'], content };
  });
}
