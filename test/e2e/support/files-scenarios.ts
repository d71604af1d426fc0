// Issue #40 end to end: files posted to a real n8n reach the scripted model as file parts; only references are kept.
import { redisSessionKeys } from '../../../src/context/redis/redis-store';
import { sessionStoreKey } from '../../../src/context/session/session';
import { png, pdf, sha256 } from '../../support/files';
import { CHAT, e2eModel, lastUserMessageOf } from './model-script';
import {
	chatPath,
	filesWorkflows,
	MULTIPART_WEBHOOK_PATH,
	MULTIPART_CHAT_MODEL_PATH,
	UPLOAD_CHAT_WEBHOOK_ID,
	UPLOAD_CONTEXT_CHAT_WEBHOOK_ID,
} from './workflows/files-workflows';
import { useAgentCoreInN8n, type WebhookResponse } from './n8n-harness';
import { parseJsonOrUndefined } from './n8n-rest';
import type { AgentCoreInN8n } from './n8n-harness';

interface Upload {
	name: string;
	type: string;
	bytes: Buffer;
}

/** POSTs a multipart body (text fields, then each upload under `fileField`) to a production webhook. */
async function postForm(
	n8n: AgentCoreInN8n,
	webhookPath: string,
	fields: Record<string, string>,
	uploads: Upload[],
	fileField: string,
): Promise<WebhookResponse> {
	const form = new FormData();
	for (const [name, value] of Object.entries(fields)) form.append(name, value);
	for (const upload of uploads)
		form.append(fileField, new Blob([upload.bytes], { type: upload.type }), upload.name);
	const response = await fetch(n8n.n8n.webhookUrl(webhookPath), {
		method: 'POST',
		body: form,
		signal: AbortSignal.timeout(90000),
	});
	const text = await response.text();
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		text,
		body: parseJsonOrUndefined(text),
	};
}

/**
 * What n8n's chat widget (@n8n/chat, sendMessageWithFiles) posts to a Chat Trigger with uploads: the fields
 * action=sendMessage, sessionId and chatInput, and each file under `files`.
 */
const chatUpload = (
	n8n: AgentCoreInN8n,
	webhookId: string,
	sessionId: string,
	chatInput: string,
	uploads: Upload[],
) =>
	postForm(
		n8n,
		chatPath(webhookId),
		{ action: 'sendMessage', sessionId, chatInput },
		uploads,
		'files',
	);

/** The Chat Trigger registers with the Webhook the harness waits for, but poll it until it stops answering 404. */
export async function waitForChat(n8n: AgentCoreInN8n, webhookId: string): Promise<void> {
	const deadline = Date.now() + 60000;
	for (;;) {
		const response = await fetch(n8n.n8n.webhookUrl(chatPath(webhookId)), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'loadPreviousSession', sessionId: 'probe' }),
		});
		await response.text();
		if (response.status !== 404) return;
		if (Date.now() > deadline) throw new Error(`the Chat Trigger ${webhookId} never answered`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** Every value under a session's keys in Redis (lists, strings, hashes), as one text. */
async function sessionText(n8n: AgentCoreInN8n, sessionId: string): Promise<string> {
	const keys = redisSessionKeys(
		'',
		sessionStoreKey({ sessionId, keyPrefix: n8n.contextKeyPrefix }).key,
	);
	const client = n8n.redis.client;
	const values: string[] = [];
	for (const key of Object.values(keys)) {
		const type = await client.type(key);
		if (type === 'list') values.push(...(await client.lrange(key, 0, -1)));
		else if (type === 'string') values.push((await client.get(key)) ?? '');
		else if (type === 'hash') values.push(JSON.stringify(await client.hgetall(key)));
		else if (type === 'set') values.push(...(await client.smembers(key)));
		else if (type === 'zset') values.push(...(await client.zrange(key, 0, -1)));
	}
	return values.join('\n');
}

export function describeFilesInN8n(): void {
	describe('Files in n8n 2.41.1 (issue #40): uploads reach the model, only references are kept', () => {
		const get = useAgentCoreInN8n(2, e2eModel, { workflows: filesWorkflows(), examples: false });

		/** The model calls whose last user message contains `marker`. */
		const callsFor = (marker: string) =>
			get().model.requests.filter((request) => lastUserMessageOf(request).includes(marker));

		it("sends an image uploaded in the Chat Trigger's chat to the model as one image_url part, and keeps its reference only", async () => {
			await waitForChat(get(), UPLOAD_CHAT_WEBHOOK_ID);
			const image = png(64, 48);
			const prompt = `What is in this picture? (${get().uniqueId('upload')})`;
			const response = await chatUpload(
				get(),
				UPLOAD_CHAT_WEBHOOK_ID,
				get().uniqueId('upload-chat'),
				prompt,
				[{ name: 'cat.png', type: 'image/png', bytes: image }],
			);

			get().expectStatus(response, 200);
			expect(response.body).toMatchObject({ output: `Echo: ${prompt}`, finish_reason: 'final' });
			const calls = callsFor(prompt);
			expect(calls).toHaveLength(1);
			expect(calls[0].files).toEqual([
				expect.objectContaining({
					wire: 'image_url',
					type: 'image/png',
					bytes: image.length,
					sha256: sha256(image),
				}),
			]);
			expect(response.body.trace[0].files).toEqual([
				{ name: 'cat.png', type: 'image/png', bytes: image.length, sha256: sha256(image) },
			]);
			expect(response.text).not.toContain(image.toString('base64'));
			get().report(
				`chat upload: cat.png (${image.length} bytes) reached the model as image_url, sha256 ${sha256(image).slice(0, 12)}…`,
			);
		});

		it('sends a PDF posted to a Webhook as multipart to the model as one file part (Passthrough Binary PDFs on)', async () => {
			const document = pdf(2);
			const prompt = `Summarise the attached invoice. (${get().uniqueId('pdf')})`;
			const response = await postForm(
				get(),
				MULTIPART_WEBHOOK_PATH,
				{ prompt },
				[{ name: 'invoice.pdf', type: 'application/pdf', bytes: document }],
				'invoice',
			);

			get().expectStatus(response, 200);
			expect(response.body).toMatchObject({ final_answer: `Echo: ${prompt}` });
			const calls = callsFor(prompt);
			expect(calls).toHaveLength(1);
			expect(calls[0].files).toEqual([
				expect.objectContaining({
					wire: 'file',
					type: 'application/pdf',
					bytes: document.length,
					sha256: sha256(document),
				}),
			]);
			expect(response.body.trace[0].files).toEqual([
				{
					name: 'invoice.pdf',
					type: 'application/pdf',
					bytes: document.length,
					sha256: sha256(document),
				},
			]);
			expect(response.text).not.toContain(document.toString('base64'));
		});

		it('sends a multipart PDF through the OpenAI Chat Model sub-node whole, as one file part with an exact Content-Length', async () => {
			const document = pdf(2);
			const prompt = `Summarise this invoice. (${get().uniqueId('pdf-sub-node')})`;
			const response = await postForm(
				get(),
				MULTIPART_CHAT_MODEL_PATH,
				{ prompt },
				[{ name: 'invoice.pdf', type: 'application/pdf', bytes: document }],
				'invoice',
			);

			get().expectStatus(response, 200);
			expect(response.body).toMatchObject({ final_answer: `Echo: ${prompt}` });
			const [call, ...more] = callsFor(prompt);
			expect(more).toEqual([]);
			// n8n 2.41's OpenAI Chat Model (1.3) calls the Responses API: a PDF is its input_file part.
			expect(call.files).toEqual([
				expect.objectContaining({
					wire: 'input_file',
					name: 'invoice.pdf',
					bytes: document.length,
					sha256: sha256(document),
				}),
			]);
			// Streamed by Agent Core's fetch inside the class's client (src/providers/langchain/file-fetch.ts), never chunked.
			expect(call.headers['transfer-encoding']).toBeUndefined();
			expect(Number(call.headers['content-length'])).toBe(
				Buffer.byteLength(JSON.stringify(call.body)),
			);
			expect(JSON.stringify(call.body)).not.toContain('agent-core-file-');
		});

		it("keeps an uploaded image's reference in the Agent Context session on Redis, never its bytes, and the next turn reads the note", async () => {
			await waitForChat(get(), UPLOAD_CONTEXT_CHAT_WEBHOOK_ID);
			const image = png(32, 32);
			const hash = sha256(image);
			const sessionId = get().uniqueId('upload-context');
			const first = `${CHAT} Here is my cat. (${sessionId})`;
			const second = `${CHAT} What did I send you? (${sessionId})`;

			const firstResponse = await chatUpload(
				get(),
				UPLOAD_CONTEXT_CHAT_WEBHOOK_ID,
				sessionId,
				first,
				[{ name: 'cat.png', type: 'image/png', bytes: image }],
			);
			get().expectStatus(firstResponse, 200);
			expect(callsFor(first)).toHaveLength(1);
			expect(callsFor(first)[0].files).toEqual([
				expect.objectContaining({ wire: 'image_url', sha256: hash }),
			]);

			// Without files the widget posts JSON.
			const secondResponse = await get().post(chatPath(UPLOAD_CONTEXT_CHAT_WEBHOOK_ID), {
				action: 'sendMessage',
				sessionId,
				chatInput: second,
			});
			get().expectStatus(secondResponse, 200);

			const stored = await sessionText(get(), sessionId);
			expect(stored).toContain(hash);
			expect(stored).not.toContain(image.toString('base64'));
			const turns = await get().readTurns(sessionId);
			expect(turns).toHaveLength(2);
			expect(turns[0].messages[0]).toMatchObject({
				role: 'user',
				files: [{ name: 'cat.png', type: 'image/png', bytes: image.length, sha256: hash }],
			});

			const [call] = callsFor(second);
			expect(call.files).toEqual([]);
			const earlierUser = call.messages.find(
				(message) => message.role === 'user' && message.content.includes(first),
			);
			// The note names the hash by its first 12 hex digits.
			expect(earlierUser?.content).toBe(
				`${first}\n\n[File cat.png (image/png, ${image.length} bytes), sha256 ${hash.slice(0, 12)}…, ` +
					'was sent with this message; its content is not part of this request.]',
			);
			get().report(
				`agent context: session ${sessionId} holds cat.png's sha256 and no base64; turn 2 read the note`,
			);
		});
	});
}
