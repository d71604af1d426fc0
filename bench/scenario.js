'use strict';
/**
 * The one task every contender runs: nine calls of a trivial `add` tool, then a final answer, i.e. ten model
 * calls and nine tool executions per run. Shared by the client side and the model servers so that both
 * agree on the script.
 */

const MODEL_CALLS_PER_RUN = 10;
const TOOL_CALLS_PER_RUN = MODEL_CALLS_PER_RUN - 1;
const MODEL_ID = 'bench-model';
const PROMPT =
	'Add the numbers 1 to 9 with the add tool, one call each, then report that you are done.';
const FINAL_ANSWER = 'Done: called add nine times.';

/** The JSON Schema of the tool's args, as Agent Core and the bare loop see it. */
const ADD_PARAMETERS = {
	type: 'object',
	properties: { value: { type: 'integer' } },
	required: ['value'],
};
const ADD_DESCRIPTION = 'Adds one to an integer and returns the sum.';
/**
 * The API key every client sends, as long as a real one: Agent Core redacts a known secret in every
 * spelling from all it outputs, and a key shorter than 6 characters would be ignored and cost nothing.
 */
const BENCH_API_KEY = 'sk-bench-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';

/** Executions of the tool in this process, so each contender can prove it really ran the tool. */
let toolExecutions = 0;

/** The tool body every contender wraps: instant and allocation-light, so the numbers are the frameworks'. */
async function add({ value }) {
	toolExecutions++;
	return { sum: value + 1 };
}

/** The text reply of the Action/Final protocol for the call at `index` (0-based) of a run. */
function protocolReply(index) {
	return index < TOOL_CALLS_PER_RUN
		? JSON.stringify({ type: 'action', tool: 'add', args: { value: index + 1 } })
		: JSON.stringify({ type: 'final', answer: FINAL_ANSWER });
}

module.exports = {
	MODEL_CALLS_PER_RUN,
	TOOL_CALLS_PER_RUN,
	MODEL_ID,
	PROMPT,
	FINAL_ANSWER,
	ADD_PARAMETERS,
	ADD_DESCRIPTION,
	BENCH_API_KEY,
	add,
	toolExecutions: () => toolExecutions,
	protocolReply,
};
