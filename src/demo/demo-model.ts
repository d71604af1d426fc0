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
	const final = (answer: string) => JSON.stringify({ type: 'final', answer });
	if (!catalogue)
		return final(`${receivedFiles(request)}${DEMO_UNKNOWN_QUESTION}${earlierTurns(request)}`);
	// A model asking for a tool it was not offered gets a refusal and no answer; say instead what to switch on.
	if (!offersTool(request, 'json_transform')) return final(DEMO_TOOL_NOT_ALLOWED);
	let data: unknown;
	try {
		data = JSON.parse(catalogue[1]);
	} catch (error) {
		// A question pasted with shell escapes (\") is answered with the fix, never a failed call.
		return final(`${DEMO_MALFORMED_CATALOGUE} (${(error as Error).message})`);
	}
	return JSON.stringify({
		type: 'action',
		tool: 'json_transform',
		args: { data, expression: DEMO_EXPRESSION },
	});
}

/**
 * What the demo model says of the conversation before the question, so memory can be seen working without a key:
 * "I can see 2 earlier turns; your previous message was "…"." (observations and remembered tool results aside).
 */
function earlierTurns(request: ScriptedRequest): string {
	const earlier = request.messages
		.slice(0, -1)
		.filter((message) => message.role === 'user' && !readObservation(message.content));
	if (earlier.length === 0) return '';
	const previous = earlier[earlier.length - 1].content.replace(/\s+/g, ' ').trim();
	const excerpt = previous.length > 80 ? `${previous.slice(0, 80)}…` : previous;
	const turns = earlier.length === 1 ? '1 earlier turn' : `${earlier.length} earlier turns`;
	return ` I can see ${turns}; your previous message was "${excerpt}".`;
}

/**
 * What the demo model says of the files the call carried, so a newcomer sees an upload reach the model:
 * "I received invoice.pdf (application/pdf, 12 KB). " (an image part carries no file name on the wire: "an image
 * (image/png, 12 KB)").
 */
function receivedFiles(request: ScriptedRequest): string {
	const files = request.files ?? [];
	if (files.length === 0) return '';
	const size = (bytes: number) =>
		bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KB`;
	const listed = files.map(
		(file) =>
			`${file.name ?? (file.type.startsWith('image/') ? 'an image' : 'a file')} (${file.type || 'no declared type'}, ${size(file.bytes)})`,
	);
	const count = files.length === 1 ? '' : `${files.length} files: `;
	return `I received ${count}${listed.join(', ')}. `;
}

/** The demo model's answer to the catalogue question whose catalogue is not JSON (pasted with shell escapes, say). */
export const DEMO_MALFORMED_CATALOGUE =
	'The catalogue in your message is not valid JSON, so the demo model cannot read it: paste the question exactly as `npm run dev` prints it after "Ask:"';

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
