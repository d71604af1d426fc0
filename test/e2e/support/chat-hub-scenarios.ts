import { randomInt, randomUUID } from 'node:crypto';
import { CHAT, RECALL_QUESTION } from './model-script';
import { CHAT_HUB_WORKFLOW_IDS } from './workflows/derived-workflows';
import { parseJsonOrUndefined, type AgentCoreInN8n } from './n8n-harness';

/** The owner this suite signs up as; n8n's REST API (and so Chat Hub) wants a signed-in user. */
const OWNER = {
	email: 'owner@agent-core.example.com',
	firstName: 'Agent',
	lastName: 'Core',
	password: 'E2e-Owner-Password-1',
};
/** n8n binds its auth cookie to the browser-id header it was issued with. */
const BROWSER_ID = 'agent-core-e2e-browser';
/** How long a reply may take before the scenario gives up (a hang guard, not an assertion). */
const REPLY_WAIT_MS = 60000;

interface ChatHubMessage {
	id: string;
	type: string;
	content: unknown;
	status: string;
	previousMessageId: string | null;
}

/** n8n's REST API as the signed-in owner: the owner is set up on first use, signed in after that. */
class RestClient {
	private cookie = '';

	constructor(private readonly origin: string) {}

	async signIn(): Promise<void> {
		const setUp = await this.request('POST', '/rest/owner/setup', OWNER);
		if (setUp.status === 200) return;
		const signedIn = await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: OWNER.email,
			password: OWNER.password,
		});
		if (signedIn.status !== 200)
			throw new Error(
				`n8n refused the owner set-up (${setUp.status}: ${setUp.text}) and the sign-in (${signedIn.status}: ${signedIn.text})`,
			);
	}

	/** Chat Hub is off until an admin turns it on (Settings → Chat in the UI). */
	async enableChatHub(): Promise<void> {
		const enabled = await this.request('PUT', '/rest/chat/enabled', { enabled: true });
		if (enabled.status !== 200)
			throw new Error(`n8n refused to enable Chat Hub: HTTP ${enabled.status} ${enabled.text}`);
	}

	async request(
		method: 'GET' | 'POST' | 'PUT',
		path: string,
		body?: unknown,
	): Promise<{ status: number; text: string; body: any }> {
		const response = await fetch(`${this.origin}${path}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': BROWSER_ID,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(30000),
		});
		const issued = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
		if (issued) this.cookie = issued.split(';')[0];
		const text = await response.text();
		return { status: response.status, text, body: parseJsonOrUndefined(text) };
	}
}

/** Sends one message in a Chat Hub conversation with the workflow and waits for the AI message that answers it. */
async function sendAndWaitForReply(
	rest: RestClient,
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
	const rest = new RestClient(new URL(n8n.n8n.webhookUrl('')).origin);
	await rest.signIn();
	await rest.enableChatHub();
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
