import type { ChatResponse } from '../../providers/chat-model';
import { describeType, readCalls, type ToolCallRequest } from './actions-turn';
import { type ReadObject, readObject } from './json-problems';
import { unfence } from './reply-fence';

export { MAX_NESTING_DEPTH, nestsTooDeep } from './json-scan';

/**
 * The Action/Final protocol: every model turn is exactly one JSON object,
 * `{"type":"action","tool":"..","args":{..}}` or `{"type":"final","answer":".."}`.
 *
 * Leniency only where the intent is unambiguous: surrounding whitespace, a BOM, one fenced block (any
 * language tag) holding the object, and a leading `<think>…</think>` reasoning block (kept aside, never parsed). An
 * object that holds a key twice at its top level (compared decoded: `"typ\u0065"` is `"type"`) is refused:
 * JSON.parse would keep the last one, so a reply could read as a final answer and run as an action.
 */

export interface ActionTurn {
	kind: 'action';
	tool: string;
	args: Record<string, unknown>;
	reasoning?: string;
}

/** `{"type":"actions","calls":[…]}`: 1 to `max_parallel_calls` tool calls in one reply (issue #42). */
export interface ActionsTurn {
	kind: 'actions';
	calls: ToolCallRequest[];
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

/** `{"type":"plan","steps":[…]}` in plan mode (issue #51): the object as read, for the plan room to check (readPlan). */
export interface PlanTurn {
	kind: 'plan';
	value: Record<string, unknown>;
	reasoning?: string;
}

export type ParsedTurn = ActionTurn | ActionsTurn | FinalTurn | PlanTurn | ProtocolError;

/** What a run allows beyond the plain protocol. */
export interface TurnRules {
	/** With an `output_schema`, the final `answer` may be any JSON value (the schema checks it afterwards). */
	typedAnswer?: boolean;
	/**
	 * In `json_schema` mode a strict grammar makes the model write every field, with null for those that do
	 * not apply: `"args": null` is then no arguments, like an absent `args`.
	 */
	nullArgsAsAbsent?: boolean;
	/** How many calls an `actions` reply may hold (`max_parallel_calls`); absent or 1: "actions" is a protocol error. */
	maxParallelCalls?: number;
	/** Plan mode (issue #51): a `{"type":"plan"}` reply is read (and checked by the plan room). */
	plan?: boolean;
}

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

function protocolError(problem: string, reasoning?: string): ProtocolError {
	return { kind: 'error', message: `${problem} ${PROTOCOL_REMINDER}`, reasoning };
}

/** Turns one model reply into an action, a final answer, or a protocol error that tells the model how to fix it. */
export function parseTurn(reply: string, rules: TurnRules = {}): ParsedTurn {
	if (reply.length > MAX_REPLY_CHARACTERS) {
		return protocolError(
			`Your reply was ${reply.length} characters long, far beyond one protocol object.`,
		);
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
		return protocolError(
			reasoning === undefined ? 'Your reply was empty.' : 'Your reply held only a <think> block.',
			reasoning,
		);
	}

	if (text.startsWith('```')) {
		const fenced = unfence(text);
		if ('problem' in fenced) return protocolError(fenced.problem, reasoning);
		text = fenced.body.trim();
	}

	return parseObject(text, reasoning, rules);
}

function parseObject(text: string, reasoning: string | undefined, rules: TurnRules): ParsedTurn {
	const read = readObject(text);
	return 'problem' in read
		? protocolError(read.problem, reasoning)
		: interpret(read, reasoning, rules);
}

function interpret(read: ReadObject, reasoning: string | undefined, rules: TurnRules): ParsedTurn {
	const turn = read.value;
	const type = turn.type;
	if (type === 'plan' && rules.plan) return { kind: 'plan', value: turn, reasoning };
	if (type === 'actions') {
		const calls = readCalls(read, rules.maxParallelCalls ?? 1, rules.nullArgsAsAbsent === true);
		return 'problem' in calls
			? protocolError(calls.problem, reasoning)
			: { kind: 'actions', calls: calls.calls, reasoning };
	}
	if (type === 'final') {
		if (!('answer' in turn)) return protocolError('Your final object has no "answer".', reasoning);
		if (rules.typedAnswer) {
			if (turn.answer === null)
				return protocolError(
					'Your final "answer" was null; send the answer as a JSON value that matches the output schema.',
					reasoning,
				);
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
			return protocolError(
				'Your action object needs "tool": the name of one of the listed tools, as a string.',
				reasoning,
			);
		}
		const args =
			turn.args === undefined || (turn.args === null && rules.nullArgsAsAbsent) ? {} : turn.args;
		if (typeof args !== 'object' || args === null || Array.isArray(args)) {
			return protocolError(
				`"args" must be a JSON object, but it was ${describeType(args)}.`,
				reasoning,
			);
		}
		return { kind: 'action', tool: turn.tool, args: args as Record<string, unknown>, reasoning };
	}
	if (type === undefined) {
		return protocolError('Your object has no "type"; it must be "action" or "final".', reasoning);
	}
	const types = rules.plan ? '"action", "plan" or "final"' : '"action" or "final"';
	return protocolError(
		`Unknown "type" ${JSON.stringify(type).slice(0, 40)}; it must be ${types}.`,
		reasoning,
	);
}

/** The repair text for a reply that used the provider's native function calling instead of the protocol. */
export function nativeToolCallError(toolNames: readonly string[]): ProtocolError {
	const names = toolNames
		.slice(0, 5)
		.map((name) => JSON.stringify(name.slice(0, 64)))
		.join(', ');
	return protocolError(
		`Your reply was a native function call (${names}) with no text; this agent does not use native ` +
			`function calling. Write the call as the JSON action object in your reply text.`,
	);
}

/** The repair text for a reply cut at the output-token limit. */
export function outputLimitError(maxOutputTokens: number | undefined): ProtocolError {
	const raise = maxOutputTokens === undefined ? '' : ` (max_output_tokens is ${maxOutputTokens})`;
	return protocolError(
		`Your reply was cut off at the output-token limit${raise} before the JSON object was complete. Answer shorter: one compact object, no long reasoning.`,
	);
}

/** A reply as a protocol turn; a native function call, or a reply cut at the output limit, gets its own repair text. */
export function readReply(
	response: ChatResponse,
	maxOutputTokens: number | undefined,
	rules: TurnRules = {},
): ParsedTurn {
	const turn = withReasoning(parseTurn(response.text, rules), response.reasoning);
	if (turn.kind !== 'error') return turn;
	if (response.text.trim() === '' && response.nativeToolCalls?.length)
		return nativeToolCallError(response.nativeToolCalls);
	if (response.finishReason === 'length')
		return { ...outputLimitError(maxOutputTokens), reasoning: turn.reasoning };
	return turn;
}

/** Reasoning the provider handed over apart from the text (thinking blocks) goes with the turn, bounded like a <think> block. */
function withReasoning(turn: ParsedTurn, reasoning: string | undefined): ParsedTurn {
	const kept = reasoning?.trim().slice(0, REASONING_EXCERPT);
	return kept ? { ...turn, reasoning: turn.reasoning ? `${kept}\n${turn.reasoning}` : kept } : turn;
}
