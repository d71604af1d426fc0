import { randomInt, randomUUID } from 'node:crypto';
import { CHAT, RECALL_QUESTION } from './model-script';
import { CHAT_HUB_WORKFLOW_IDS } from './workflows/derived-workflows';
import { type AgentCoreInN8n } from './n8n-harness';
import { OwnerSession } from './n8n-rest';

/** How long a reply may take before the scenario gives up (a hang guard, not an assertion). */
const REPLY_WAIT_MS = 60000;

interface ChatHubMessage {
	id: string;
	type: string;
	content: unknown;
	status: string;
	previousMessageId: string | null;
}

/** Chat Hub is off until an admin turns it on (Settings → Chat in the UI). */
async function enableChatHub(owner: OwnerSession): Promise<void> {
	const enabled = await owner.request('PUT', '/rest/chat/enabled', { enabled: true });
	if (enabled.status !== 200)
		throw new Error(`n8n refused to enable Chat Hub: HTTP ${enabled.status} ${enabled.text}`);
}

/** Sends one message in a Chat Hub conversation with the workflow and waits for the AI message that answers it. */
async function sendAndWaitForReply(
	rest: OwnerSession,
	workflowId: string,
	sessionId: string,
	message: string,
	previousMessageId: string | null,
): Promise<ChatHubMessage> {
	const messageId = randomUUID();
	const sent = await rest.request('POST', '/rest/chat/conversations/send', {
		messageId,
		sessionId,
		message,
		model: { provider: 'n8n', workflowId },
		previousMessageId,
		credentials: {},
		attachments: [],
		timeZone: 'UTC',
	});
	if (sent.status !== 200)
		throw new Error(`Chat Hub refused the message: HTTP ${sent.status} ${sent.text}`);
	const deadline = Date.now() + REPLY_WAIT_MS;
	let last = '';
	while (Date.now() < deadline) {
		const conversation = await rest.request('GET', `/rest/chat/conversations/${sessionId}`);
		last = conversation.text;
		const messages = Object.values(
			(conversation.body?.data?.conversation?.messages ?? {}) as Record<string, ChatHubMessage>,
		);
		const reply = messages.find(
			(candidate) => candidate.type === 'ai' && candidate.previousMessageId === messageId,
		);
		if (reply && reply.status !== 'running' && reply.status !== 'waiting') return reply;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(
		`no finished Chat Hub reply to "${message}" within ${REPLY_WAIT_MS / 1000} s; last conversation: ${last.slice(0, 2000)}`,
	);
}

/** The text Chat Hub shows for a reply: its stored content is a list of typed parts. */
function shownText(reply: ChatHubMessage): string {
	if (typeof reply.content === 'string') return reply.content;
	return (reply.content as Array<{ type: string; content?: string }>)
		.filter((part) => part.type === 'text')
		.map((part) => part.content ?? '')
		.join('');
}

/**
 * n8n 2.x Chat Hub with the chat example as its "model" (Chat Trigger available in Chat, in `responseMode`):
 * Chat Hub starts the workflow with { sessionId, action, chatInput } and shows `output` of the last item
 * (last-node mode) or the streamed item chunks; the second message is answered from the first, kept by
 * Agent Context under Chat Hub's session id.
 */
export async function chatHubConversation(
	n8n: AgentCoreInN8n,
	responseMode: keyof typeof CHAT_HUB_WORKFLOW_IDS,
): Promise<void> {
	const rest = new OwnerSession(n8n.n8n.baseUrl);
	await rest.signIn();
	await enableChatHub(rest);
	const workflowId = CHAT_HUB_WORKFLOW_IDS[responseMode];
	const sessionId = randomUUID();
	const fact = `my bike lock code is ${randomInt(1000, 10000)}`;

	const first = await sendAndWaitForReply(
		rest,
		workflowId,
		sessionId,
		`${CHAT} Please remember that ${fact}.`,
		null,
	);
	expect({ status: first.status, text: shownText(first).trim() }).toEqual({
		status: 'success',
		text: `Noted: ${fact}.`,
	});

	const second = await sendAndWaitForReply(rest, workflowId, sessionId, RECALL_QUESTION, first.id);
	expect({ status: second.status, text: shownText(second).trim() }).toEqual({
		status: 'success',
		text: `You asked me to remember that ${fact}.`,
	});
	expect(await n8n.readTurns(sessionId)).toHaveLength(2);
}
