import { demoModel } from '../../../src/demo/demo-model';
import type { ScriptedReply, ScriptedRequest } from '../../../src/demo/scripted-server';

/** A prompt containing this marker gets a model that calls a tool on every turn and never answers. */
export const NEVER_FINISHES = '[never-finishes]';

/** The prompt of the run a request belongs to: its first user message. */
export function promptOf(request: ScriptedRequest): string {
  return request.messages.find((message) => message.role === 'user')?.content ?? '';
}

/**
 * One stateless script for every scenario, so requests from several runs can arrive in any order: the
 * reply is chosen from the request's messages alone.
 * - a prompt with NEVER_FINISHES: a json_transform call, every turn;
 * - the demo's catalogue question: the demo model (one json_transform call, then an answer from its result);
 * - anything else: the final answer "Echo: <prompt>".
 */
export function e2eModel(request: ScriptedRequest): ScriptedReply {
  const prompt = promptOf(request);
  if (prompt.includes(NEVER_FINISHES)) {
    return JSON.stringify({ type: 'action', tool: 'json_transform', args: { data: { turns: request.messages.length }, expression: 'turns' } });
  }
  if (prompt.includes('Catalogue:')) return demoModel(request);
  return JSON.stringify({ type: 'final', answer: `Echo: ${prompt}` });
}
