'use strict';
/**
 * The one job both agents do in bench/webhook.js, shared by the load client (which builds the prompts and
 * checks the answers) and the model server (which plays the model): total the prices of the in-stock items
 * of a small catalogue with the agent's one tool, then answer.
 *
 * Both agents have the same one tool, n8n's Calculator sub-node, so that the comparison is of the agents:
 * - Agent Core: one protocol action `calculator` with the sum written out, then a final answer;
 * - n8n's AI Agent: one native tool call of `calculator` with the same sum, then a text answer.
 *
 * The tool returns "272", and the answer quotes the tool's output and the request's tag, so a correct
 * body proves that the tool ran and that the answer belongs to the request that asked.
 */

const MODEL_ID = 'gpt-4o-mini';
/** What the model server waits before every answer. */
const MODEL_DELAY_MS = 200;
/** Model calls per agent run: the tool call, then the answer. */
const MODEL_CALLS_PER_RUN = 2;

const CATALOGUE = {
	items: [
		{ name: 'Desk lamp', price: 39, in_stock: true },
		{ name: 'Office chair', price: 189, in_stock: true },
		{ name: 'Notebook pack', price: 12.5, in_stock: false },
		{ name: 'USB-C hub', price: 44, in_stock: true },
	],
};
/** Integer prices keep the tool's result exact ("272"), with no floating-point tail. */
const EXPECTED_TOTAL = '272';
const CALCULATOR_EXPRESSION = '39 + 189 + 44';
/** The same task text for both agents: Agent Core's "Instructions", the AI Agent's system message. */
const INSTRUCTIONS =
	'Answer questions about the catalogue in the message. Compute totals with your tool instead of adding numbers yourself.';

const TAG = /\[request (\d+)\]/;

/** The prompt of one webhook request; the tag ties the answer to it. */
function promptFor(requestNumber) {
	return `[request ${requestNumber}] What do the in-stock items cost in total? Catalogue: ${JSON.stringify(CATALOGUE)}`;
}

/** The tag of a prompt, e.g. "[request 17]", or undefined. */
function tagOf(text) {
	const match = TAG.exec(String(text ?? ''));
	return match ? match[0] : undefined;
}

/** The final answer the model gives once the tool returned `total`. */
function answerFor(tag, total) {
	return `The in-stock items cost ${String(total).trim()} EUR in total ${tag}.`;
}

module.exports = {
	MODEL_ID,
	MODEL_DELAY_MS,
	MODEL_CALLS_PER_RUN,
	CATALOGUE,
	EXPECTED_TOTAL,
	CALCULATOR_EXPRESSION,
	INSTRUCTIONS,
	promptFor,
	tagOf,
	answerFor,
};
