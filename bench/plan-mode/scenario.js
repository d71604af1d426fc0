'use strict';
/**
 * bench/plan-mode.js's job (issue #51): a three-step dependent job — find the customer by e-mail, find their
 * last order by the customer's id, refund it by the order's id — shared by the runs (tools, prompts, expected
 * answers) and the scripted model (the replies below).
 *
 * - ReAct (step by step): three single actions, each using the value the previous observation returned, then
 *   the final answer: 4 model calls.
 * - Plan mode: one plan whose steps 2 and 3 read steps 1 and 2 through references, then the final answer
 *   built from the steps' observations: 2 model calls.
 * The tools have the shapes of test/agent/plan/plan-mode.test.ts's shopTools (one string property each,
 * refund with side effects). Every request has its own e-mail, so the ids differ per request and the answer
 * (the refunded order's id and amount) proves that the three tools ran on the values the earlier ones returned.
 */
const {
	readBatchObservations,
	readObservation,
} = require('../../dist/src/agent/protocol/prompt.js');

const TOOL_NAMES = ['find_customer', 'last_order', 'refund'];
const MODEL_CALLS = { react: 4, plan: 2 };
const EMAIL = /\b(customer-\d+@example\.com)\b/;

const emailFor = (requestNumber) => `customer-${requestNumber}@example.com`;
const promptFor = (requestNumber) =>
	`Refund the last order of the customer ${emailFor(requestNumber)}, then tell me what was refunded.`;
const customerIdOf = (email) => `cust-${EMAIL.exec(email)?.[1].replace(/\D/g, '') ?? 'unknown'}`;

/** What the three tools return: plain functions, so that the engine's extraTools and n8n's tools answer alike. */
const answers = {
	find_customer: ({ email }) => ({
		customer: { id: customerIdOf(email), email, name: 'Ann Example', tier: 'gold' },
	}),
	last_order: ({ customer_id }) => ({
		orders: [
			{ id: `order-${customer_id}-7`, total: 42.5, currency: 'EUR', placed_at: '2026-11-30' },
		],
	}),
	refund: ({ order_id }) => ({
		refund: { order_id, amount: 42.5, currency: 'EUR', status: 'refunded' },
	}),
};

const DESCRIPTIONS = {
	find_customer: 'Finds a customer by e-mail address; returns {customer:{id,email,name,tier}}.',
	last_order:
		"Lists a customer's orders, newest first; returns {orders:[{id,total,currency,placed_at}]}.",
	refund: 'Refunds an order in full; returns {refund:{order_id,amount,currency,status}}.',
};
const PROPERTIES = { find_customer: 'email', last_order: 'customer_id', refund: 'order_id' };

/** The three tools for runAgent's extraTools; `arrived` collects what each was called with. */
function shopTools() {
	const arrived = [];
	const tools = TOOL_NAMES.map((name) => ({
		name,
		description: DESCRIPTIONS[name],
		parameters: {
			type: 'object',
			properties: { [PROPERTIES[name]]: { type: 'string', minLength: 1 } },
			required: [PROPERTIES[name]],
			additionalProperties: false,
		},
		sideEffects: name === 'refund',
		async execute(args) {
			arrived.push({ tool: name, args });
			return answers[name](args);
		},
	}));
	return { tools, arrived };
}

/** The calls the tools must receive for request `requestNumber`, in order. */
function expectedCalls(requestNumber) {
	const email = emailFor(requestNumber);
	const customerId = customerIdOf(email);
	const orderId = answers.last_order({ customer_id: customerId }).orders[0].id;
	return [
		{ tool: 'find_customer', args: { email } },
		{ tool: 'last_order', args: { customer_id: customerId } },
		{ tool: 'refund', args: { order_id: orderId } },
	];
}

const answerFor = (refund) =>
	`Refunded order ${refund.order_id}: ${refund.amount} ${refund.currency}, status ${refund.status}.`;
const expectedAnswer = (requestNumber) =>
	answerFor(answers.refund(expectedCalls(requestNumber)[2].args).refund);

const action = (tool, args) => JSON.stringify({ type: 'action', tool, args });
const final = (answer) => JSON.stringify({ type: 'final', answer });
const jsonOf = (text) => {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
};

function planReply(email) {
	const step = (number, description, tool, args) => ({ step: number, description, tool, args });
	return JSON.stringify({
		type: 'plan',
		steps: [
			step(1, 'Find the customer', 'find_customer', { email }),
			step(2, 'Find their last order', 'last_order', {
				customer_id: { $step: 1, pointer: '/customer/id' },
			}),
			step(3, 'Refund it', 'refund', { order_id: { $step: 2, pointer: '/orders/0/id' } }),
		],
	});
}

/**
 * The model's reply to one Agent Core request, or undefined when the call is not one the script expects.
 * The mode is read from the messages (plan mode's first system message holds the plan form, and its answer call
 * holds the plan the model sent), the position from the assistant replies so far, and each action's value from
 * the observation the engine sent last.
 */
function reply(messages) {
	const planned = isPlanMode(messages);
	const email = EMAIL.exec(
		String(messages.find((message) => message.role === 'user')?.content ?? ''),
	)?.[1];
	const turns = messages.filter((message) => message.role === 'assistant').length;
	const last = String(messages[messages.length - 1]?.content ?? '');
	if (!email) return undefined;
	if (planned) {
		if (turns === 0) return planReply(email);
		const refund = (readBatchObservations(last) ?? []).find((call) => call.tool === 'refund');
		const result = refund && jsonOf(refund.text)?.refund;
		return turns === 1 && result ? final(answerFor(result)) : undefined;
	}
	if (turns === 0) return action('find_customer', { email });
	const observed = readObservation(last);
	const result = observed && jsonOf(observed.text);
	if (turns === 1 && observed?.tool === 'find_customer' && result?.customer?.id)
		return action('last_order', { customer_id: result.customer.id });
	if (turns === 2 && observed?.tool === 'last_order' && result?.orders?.[0]?.id)
		return action('refund', { order_id: result.orders[0].id });
	if (turns === 3 && observed?.tool === 'refund' && result?.refund)
		return final(answerFor(result.refund));
	return undefined;
}

/** Whether a request is plan mode's: the plan form in its system message, or a plan among its replies. */
function isPlanMode(messages) {
	return messages.some((message) => String(message.content ?? '').includes('"type":"plan"'));
}

module.exports = {
	isPlanMode,
	TOOL_NAMES,
	MODEL_CALLS,
	DESCRIPTIONS,
	PROPERTIES,
	answers,
	shopTools,
	promptFor,
	expectedCalls,
	expectedAnswer,
	reply,
};
