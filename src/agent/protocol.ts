import type { ChatResponse } from '../providers/chat-model';

/**
 * The Action/Final protocol: every model turn is exactly one JSON object,
 * `{"type":"action","tool":"..","args":{..}}` or `{"type":"final","answer":".."}`.
 *
 * Leniency only where the intent is unambiguous: surrounding whitespace, a BOM, one ```json fenced block
 * holding the object, and a leading `<think>…</think>` reasoning block (kept aside, never parsed). An
 * object that holds a key twice at its top level (compared decoded: `"typ\u0065"` is `"type"`) is refused:
 * JSON.parse would keep the last one, so a reply could read as a final answer and run as an action.
 */

export interface ActionTurn {
  kind: 'action';
  tool: string;
  args: Record<string, unknown>;
  reasoning?: string;
}

export interface FinalTurn {
  kind: 'final';
  /** A string; any JSON value when the run has an `output_schema` (`TurnRules.typedAnswer`). */
  answer: unknown;
  reasoning?: string;
}

export interface ProtocolError {
  kind: 'error';
  /** What was wrong and what to send instead, written for the model. */
  message: string;
  reasoning?: string;
}

export type ParsedTurn = ActionTurn | FinalTurn | ProtocolError;

/** What a run allows beyond the plain protocol. */
export interface TurnRules {
  /** With an `output_schema`, the final `answer` may be any JSON value (the schema checks it afterwards). */
  typedAnswer?: boolean;
  /**
   * In `json_schema` mode a strict grammar makes the model write every field, with null for those that do
   * not apply: `"args": null` is then no arguments, like an absent `args`.
   */
  nullArgsAsAbsent?: boolean;
}

/** Replies longer than this are rejected without being parsed: no valid turn is that long. */
export const MAX_REPLY_CHARACTERS = 200_000;

/**
 * Objects and arrays nested deeper than this are refused: no tool's arguments need more, and deeper
 * values could not be redacted, written to the trace or serialised without risk to the process.
 */
export const MAX_NESTING_DEPTH = 64;

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
export function parseTurn(reply: string, rules: TurnRules = {}): ParsedTurn {
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

  return parseObject(text, reasoning, rules);
}

function parseObject(text: string, reasoning: string | undefined, rules: TurnRules): ParsedTurn {
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
  if (end === TOO_DEEP) {
    return protocolError(`Your reply nested JSON objects or arrays more than ${MAX_NESTING_DEPTH} levels deep; send flatter arguments.`, reasoning);
  }
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
  // JSON.parse keeps the last of two equal keys: a reply could open as a final answer and end as an action.
  const duplicate = duplicateTopLevelKey(text);
  if (duplicate !== undefined) {
    return protocolError(`Your reply's object had the key ${JSON.stringify(duplicate).slice(0, 40)} twice; write each key once.`, reasoning);
  }
  return interpret(value as Record<string, unknown>, reasoning, rules);
}

function interpret(turn: Record<string, unknown>, reasoning: string | undefined, rules: TurnRules): ParsedTurn {
  const type = turn.type;
  if (type === 'final') {
    if (!('answer' in turn)) return protocolError('Your final object has no "answer".', reasoning);
    if (rules.typedAnswer) {
      if (turn.answer === null) return protocolError('Your final "answer" was null; send the answer as a JSON value that matches the output schema.', reasoning);
      return { kind: 'final', answer: turn.answer, reasoning };
    }
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
    const args = turn.args === undefined || (turn.args === null && rules.nullArgsAsAbsent) ? {} : turn.args;
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

/** The repair text for a reply that used the provider's native function calling instead of the protocol. */
export function nativeToolCallError(toolNames: readonly string[]): ProtocolError {
  const names = toolNames.slice(0, 5).map((name) => JSON.stringify(name.slice(0, 64))).join(', ');
  return protocolError(
    `Your reply was a native function call (${names}) with no text; this agent does not use native function calling. Write the call as the JSON action object in your reply text.`,
  );
}

/** The repair text for a reply cut at the output-token limit. */
export function outputLimitError(maxOutputTokens: number | undefined): ProtocolError {
  const raise = maxOutputTokens === undefined ? '' : ` (max_output_tokens is ${maxOutputTokens})`;
  return protocolError(`Your reply was cut off at the output-token limit${raise} before the JSON object was complete. Answer shorter: one compact object, no long reasoning.`);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

const TOO_DEEP = -2;

/** True when JSON text nests objects or arrays deeper than MAX_NESTING_DEPTH (the same scan the parser uses). */
export function nestsTooDeep(text: string): boolean {
  return findObjectEnd(text.trimStart()) === TOO_DEEP;
}

/**
 * Index of the brace closing the object that starts at index 0, -1 when it never closes, or TOO_DEEP
 * past MAX_NESTING_DEPTH. Aware of strings and escapes, so braces inside string values don't count.
 * Linear in the text length.
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
    else if (character === 0x7b /* { */ || character === 0x5b /* [ */) {
      if (++depth > MAX_NESTING_DEPTH) return TOO_DEEP;
    }
    else if (character === 0x7d /* } */ || character === 0x5d /* ] */) {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/**
 * The first key that the object starting at index 0 of valid JSON `text` holds twice at its top level,
 * compared as JSON decodes them (`"typ\u0065"` is `"type"`); undefined when every key is unique. One pass:
 * a string at depth 1 followed by a colon is a key.
 */
export function duplicateTopLevelKey(text: string): string | undefined {
  const keys = new Set<string>();
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text.charCodeAt(index);
    if (character === 0x22 /* " */) {
      const start = index;
      for (index++; text.charCodeAt(index) !== 0x22; index++) if (text.charCodeAt(index) === 0x5c /* \ */) index++;
      if (depth !== 1) continue;
      let next = index + 1;
      while (next < text.length && /\s/.test(text[next])) next++;
      if (text[next] !== ':') continue;
      const key = JSON.parse(text.slice(start, index + 1)) as string;
      if (keys.has(key)) return key;
      keys.add(key);
    } else if (character === 0x7b /* { */ || character === 0x5b /* [ */) depth++;
    else if (character === 0x7d /* } */ || character === 0x5d /* ] */) depth--;
  }
  return undefined;
}

/** A reply as a protocol turn; a native function call, or a reply cut at the output limit, gets its own repair text. */
export function readReply(response: ChatResponse, maxOutputTokens: number | undefined, rules: TurnRules = {}): ParsedTurn {
  const turn = withReasoning(parseTurn(response.text, rules), response.reasoning);
  if (turn.kind !== 'error') return turn;
  if (response.text.trim() === '' && response.nativeToolCalls?.length) return nativeToolCallError(response.nativeToolCalls);
  if (response.finishReason === 'length') return { ...outputLimitError(maxOutputTokens), reasoning: turn.reasoning };
  return turn;
}

/** Reasoning the provider handed over apart from the text (thinking blocks) goes with the turn, bounded like a <think> block. */
function withReasoning(turn: ParsedTurn, reasoning: string | undefined): ParsedTurn {
  const kept = reasoning?.trim().slice(0, REASONING_EXCERPT);
  return kept ? { ...turn, reasoning: turn.reasoning ? `${kept}\n${turn.reasoning}` : kept } : turn;
}
