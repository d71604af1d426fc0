import { randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHAT, RECALL_QUESTION, lastUserMessageOf, promptOf } from './model-script';
import { SECRET as FEISHU_SECRET, TOKEN as FEISHU_TOKEN } from '../../support/servers/feishu';
import {
	HTTP_TOOL_HEADER,
	WEBHOOKS,
	type AgentCoreInN8n,
	type WebhookResponse,
} from './n8n-harness';

/**
 * Scenarios shared by the single-process suites and the queue-mode suite: each drives the example
 * workflows through their webhooks, asserts what a caller and Redis see, and returns the responses so that
 * queue mode can add which worker ran each execution (`execution_id` in the chat example's answer).
 */

const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });

/** Two turns of one session: the second answer can only be built from the first turn, stored in Redis. */
export async function twoTurnConversation(n8n: AgentCoreInN8n): Promise<WebhookResponse[]> {
	const sessionId = n8n.uniqueId('two-turns');
	const fact = `my locker code is ${randomInt(1000, 10000)}`;
	const request = `${CHAT} Please remember that ${fact}.`;

	const first = await n8n.post(WEBHOOKS.chat, { session_id: sessionId, prompt: request });
	n8n.expectStatus(first, 200);
	expect(first.body).toMatchObject({
		final_answer: `Noted: ${fact}.`,
		finish_reason: 'final',
		session_id: sessionId,
		history_turns: 0,
		stored_turns: 1,
	});

	const second = await n8n.post(WEBHOOKS.chat, { session_id: sessionId, prompt: RECALL_QUESTION });
	n8n.expectStatus(second, 200);
	expect(second.body).toMatchObject({
		final_answer: `You asked me to remember that ${fact}.`,
		finish_reason: 'final',
		history_turns: 1,
		stored_turns: 2,
	});

	// The model was sent the first turn, as Agent Context loaded it from Redis (the answer replayed as the
	// final object it was), before the new question.
	const sent = n8n.model.requests.filter(
		(call) => lastUserMessageOf(call) === RECALL_QUESTION && promptOf(call) === request,
	);
	expect(sent).toHaveLength(1);
	expect(sent[0].messages.filter((message) => message.role !== 'system')).toEqual([
		user(request),
		assistant(JSON.stringify({ type: 'final', answer: `Noted: ${fact}.` })),
		user(RECALL_QUESTION),
	]);
	// Each stored turn is numbered in its session (issue #31).
	expect(await n8n.readTurns(sessionId)).toEqual([
		{ seq: 1, messages: [user(request), assistant(`Noted: ${fact}.`)], at: expect.any(String) },
		{
			seq: 2,
			messages: [user(RECALL_QUESTION), assistant(`You asked me to remember that ${fact}.`)],
			at: expect.any(String),
		},
	]);
	return [first, second];
}

/**
 * `count` webhook calls on one session at once: every call is answered from its own message, and the
 * session's Redis list ends with exactly one intact turn per call (its message and its answer, adjacent),
 * none lost or duplicated; each persist's atomic append saw a different list length.
 */
export async function concurrentTurnsOnOneSession(
	n8n: AgentCoreInN8n,
	count: number,
): Promise<WebhookResponse[]> {
	const sessionId = n8n.uniqueId('concurrent');
	const prompts = Array.from(
		{ length: count },
		(_, index) => `${CHAT} message ${index + 1} of ${count} in ${sessionId}`,
	);

	const responses = await Promise.all(
		prompts.map((prompt) => n8n.post(WEBHOOKS.chat, { session_id: sessionId, prompt })),
	);

	for (const response of responses) n8n.expectStatus(response, 200);
	const answers = new Map(
		prompts.map((prompt, index) => [prompt, responses[index].body.final_answer as string]),
	);
	for (const [prompt, answer] of answers) {
		expect(answer).toMatch(/^Reply to ".*" after \d+ earlier messages$/);
		expect(answer.startsWith(`Reply to "${prompt}" after`)).toBe(true);
	}
	expect(responses.map((response) => response.body.stored_turns).sort((a, b) => a - b)).toEqual(
		prompts.map((_, index) => index + 1),
	);

	const turns = await n8n.readTurns(sessionId);
	expect(turns).toHaveLength(count);
	for (const turn of turns) {
		const [request] = turn.messages;
		expect(turn.messages).toEqual([
			user(request.content),
			assistant(answers.get(request.content) ?? `(no call sent "${request.content}")`),
		]);
	}
	expect(turns.map((turn) => turn.messages[0].content).sort()).toEqual([...prompts].sort());
	return responses;
}

/**
 * Agent Core calls the add_numbers workflow tool: the sub-workflow (Execute Workflow Trigger → Set) runs
 * with the validated arguments, and its output is the observation the answer is built from.
 */
export async function workflowToolRoundTrip(n8n: AgentCoreInN8n): Promise<WebhookResponse> {
	const a = randomInt(100, 1000);
	const b = randomInt(100, 1000);
	const prompt = `What is ${a} plus ${b}?`;
	const expression = `${a} + ${b} = ${a + b}`;

	const response = await n8n.post(WEBHOOKS.workflowTool, { prompt });

	n8n.expectStatus(response, 200);
	expect(response.body).toMatchObject({
		final_answer: `The sum is ${a + b} (${expression}, from add_numbers).`,
		finish_reason: 'final',
		used_tools: {
			add_numbers: {
				count: 1,
				total_ms: expect.any(Number),
				avg_ms: expect.any(Number),
				failures: 0,
			},
		},
	});
	expect(response.body.trace).toHaveLength(2);
	expect(response.body.trace[0]).toMatchObject({
		step: 1,
		action: { tool: 'add_numbers', args: { a, b } },
		observation: JSON.stringify({ sum: a + b, expression }),
	});
	const calls = n8n.model.requests.filter((call) => promptOf(call) === prompt);
	expect(calls).toHaveLength(2);
	// The tool was offered with the name and description from the panel.
	expect(calls[0].messages[0]).toMatchObject({
		role: 'system',
		content: expect.stringContaining('add_numbers'),
	});
	expect(calls[0].messages[0].content).toContain('Adds two numbers exactly');
	return response;
}

export interface LoopbackApi {
	url: string;
	port: number;
	requests: Array<{ url: string; headers: http.IncomingHttpHeaders }>;
	connections: number;
}

/** A JSON API on 127.0.0.1 for the suite's http_request scenarios, recording what reached it. */
export function useLoopbackApi(): () => LoopbackApi {
	const api: LoopbackApi = { url: '', port: 0, requests: [], connections: 0 };
	const server = http.createServer((request, response) => {
		api.requests.push({ url: request.url ?? '', headers: request.headers });
		response
			.writeHead(200, { 'content-type': 'application/json' })
			.end(JSON.stringify({ status: 'green' }));
	});
	server.on('connection', () => (api.connections += 1));
	beforeAll(async () => {
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		api.port = (server.address() as AddressInfo).port;
		api.url = `http://127.0.0.1:${api.port}`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});
	return () => api;
}

/** The HTTP tool example fetches from the API with the credential's header; the secret never reaches the caller. */
export async function apiHeaderRoundTrip(
	n8n: AgentCoreInN8n,
	api: LoopbackApi,
	tag: string,
): Promise<WebhookResponse> {
	const response = await n8n.post(WEBHOOKS.httpTool, {
		prompt: `Fetch ${api.url}/status?run=${tag}`,
	});

	n8n.expectStatus(response, 200);
	expect(response.body).toMatchObject({
		finish_reason: 'final',
		final_answer: 'Fetched: {"status":"green"}',
	});
	const received = api.requests.find((request) => request.url === `/status?run=${tag}`);
	expect(received?.headers[HTTP_TOOL_HEADER.name.toLowerCase()]).toBe(HTTP_TOOL_HEADER.secret);
	expect(response.text).not.toContain(HTTP_TOOL_HEADER.secret);
	return response;
}

/** The Feishu example posts through the credential's bot, signed; neither the bot's token nor its secret reaches the caller. */
export async function feishuNotifyRoundTrip(
	n8n: AgentCoreInN8n,
	tag: string,
): Promise<WebhookResponse> {
	const text = `Deploy ${tag} finished`;
	const response = await n8n.post(WEBHOOKS.feishu, { prompt: `Tell the team: ${text}` });

	n8n.expectStatus(response, 200);
	expect(response.body).toMatchObject({
		finish_reason: 'final',
		final_answer: `Sent to the team: ${text}`,
		used_tools: { feishu_bot: { count: 1 } },
	});
	// The fake checks the token in the path and the signature (secret + timestamp) as Feishu does.
	const posted = n8n.feishu.bodies.filter((body) => body.content?.text === text);
	expect(posted).toHaveLength(1);
	expect(posted[0]).toMatchObject({
		msg_type: 'text',
		timestamp: expect.any(String),
		sign: expect.any(String),
	});
	expect(response.text).not.toContain(FEISHU_TOKEN);
	expect(response.text).not.toContain(FEISHU_SECRET);
	return response;
}

/**
 * examples/agent-core-approval.json: the webhook answers HTTP 202 with the call that waits (feishu_bot) and
 * the Wait node's resume URL, nothing posted yet; a POST with {"decision": "approve"} to that URL resumes
 * the run (Agent Core → Resume a Paused Run), which posts exactly once and answers.
 */
export async function approvalRoundTrip(
	n8n: AgentCoreInN8n,
	tag: string,
): Promise<{ paused: WebhookResponse; resumed: { status: number; body: any } }> {
	const text = `Release ${tag} approved`;
	const paused = await n8n.post(WEBHOOKS.approval, { prompt: `Tell the team: ${text}` });

	n8n.expectStatus(paused, 202);
	expect(paused.body).toMatchObject({
		finish_reason: 'awaiting_approval',
		pending_action: { tool: 'feishu_bot', args: { text } },
		resume_url: expect.stringMatching(/^http/),
	});
	expect(n8n.feishu.bodies.filter((body) => body.content?.text === text)).toHaveLength(0);

	// The webhook answers from the Respond node before the Wait node has put the execution to sleep: until
	// then n8n answers the resume URL 409. A person takes longer than that; the test asks again briefly.
	const resume = () =>
		fetch(paused.body.resume_url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ decision: 'approve' }),
			signal: AbortSignal.timeout(90000),
		});
	let response = await resume();
	for (let attempt = 0; response.status === 409 && attempt < 50; attempt++) {
		await new Promise((resolve) => setTimeout(resolve, 200));
		response = await resume();
	}
	const resumed: { status: number; body: any } = {
		status: response.status,
		body: await response.json().catch(() => undefined),
	};
	expect(resumed.status).toBe(200);
	expect(resumed.body).toMatchObject({
		finish_reason: 'final',
		final_answer: `Sent to the team: ${text}`,
		used_tools: { feishu_bot: { count: 1 } },
	});
	expect(resumed.body.trace.map((step: { step: number }) => step.step)).toEqual([1, 2]);
	expect(n8n.feishu.bodies.filter((body) => body.content?.text === text)).toHaveLength(1);
	return { paused, resumed };
}
