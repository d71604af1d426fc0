'use strict';
/**
 * bench/lookups.js's job (issue #42): three lookups in one request — total the in-stock prices of three
 * catalogues, one Calculator call each — shared by the load client (prompts, expected answers) and the model
 * server (bench/webhook/model-server.js started with `lookups`, which plays the model with the replies below).
 *
 * - n8n's AI Agent: one reply with three native `tool_calls`, then the answer;
 * - Agent Core, when its system prompt offers `{"type":"actions",…}` (Max Parallel Tool Calls > 1): one
 *   `actions` reply with the three calls, then the final answer;
 * - Agent Core at Max Parallel Tool Calls 1: three single actions, then the final answer.
 * The answer quotes the three results and the request's tag, so a correct body proves all three calls ran.
 */
const {
	readBatchObservations,
	readObservation,
} = require('../../dist/src/agent/protocol/prompt.js');
const { tagOf } = require('./scenario');

const CATALOGUES = [
	{ name: 'garden', expression: '39 + 189 + 44', total: '272' },
	{ name: 'kitchen', expression: '15 + 27 + 8', total: '50' },
	{ name: 'office', expression: '120 + 75', total: '195' },
];
/** Model calls per run: AI Agent and Agent Core (4) ask for the three calls in one reply; Agent Core (1) in three. */
const MODEL_CALLS = { batch: 2, single: 4 };

function promptFor(requestNumber) {
	const items = CATALOGUES.map(
		({ name, expression }) =>
			`${name}: ${JSON.stringify(expression.split(' + ').map((price) => ({ price: Number(price), in_stock: true })))}`,
	);
	return `[request ${requestNumber}] Total the in-stock prices of each catalogue, one sum per catalogue. ${items.join('; ')}`;
}

/** The answer once the tool returned `totals` (one per catalogue, in order). */
function answerFor(tag, totals) {
	const parts = CATALOGUES.map(({ name }, index) => `${name} ${String(totals[index]).trim()}`);
	return `In-stock totals in EUR: ${parts.join(', ')} ${tag}.`;
}

const expectedAnswer = (requestNumber) =>
	answerFor(
		tagOf(promptFor(requestNumber)),
		CATALOGUES.map(({ total }) => total),
	);

const argsFor = (takesInput, index) =>
	takesInput
		? { input: CATALOGUES[index].expression }
		: { expression: CATALOGUES[index].expression };

/** The observations of one batch message, in call order (src/agent/protocol/prompt.ts reads the message). */
const batchObservations = (message) =>
	(readBatchObservations(String(message ?? '')) ?? []).map((call) => call.text);

/**
 * Agent Core's side. `tool` is the one tool its system message lists; `turns` how many assistant replies came
 * before; `messages` the conversation. Returns the reply text, or undefined when the call is not one the
 * script expects (the server then answers "unexpected call" and counts it).
 */
function protocolReply({ messages, tool, turns, tag }) {
	const batch = /"type":"actions"/.test(String(messages[0]?.content ?? ''));
	const call = (index) => ({ tool: tool.name, args: argsFor(tool.takesInput, index) });
	if (batch) {
		if (turns === 0)
			return JSON.stringify({ type: 'actions', calls: CATALOGUES.map((_, index) => call(index)) });
		if (turns !== 1) return undefined;
		const totals = batchObservations(messages[messages.length - 1]?.content);
		return JSON.stringify({ type: 'final', answer: answerFor(tag, totals) });
	}
	if (turns < CATALOGUES.length) return JSON.stringify({ type: 'action', ...call(turns) });
	if (turns !== CATALOGUES.length) return undefined;
	const totals = messages
		.filter((message) => message.role === 'user')
		.map((message) => readObservation(String(message.content ?? ''))?.text)
		.filter((text) => text !== undefined);
	return JSON.stringify({ type: 'final', answer: answerFor(tag, totals) });
}

/**
 * n8n's AI Agent's side: the three native tool calls in one reply, then the answer from the three `tool`
 * messages. `readResult` turns n8n's tool message (`[{"response":"272"}]`) into the value.
 */
function nativeReply({ tool, toolMessages, tag, nextId, readResult }) {
	if (toolMessages.length === 0) {
		const takesInput = tool.parameters?.properties?.input !== undefined;
		return {
			role: 'assistant',
			content: null,
			refusal: null,
			tool_calls: CATALOGUES.map((_, index) => ({
				id: `call_${nextId()}`,
				type: 'function',
				function: { name: tool.name, arguments: JSON.stringify(argsFor(takesInput, index)) },
			})),
		};
	}
	if (toolMessages.length !== CATALOGUES.length) return undefined;
	return {
		role: 'assistant',
		content: answerFor(
			tag,
			toolMessages.map((message) => readResult(message.content)),
		),
		refusal: null,
	};
}

module.exports = {
	CATALOGUES,
	MODEL_CALLS,
	promptFor,
	answerFor,
	expectedAnswer,
	batchObservations,
	protocolReply,
	nativeReply,
};
