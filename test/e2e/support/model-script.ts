import { readObservation } from '../../../src/agent/protocol/prompt';
import { demoModel } from '../../../src/demo/demo-model';
import type { ScriptedReply, ScriptedRequest } from '../../../src/demo/scripted-server';

/** The API key of the credential the suites import; any other key is refused with HTTP 401. */
export const VALID_API_KEY = 'e2e-key';

/** A prompt containing this marker gets a model that calls a tool on every turn and never answers. */
export const NEVER_FINISHES = '[never-finishes]';

/**
 * A prompt with this marker makes every model but FALLBACK_MODEL answer HTTP 500 once the tool step is
 * behind it, so that the chat model example's Fallback Model sub-node has to finish the run.
 */
export const PRIMARY_FAILS_AFTER_TOOL = '[primary fails after the tool]';
/** The model of the chat model example's Fallback Model sub-node (examples/agent-core-chat-model.json). */
export const FALLBACK_MODEL = 'gemini-2.5-flash';

/** A user message containing this marker is a conversation turn: the model answers from the history it was sent. */
export const CHAT = '[chat]';

/** `[chat] … remember that <fact>` is answered `Noted: <fact>.` */
const REMEMBER = /remember that (.+?)\.?$/i;
/** `[chat] What did I ask you to remember?` is answered from the `Noted: …` replies in the history sent. */
export const RECALL_QUESTION = `${CHAT} What did I ask you to remember?`;
const NOTED = /^Noted: (.+)\.$/;

/** `What is <a> plus <b>?` makes the model call the add_numbers workflow tool and answer from its result. */
const ADD_NUMBERS = /What is (-?\d+(?:\.\d+)?) plus (-?\d+(?:\.\d+)?)\?/;

/** `Fetch <url>` makes the model call http_request with that URL and answer with the body it got. */
const FETCH = /^Fetch (https?:\/\/\S+)$/;

/** `[invoice] <JSON with currency and lines>` makes the model sum the lines with json_transform and answer typed. */
export const INVOICE = /^\[invoice\] (\{.*\})$/;

/** `Tell the team: <text>` makes the model post <text> with feishu_bot, then confirm. */
const NOTIFY = /^Tell the team: (.+)$/;

/**
 * The API key a request carries, wherever its provider's SDK puts it: `Authorization: Bearer` (OpenAI,
 * Ollama), `x-api-key` (Anthropic) or `x-goog-api-key` (Gemini).
 */
function apiKeyOf(request: ScriptedRequest): string | undefined {
	const { authorization, 'x-api-key': anthropicKey, 'x-goog-api-key': geminiKey } = request.headers;
	const bearer = /^Bearer (.*)$/.exec(authorization ?? '')?.[1];
	return bearer ?? [anthropicKey, geminiKey].flat().find((key) => key !== undefined);
}

/** The prompt of the run a request belongs to: its first user message. */
export function promptOf(request: ScriptedRequest): string {
	return request.messages.find((message) => message.role === 'user')?.content ?? '';
}

/** The message a request asks the model to answer: its last user message. */
export function lastUserMessageOf(request: ScriptedRequest): string {
	return [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
}

/** What the scripted model answers to a conversation turn it was not asked to remember or recall. */
export function chatReply(userMessage: string, earlierMessages: number): string {
	return `Reply to "${userMessage}" after ${earlierMessages} earlier messages`;
}

/**
 * One stateless script for every scenario, so requests from several runs can arrive in any order: the
 * reply is chosen from the request's messages alone.
 * - a last user message with CHAT: a conversation turn (see `conversationTurn`);
 * - a prompt with NEVER_FINISHES: a json_transform call, every turn;
 * - "What is <a> plus <b>?": a call of the add_numbers workflow tool, then an answer from its observation;
 * - "Fetch <url>": an http_request call of that URL (again after an error), then "Fetched: <body>";
 * - "Tell the team: <text>": a feishu_bot call posting <text>, then "Sent to the team: <text>";
 * - a prompt with PRIMARY_FAILS_AFTER_TOOL: HTTP 500 after the tool step from any model but FALLBACK_MODEL,
 *   otherwise as without it;
 * - "[invoice] <JSON>": a json_transform call summing its lines, then the typed answer {total, currency, lines};
 * - the demo's catalogue question: the demo model (one json_transform call, then an answer from its result);
 * - anything else: the final answer "Echo: <prompt>".
 * A request without the valid API key (in its provider's header) gets HTTP 401 before any of that.
 */
export function e2eModel(request: ScriptedRequest): ScriptedReply {
	// As OpenAI answers a wrong key: HTTP 401 with its invalid_api_key message.
	if (apiKeyOf(request) !== VALID_API_KEY) {
		return {
			status: 401,
			errorMessage:
				'Incorrect API key provided: e2e-wr*****ey. You can find your API key at https://platform.openai.com/account/api-keys.',
		};
	}
	const prompt = promptOf(request);
	const last = request.messages[request.messages.length - 1]?.content ?? '';
	if (lastUserMessageOf(request).includes(CHAT)) return final(conversationTurn(request));
	if (
		prompt.includes(PRIMARY_FAILS_AFTER_TOOL) &&
		request.model !== FALLBACK_MODEL &&
		last.startsWith('Observation from ')
	) {
		return { status: 500, errorMessage: 'The server had an error processing your request.' };
	}
	if (prompt.includes(NEVER_FINISHES)) {
		return JSON.stringify({
			type: 'action',
			tool: 'json_transform',
			args: { data: { turns: request.messages.length }, expression: 'turns' },
		});
	}
	const observation = readObservation(last);
	if (observation?.tool === 'add_numbers') {
		try {
			const { sum, expression } = JSON.parse(observation.text);
			return final(`The sum is ${sum} (${expression}, from add_numbers).`);
		} catch {
			return final(`add_numbers did not return a result: ${observation.text}`);
		}
	}
	const notify = NOTIFY.exec(prompt);
	if (notify && observation?.tool === 'feishu_bot') return final(`Sent to the team: ${notify[1]}`);
	if (notify)
		return JSON.stringify({ type: 'action', tool: 'feishu_bot', args: { text: notify[1] } });
	// http_request's observation: a status line, then the body.
	if (observation?.tool === 'http_request')
		return final(`Fetched: ${observation.text.slice(observation.text.indexOf('\n') + 1)}`);
	const invoice = INVOICE.exec(prompt);
	if (invoice && observation?.tool === 'json_transform') {
		const { currency, lines } = JSON.parse(invoice[1]);
		return JSON.stringify({
			type: 'final',
			answer: { total: JSON.parse(observation.text), currency, lines: lines.length },
		});
	}
	if (invoice)
		return JSON.stringify({
			type: 'action',
			tool: 'json_transform',
			args: { data: JSON.parse(invoice[1]), expression: 'sum(lines)' },
		});
	const fetch = FETCH.exec(prompt);
	if (fetch)
		return JSON.stringify({ type: 'action', tool: 'http_request', args: { url: fetch[1] } });
	const addition = ADD_NUMBERS.exec(prompt);
	if (addition)
		return JSON.stringify({
			type: 'action',
			tool: 'add_numbers',
			args: { a: Number(addition[1]), b: Number(addition[2]) },
		});
	if (prompt.includes('Catalogue:')) return demoModel(request);
	return final(`Echo: ${prompt}`);
}

/**
 * A conversation turn, answered only from what the request carries (history + new message):
 * "… remember that X" → "Noted: X."; RECALL_QUESTION → every fact noted earlier in the history, or that
 * there is none; anything else → `chatReply` (which names the message and how much history came with it).
 */
function conversationTurn(request: ScriptedRequest): string {
	const history = request.messages.filter((message) => message.role !== 'system');
	const userMessage = history[history.length - 1]?.content ?? '';
	const earlier = history.slice(0, -1);
	const remember = REMEMBER.exec(userMessage);
	if (remember) return `Noted: ${remember[1]}.`;
	if (userMessage === RECALL_QUESTION) {
		const facts = earlier
			.filter((message) => message.role === 'assistant')
			.flatMap((message) => NOTED.exec(answerOf(message.content))?.[1] ?? []);
		return facts.length
			? `You asked me to remember that ${facts.join(' and that ')}.`
			: 'You have not asked me to remember anything.';
	}
	return chatReply(userMessage, earlier.length);
}

/** Earlier answers come back as the final object they were (`{"type":"final","answer":…}`), as the engine replays them. */
function answerOf(assistantContent: string): string {
	try {
		const reply = JSON.parse(assistantContent);
		if (reply?.type === 'final' && typeof reply.answer === 'string') return reply.answer;
	} catch {
		// Plain text.
	}
	return assistantContent;
}

function final(answer: string): string {
	return JSON.stringify({ type: 'final', answer });
}
