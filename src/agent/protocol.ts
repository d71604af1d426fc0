/**
 * The Action/Final protocol: every model turn is exactly one JSON object,
 * `{"type":"action","tool":"..","args":{..}}` or `{"type":"final","answer":".."}`.
 *
 * Leniency only where the intent is unambiguous: surrounding whitespace, a BOM, one ```json fenced block
 * holding the object, and a leading `<think>…</think>` reasoning block (kept aside, never parsed).
 */

export interface ActionTurn {
  kind: 'action';
  tool: string;
  args: Record<string, unknown>;
  reasoning?: string;
}

export interface FinalTurn {
  kind: 'final';
  answer: string;
  reasoning?: string;
}

export interface ProtocolError {
  kind: 'error';
  /** What was wrong and what to send instead, written for the model. */
  message: string;
  reasoning?: string;
}

export type ParsedTurn = ActionTurn | FinalTurn | ProtocolError;

/** Replies longer than this are rejected without being parsed: no valid turn is that long. */
export const MAX_REPLY_CHARACTERS = 200_000;

/** How much of a reasoning block is kept for the trace. */
const REASONING_EXCERPT = 2_000;

export const PROTOCOL_REMINDER =
  'Reply with exactly one JSON object and nothing else: ' +
  '{"type":"action","tool":"<tool name>","args":{...}} to call a tool, or ' +
  '{"type":"final","answer":"<your answer>"} to finish.';

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
const FENCED_BLOCK = /^```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```$/;

function protocolError(problem: string, reasoning?: string): ProtocolError {
  return { kind: 'error', message: `${problem} ${PROTOCOL_REMINDER}`, reasoning };
}

/** Turns one model reply into an action, a final answer, or a protocol error that tells the model how to fix it. */
export function parseTurn(reply: string): ParsedTurn {
  if (reply.length > MAX_REPLY_CHARACTERS) {
    return protocolError(`Your reply was ${reply.length} characters long, far beyond one protocol object.`);
  }
  let text = reply.replace(/^\uFEFF/, '').trim();
  let reasoning: string | undefined;

  if (text.startsWith(THINK_OPEN)) {
    const close = text.indexOf(THINK_CLOSE);
    if (close === -1) {
      return protocolError('Your reply opened a <think> block but never closed it with </think>.');
    }
    reasoning = text.slice(THINK_OPEN.length, close).trim().slice(0, REASONING_EXCERPT);
    text = text.slice(close + THINK_CLOSE.length).trim();
  }

  if (text === '') {
    return protocolError(reasoning === undefined ? 'Your reply was empty.' : 'Your reply held only a <think> block.', reasoning);
  }

  if (text.startsWith('```')) {
    const fenced = FENCED_BLOCK.exec(text);
    if (!fenced || fenced[1].includes('```')) {
      return protocolError('Your reply had a code fence with text outside it, or more than one fence.', reasoning);
    }
    text = fenced[1].trim();
  }

  return parseObject(text, reasoning);
}

function parseObject(text: string, reasoning: string | undefined): ParsedTurn {
  if (text.startsWith('[')) {
    return protocolError('Your reply was a JSON array; send a single object, not an array.', reasoning);
  }
  const start = text.indexOf('{');
  if (start === -1) {
    return protocolError('Your reply contained no JSON object; it looked like plain text.', reasoning);
  }
  if (start > 0) {
    return protocolError('Your reply had text before the JSON object. Do not write prose around the object.', reasoning);
  }
  const end = findObjectEnd(text);
  if (end === -1) {
    return protocolError('Your reply started a JSON object but never closed it.', reasoning);
  }
  const rest = text.slice(end + 1).trim();
  if (rest.startsWith('{')) {
    return protocolError('Your reply contained more than one JSON object; send one object per turn.', reasoning);
  }
  if (rest !== '') {
    return protocolError('Your reply had text after the JSON object. Do not write prose around the object.', reasoning);
  }

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return protocolError(`Your reply was not valid JSON (${(error as Error).message}).`, reasoning);
  }
  return interpret(value as Record<string, unknown>, reasoning);
}

function interpret(turn: Record<string, unknown>, reasoning: string | undefined): ParsedTurn {
  const type = turn.type;
  if (type === 'final') {
    if (!('answer' in turn)) return protocolError('Your final object has no "answer".', reasoning);
    if (typeof turn.answer !== 'string') {
      return protocolError(
        `"answer" must be a string, but it was ${describeType(turn.answer)}; put structured data into the string as JSON text.`,
        reasoning,
      );
    }
    return { kind: 'final', answer: turn.answer, reasoning };
  }
  if (type === 'action') {
    if (typeof turn.tool !== 'string' || turn.tool.trim() === '') {
      return protocolError('Your action object needs "tool": the name of one of the listed tools, as a string.', reasoning);
    }
    const args = turn.args === undefined ? {} : turn.args;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return protocolError(`"args" must be a JSON object, but it was ${describeType(args)}.`, reasoning);
    }
    return { kind: 'action', tool: turn.tool, args: args as Record<string, unknown>, reasoning };
  }
  if (type === undefined) {
    return protocolError('Your object has no "type"; it must be "action" or "final".', reasoning);
  }
  return protocolError(`Unknown "type" ${JSON.stringify(type).slice(0, 40)}; it must be "action" or "final".`, reasoning);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Index of the brace closing the object that starts at index 0, or -1. Aware of strings and escapes, so
 * braces inside string values don't count. Linear in the text length.
 */
function findObjectEnd(text: string): number {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const character = text.charCodeAt(index);
    if (inString) {
      if (character === 0x5c /* \ */) index++;
      else if (character === 0x22 /* " */) inString = false;
      continue;
    }
    if (character === 0x22) inString = true;
    else if (character === 0x7b /* { */ || character === 0x5b /* [ */) depth++;
    else if (character === 0x7d /* } */ || character === 0x5d /* ] */) {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}
