import { readObservation } from '../agent/protocol/prompt';
import type { ScriptedReply, ScriptedRequest } from './scripted-server';

/** The sample task `npm run demo` runs: a question over a small catalogue embedded in the prompt. */
export const DEMO_PROMPT = `Which products are in stock and cost less than 50 EUR? Catalogue: ${JSON.stringify(
	{
		items: [
			{ name: 'Desk lamp', price: 39.9, in_stock: true },
			{ name: 'Office chair', price: 189, in_stock: true },
			{ name: 'Notebook pack', price: 12.5, in_stock: false },
			{ name: 'USB-C hub', price: 44, in_stock: true },
		],
	},
)}`;

export const DEMO_EXPRESSION = 'items[?in_stock && price < `50`].name';

/**
 * A scripted stand-in for a model, so a newcomer sees a whole run without an API key: it follows the
 * protocol like a well-behaved model would — one json_transform call over the catalogue in the prompt,
 * then a final answer built from the observation it was sent.
 */
export function demoModel(request: ScriptedRequest): ScriptedReply {
	const last = request.messages[request.messages.length - 1]?.content ?? '';
	const observation = readObservation(last);
	if (observation?.tool === 'json_transform') {
		let names: unknown;
		try {
			names = JSON.parse(observation.text);
		} catch {
			names = observation.text;
		}
		const list = Array.isArray(names) ? names.join(' and ') : String(names);
		return JSON.stringify({ type: 'final', answer: `In stock and under 50 EUR: ${list}.` });
	}
	const catalogue = /Catalogue: (\{[\s\S]*\})\s*$/.exec(last);
	if (!catalogue) return JSON.stringify({ type: 'final', answer: DEMO_UNKNOWN_QUESTION });
	// A model asking for a tool it was not offered gets a refusal and no answer; say instead what to switch on.
	if (!offersTool(request, 'json_transform'))
		return JSON.stringify({ type: 'final', answer: DEMO_TOOL_NOT_ALLOWED });
	return JSON.stringify({
		type: 'action',
		tool: 'json_transform',
		args: { data: JSON.parse(catalogue[1]), expression: DEMO_EXPRESSION },
	});
}

/** The demo model's answer to anything but the catalogue question. */
export const DEMO_UNKNOWN_QUESTION =
	'The demo model answers only the catalogue question from the README; set an API key of a real provider in the credential to ask anything else.';

/** The demo model's answer to the catalogue question when json_transform is not allowed. */
export const DEMO_TOOL_NOT_ALLOWED =
	'json_transform is not in Allowed Tools: allow it to answer the catalogue question.';

/** True when the run's system message lists `tool` (buildSystemPrompt writes one "- <name>: …" line per allowed tool). */
function offersTool(request: ScriptedRequest, tool: string): boolean {
	const system = request.messages.find((message) => message.role === 'system')?.content ?? '';
	return system.split('\n').some((line) => line.startsWith(`- ${tool}: `));
}
