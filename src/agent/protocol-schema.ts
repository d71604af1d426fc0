import type { ResponseFormat } from '../providers/chat-model';
import type { JsonMode } from './config';

/**
 * The Action/Final union as a JSON Schema, for providers' structured-output modes. Only a help: replies are
 * still parsed and checked by the protocol, since many OpenAI-compatible servers ignore or loosen it.
 */
export const ACTION_FINAL_SCHEMA = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['action', 'final'] },
    tool: { type: 'string', description: 'With type "action": the tool to call.' },
    args: { type: 'object', description: 'With type "action": the tool arguments.' },
    answer: { type: 'string', description: 'With type "final": the answer.' },
  },
  required: ['type'],
} as const;

/** The `json_mode` setting as the response format the provider is asked for. */
export function responseFormatFor(jsonMode: JsonMode): ResponseFormat {
  if (jsonMode === 'off') return { type: 'text' };
  if (jsonMode === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', name: 'agent_turn', schema: ACTION_FINAL_SCHEMA };
}

