import { randomInt } from 'node:crypto';
import { DEMO_PROMPT } from '../../../src/demo/demo-model';
import { CHAT, NEVER_FINISHES, RECALL_QUESTION, promptOf } from './model-script';
import { WEBHOOKS, type AgentCoreInN8n, type WebhookResponse } from './n8n-harness';

/** What n8n's chat widget (@n8n/chat) posts to the Chat Trigger for one message. */
const chatMessage = (sessionId: string, chatInput: string) => ({
	action: 'sendMessage',
	sessionId,
	chatInput,
});

/** One line of n8n's streaming answer (NDJSON), as n8n-workflow types it. */
interface StreamChunk {
	type: 'begin' | 'item' | 'end' | 'error';
	content?: string;
	metadata?: { nodeName?: string };
}

function chunksOf(response: WebhookResponse): StreamChunk[] {
	return response.text
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) => JSON.parse(line) as StreamChunk);
}

/**
 * The chat example without Redis (Chat Trigger → Agent Core, examples/agent-core-simple-chat.json), as n8n's
 * chat widget drives it: the demo's catalogue question is answered in `output`, the field the widget shows.
 */
export async function simpleChatAnswersTheDemoQuestion(n8n: AgentCoreInN8n): Promise<void> {
	// Its own wording, so that the model calls of this run are told apart from the webhook example's.
	const question = DEMO_PROMPT.replace('?', '? (asked in the chat example)');
	const response = await n8n.post(
		WEBHOOKS.simpleChat,
		chatMessage(n8n.uniqueId('simple-chat'), question),
	);

	n8n.expectStatus(response, 200);
	expect(response.body).toMatchObject({
		output: 'In stock and under 50 EUR: Desk lamp and USB-C hub.',
		finish_reason: 'final',
		used_tools: { json_transform: { count: 1 } },
	});
}

/**
 * The same chat when the run ends without an answer (a model that calls a tool on every turn, until Max Steps):
 * `output`, what the widget shows, is one sentence saying why, so the chat never falls back to the item's JSON.
 */
export async function simpleChatSaysWhyThereIsNoAnswer(n8n: AgentCoreInN8n): Promise<void> {
	const response = await n8n.post(
		WEBHOOKS.simpleChat,
		chatMessage(n8n.uniqueId('simple-chat-limit'), `${NEVER_FINISHES} Count the turns.`),
	);

	n8n.expectStatus(response, 200);
	expect(response.body).toMatchObject({ finish_reason: 'max_steps', final_answer: '' });
	expect(response.body.output).toMatch(
		/^No answer: the agent used all \d+ of its Max (Steps \(Limits\)|Iterations \(Options\)); raise it\.$/,
	);
}

/**
 * The chat example (Chat Trigger → Agent Context prepare → Agent Core → Agent Context persist, all node
 * defaults for the chat fields) driven exactly as n8n's chat widget drives it, in last-node mode: the
 * widget shows `output` of the answer JSON; the second message is answered from the first.
 */
export async function chatWidgetConversation(n8n: AgentCoreInN8n): Promise<WebhookResponse[]> {
	const sessionId = n8n.uniqueId('chat-widget');
	const fact = `my parking spot is ${randomInt(100, 1000)}`;

	const first = await n8n.post(
		WEBHOOKS.chatTrigger,
		chatMessage(sessionId, `${CHAT} Please remember that ${fact}.`),
	);
	n8n.expectStatus(first, 200);
	expect(first.body).toMatchObject({
		output: `Noted: ${fact}.`,
		finish_reason: 'final',
		session_id: sessionId,
		context: { stored_turns: 1 },
	});

	const second = await n8n.post(WEBHOOKS.chatTrigger, chatMessage(sessionId, RECALL_QUESTION));
	n8n.expectStatus(second, 200);
	expect(second.body).toMatchObject({
		output: `You asked me to remember that ${fact}.`,
		session_id: sessionId,
		context: { stored_turns: 2 },
	});
	return [first, second];
}

/**
 * The same workflow with the Chat Trigger in streaming mode: NDJSON chunks, none of them an error, the
 * answer text arriving in Agent Core's `item` chunks, and the second message answered from the first.
 */
export async function streamingChatConversation(n8n: AgentCoreInN8n): Promise<void> {
	const sessionId = n8n.uniqueId('chat-stream');
	const fact = `my desk is number ${randomInt(100, 1000)}`;

	const first = await n8n.post(
		WEBHOOKS.chatTriggerStreaming,
		chatMessage(sessionId, `${CHAT} Please remember that ${fact}.`),
	);
	n8n.expectStatus(first, 200);
	const second = await n8n.post(
		WEBHOOKS.chatTriggerStreaming,
		chatMessage(sessionId, RECALL_QUESTION),
	);
	n8n.expectStatus(second, 200);

	for (const [response, answer] of [
		[first, `Noted: ${fact}.`],
		[second, `You asked me to remember that ${fact}.`],
	] as const) {
		const chunks = chunksOf(response);
		expect(chunks.filter((chunk) => chunk.type === 'error')).toEqual([]);
		const fromAgentCore = chunks.filter((chunk) => chunk.metadata?.nodeName === 'Agent Core');
		expect(fromAgentCore[0]?.type).toBe('begin');
		expect(fromAgentCore.at(-1)?.type).toBe('end');
		const text = fromAgentCore
			.filter((chunk) => chunk.type === 'item')
			.map((chunk) => chunk.content ?? '')
			.join('');
		expect(text.trim()).toBe(answer);
	}
	expect((await n8n.readTurns(sessionId)).map((turn) => turn.messages[1]?.content)).toEqual([
		`Noted: ${fact}.`,
		`You asked me to remember that ${fact}.`,
	]);
}

/**
 * A wrong API key fails Agent Core (On Model Error's default), so n8n's Retry On Fail runs it again (2
 * tries, one model call each: the adapter does not retry a 401), and then its error output answers the
 * webhook with the provider's 401 and message.
 */
export async function wrongApiKeyRetriedThenRoutedToErrorOutput(
	n8n: AgentCoreInN8n,
): Promise<WebhookResponse> {
	const prompt = `Wrong key ${n8n.uniqueId('wrong-key')}`;

	const response = await n8n.post(WEBHOOKS.wrongKey, { prompt });

	n8n.expectStatus(response, 400);
	expect(response.body).toEqual({
		error: expect.stringMatching(/^model call failed: 401 Incorrect API key provided/),
	});
	const calls = n8n.model.requests.filter((request) => promptOf(request) === prompt);
	expect(calls).toHaveLength(2);
	expect(calls.map((call) => call.headers.authorization)).toEqual([
		'Bearer e2e-wrong-key',
		'Bearer e2e-wrong-key',
	]);
	return response;
}
