// The "actions" reply (issue #42): several tool calls in one protocol object, each call's problem named by its number.
import type { ReadObject } from './json-problems';

/** One call of a batch, as the model asked for it. */
export interface ToolCallRequest {
	tool: string;
	args: Record<string, unknown>;
}

/** The most calls one `actions` reply may hold, whatever a config says (the `max_parallel_calls` check's bound). */
export const MAX_PARALLEL_CALLS = 16;

/** How one call of a batch is named to the model and in the trace: 1-based, as a person counts. */
export const callLabel = (index: number) => `call ${index + 1}`;

/** What a reply that used "actions" where only one action is allowed is told (`max_parallel_calls` 1). */
export const ONE_ACTION_ONLY =
	'This run takes one tool call per reply: "actions" is not available. Send one action: ' +
	'{"type":"action","tool":"<tool name>","args":{...}}, then the next one after its observation.';

/**
 * The calls of `{"type":"actions","calls":[{"tool":"..","args":{..}},…]}`, or the sentence that names what is
 * wrong (for the repair turn). `nullArgsAsAbsent`: a strict json_schema reply writes `"args": null` for none.
 */
export function readCalls(
	read: ReadObject,
	maxCalls: number,
	nullArgsAsAbsent: boolean,
): { calls: ToolCallRequest[] } | { problem: string } {
	const turn = read.value;
	if (maxCalls <= 1) return { problem: ONE_ACTION_ONLY };
	// A strict json_schema reply writes every field, `"answer": null` included, in an actions reply too.
	if ('answer' in turn && !(turn.answer === null && nullArgsAsAbsent))
		return {
			problem:
				'Your "actions" object also held an "answer": a reply either calls tools or answers. Send the calls now and the final answer in a later reply.',
		};
	const calls = turn.calls;
	if (!Array.isArray(calls))
		return {
			problem: `"calls" must be an array of {"tool":"<name>","args":{...}} objects, but it was ${describeType(calls)}.`,
		};
	if (calls.length === 0)
		return { problem: '"calls" was empty; list at least one call, or send a final answer.' };
	if (calls.length > maxCalls)
		return {
			problem: `"calls" held ${calls.length} calls; at most ${maxCalls} go in one reply. Send the first ${maxCalls}, the rest after their observations.`,
		};
	const requests: ToolCallRequest[] = [];
	for (const [index, call] of calls.entries()) {
		const checked = readCall(call, index, nullArgsAsAbsent);
		if ('problem' in checked) return checked;
		requests.push(checked.call);
	}
	// Only now, with every call an object: the index the scan counted is then the call's own.
	const duplicate = read.callDuplicate;
	if (duplicate)
		return {
			problem: `${capital(callLabel(duplicate.index))} had the key ${JSON.stringify(duplicate.key).slice(0, 40)} twice; write each key once.`,
		};
	return { calls: requests };
}

function readCall(
	call: unknown,
	index: number,
	nullArgsAsAbsent: boolean,
): { call: ToolCallRequest } | { problem: string } {
	const label = capital(callLabel(index));
	if (typeof call !== 'object' || call === null || Array.isArray(call))
		return {
			problem: `${label} must be an object {"tool":"<name>","args":{...}}, but it was ${describeType(call)}.`,
		};
	const fields = call as Record<string, unknown>;
	if ('type' in fields || 'answer' in fields) {
		const key = 'type' in fields ? 'type' : 'answer';
		return {
			problem:
				`${label} held "${key}": a call is only {"tool":"<name>","args":{...}}; ` +
				'a final answer goes alone, in a later reply.',
		};
	}
	if (typeof fields.tool !== 'string' || fields.tool.trim() === '')
		return {
			problem: `${label} needs "tool": the name of one of the listed tools, as a string.`,
		};
	const args =
		fields.args === undefined || (fields.args === null && nullArgsAsAbsent) ? {} : fields.args;
	if (typeof args !== 'object' || args === null || Array.isArray(args))
		return {
			problem: `${label}'s "args" must be a JSON object, but it was ${describeType(args)}.`,
		};
	return { call: { tool: fields.tool, args: args as Record<string, unknown> } };
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (value === undefined) return 'missing';
	if (Array.isArray(value)) return 'an array';
	return `a ${typeof value}`;
}
