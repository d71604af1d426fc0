import { observationMessage } from '../../../src/agent/protocol/prompt';
import { DEMO_PROMPT } from '../../../src/demo/demo-model';
import { LINES } from '../../../scripts/n8n-cache';
import { chatHubConversation } from './chat-hub-scenarios';
import {
	CHAT_MODEL_SUB_NODES,
	fallbackSubNodeFinishesTheRun,
	toolStepThenAnswerOnSubNode,
	type ChatModelSubNode,
} from './chat-model-scenarios';
import {
	chatWidgetConversation,
	simpleChatAnswersTheDemoQuestion,
	simpleChatSaysWhyThereIsNoAnswer,
	streamingChatConversation,
	wrongApiKeyRetriedThenRoutedToErrorOutput,
} from './chat-scenarios';
import {
	apiHeaderRoundTrip,
	approvalRoundTrip,
	concurrentTurnsOnOneSession,
	feishuNotifyRoundTrip,
	twoTurnConversation,
	useLoopbackApi,
	workflowToolRoundTrip,
} from './conversation-scenarios';
import {
	CHAT,
	e2eModel,
	lastUserMessageOf,
	NEVER_FINISHES,
	promptOf,
	RECALL_QUESTION,
} from './model-script';
import { useAgentCoreInN8n, WEBHOOKS } from './n8n-harness';
import { describeStreamingWebhook } from './streaming-scenarios';

/**
 * The behaviour a webhook caller sees from the example workflows in a real n8n of the given line (one
 * process, SQLite), with the package installed as a community package, a scripted model behind the
 * credential and conversations kept in Redis. Queue mode has its own suite (queue-mode-scenarios.ts).
 */
export function describeAgentCoreInN8n(line: 1 | 2): void {
	describe(`Agent Core in n8n ${LINES[line].version} through production webhooks`, () => {
		const get = useAgentCoreInN8n(line, e2eModel);

		/** The model calls this run made, told apart from other runs' by their prompt. */
		const modelCallsFor = (prompt: string) =>
			get().model.requests.filter((request) => promptOf(request) === prompt);

		describe('single-turn prompt', () => {
			it('answers the prompt posted to the webhook with final_answer in an HTTP 200', async () => {
				const prompt = `What is the capital of France? (n8n ${line})`;
				const response = await get().post(WEBHOOKS.main, { prompt });

				get().expectStatus(response, 200);
				expect(response.contentType).toMatch(/application\/json/);
				expect(response.body).toMatchObject({
					final_answer: `Echo: ${prompt}`,
					finish_reason: 'final',
					provider: 'openai',
					model: 'gpt-4o-mini',
				});
				expect(response.body.trace).toHaveLength(1);
				expect(response.body.messages).toEqual([
					{ role: 'user', content: prompt },
					{ role: 'assistant', content: `Echo: ${prompt}` },
				]);
				const calls = modelCallsFor(prompt);
				expect(calls).toHaveLength(1);
				expect(calls[0].headers.authorization).toBe('Bearer e2e-key');
			});
		});

		describe('tool round trip', () => {
			it('runs json_transform for the model and returns the answer built from its observation, with the trace', async () => {
				const response = await get().post(WEBHOOKS.main, { prompt: DEMO_PROMPT });

				get().expectStatus(response, 200);
				const { body } = response;
				expect(body.final_answer).toBe('In stock and under 50 EUR: Desk lamp and USB-C hub.');
				expect(body.finish_reason).toBe('final');
				expect(body.trace).toHaveLength(2);
				expect(body.trace[0]).toMatchObject({
					step: 1,
					action: { tool: 'json_transform' },
					observation: '["Desk lamp","USB-C hub"]',
				});
				expect(body.trace[1]).toMatchObject({ step: 2, final: { answer: body.final_answer } });
				expect(body.used_tools).toEqual({
					json_transform: {
						count: 1,
						total_ms: expect.any(Number),
						avg_ms: expect.any(Number),
						failures: 0,
					},
				});
				const calls = modelCallsFor(DEMO_PROMPT);
				expect(calls).toHaveLength(2);
				expect(calls[1].messages[calls[1].messages.length - 1]).toEqual({
					role: 'user',
					content: observationMessage('json_transform', '["Desk lamp","USB-C hub"]'),
				});
			});
		});

		describe('approval (examples/agent-core-approval.json)', () => {
			it('pauses before posting, and a resume webhook that approves gets the answer, posted exactly once', async () => {
				await approvalRoundTrip(get(), `line-${line}`);
			});
		});

		describe('typed answer (examples/agent-core-typed-answer.json)', () => {
			it('hands final_output to the next node as an object: a Set node reads its total and currency', async () => {
				const prompt = `[invoice] {"currency":"EUR","lines":[12.5,30],"ref":"n8n ${line}"}`;
				const response = await get().post(WEBHOOKS.typedAnswer, { prompt });

				get().expectStatus(response, 200);
				expect(response.body).toEqual({
					total: 42.5,
					currency: 'EUR',
					needs_review: false,
					finish_reason: 'final',
				});
				const calls = modelCallsFor(prompt);
				expect(calls).toHaveLength(2);
				// The example asks for the schema mode: the compiled protocol with the invoice schema as the answer.
				const format = calls[0].body.response_format;
				expect(format.type).toBe('json_schema');
				expect(format.json_schema.schema.properties.tool.enum).toEqual(['json_transform']);
				expect(format.json_schema.schema.properties.answer).toMatchObject({
					type: 'object',
					required: ['total', 'currency', 'lines'],
				});
			});
		});

		describe('limits', () => {
			it('answers HTTP 200 with finish_reason max_steps when the model never finishes within the limit', async () => {
				const prompt = `Keep calling tools ${NEVER_FINISHES} (n8n ${line})`;
				const response = await get().post(WEBHOOKS.strictLimits, { prompt });

				get().expectStatus(response, 200);
				expect(response.body).toMatchObject({ finish_reason: 'max_steps', final_answer: '' });
				expect(response.body.stop_detail).toMatch(/max_steps \(1\)/);
				expect(response.body.trace).toHaveLength(1);
				expect(modelCallsFor(prompt)).toHaveLength(1);
			});
		});

		describe('bad input', () => {
			it('answers HTTP 400 with an error naming the prompt when the body has no prompt, without calling the model', async () => {
				const callsBefore = get().model.requests.length;
				const response = await get().post(WEBHOOKS.main, { question: 'the field is misnamed' });

				get().expectStatus(response, 400);
				expect(response.body).toEqual({ error: expect.stringMatching(/\bprompt\b/) });
				expect(get().model.requests.length).toBe(callsBefore);
			});

			it('answers HTTP 400 naming the prompt when it is not text', async () => {
				const response = await get().post(WEBHOOKS.main, { prompt: ['not', 'text'] });

				get().expectStatus(response, 400);
				expect(response.body.error).toMatch(/prompt must be text/);
			});
		});

		describe("n8n's own answer to a node error (why the examples route errors)", () => {
			// Under responseMode "responseNode", an execution that fails before Respond to Webhook answers the
			// caller with n8n's generic reply, which never carries the node's message.
			const generic =
				line === 1
					? { status: 200, text: '' }
					: { status: 500, text: '{"message":"Error in workflow"}' };

			it(`answers HTTP ${generic.status} without the error message when the error output is not used`, async () => {
				const response = await get().post(WEBHOOKS.unrouted, {});

				expect({ status: response.status, text: response.text }).toEqual(generic);
			});
		});

		describe('conversation through Agent Context on Redis (examples/agent-context-chat.json)', () => {
			it('answers a follow-up question from the turn the Agent Context node stored for the session', async () => {
				await twoTurnConversation(get());
			});

			it("does not answer from another session's history", async () => {
				const response = await get().post(WEBHOOKS.chat, {
					session_id: get().uniqueId('stranger'),
					prompt: RECALL_QUESTION,
				});

				get().expectStatus(response, 200);
				expect(response.body).toMatchObject({
					final_answer: 'You have not asked me to remember anything.',
					history_turns: 0,
					stored_turns: 1,
				});
			});

			it('keeps all 20 turns intact when 20 webhook calls on one session run at once', async () => {
				await concurrentTurnsOnOneSession(get(), 20);
			});

			it('answers HTTP 400 naming the session ID when the body has none, without calling the model', async () => {
				const prompt = `${CHAT} no session ${get().uniqueId('x')}`;
				const response = await get().post(WEBHOOKS.chat, { prompt });

				get().expectStatus(response, 400);
				expect(response.body).toEqual({ error: expect.stringMatching(/session ID is empty/) });
				expect(
					get().model.requests.filter((call) => lastUserMessageOf(call) === prompt),
				).toHaveLength(0);
			});

			it('answers HTTP 400 from Agent Core when there is no message to answer, and stores nothing', async () => {
				const sessionId = get().uniqueId('no-prompt');
				const response = await get().post(WEBHOOKS.chat, { session_id: sessionId });

				get().expectStatus(response, 400);
				expect(response.body.error).toMatch(/messages_json/);
				expect(await get().readTurns(sessionId)).toEqual([]);
			});
		});

		describe("n8n's Chat Trigger (examples/agent-core-chat.json), posted to as n8n's chat widget does", () => {
			it('answers in last-node mode with output, the second message answered from the first', async () => {
				await chatWidgetConversation(get());
			});

			it('streams the answer in streaming mode as NDJSON chunks, with no error chunk', async () => {
				await streamingChatConversation(get());
			});
		});

		describe("n8n's Chat Trigger without Redis (examples/agent-core-simple-chat.json), posted to as n8n's chat widget does", () => {
			it("answers the demo's catalogue question in output", async () => {
				await simpleChatAnswersTheDemoQuestion(get());
			});

			it('says in one sentence of output why a run that hit Max Steps has no answer, never the raw item', async () => {
				await simpleChatSaysWhyThereIsNoAnswer(get());
			});
		});

		if (line === 2) {
			describe("n8n 2.x Chat Hub with the chat example's workflow", () => {
				it('shows the output of each answer in last-node mode, the second message answered from the first', async () => {
					await chatHubConversation(get(), 'lastNode');
				});

				it('shows the streamed answer in streaming mode, the second message answered from the first', async () => {
					await chatHubConversation(get(), 'streaming');
				});
			});
		}

		describe('Agent Context on In-Memory storage outside queue mode', () => {
			it('answers a follow-up question from the turn kept in this n8n process', async () => {
				const sessionId = get().uniqueId('in-memory');
				const first = await get().post(WEBHOOKS.memoryChat, {
					session_id: sessionId,
					prompt: `${CHAT} Please remember that the memory store works.`,
				});
				get().expectStatus(first, 200);
				const second = await get().post(WEBHOOKS.memoryChat, {
					session_id: sessionId,
					prompt: RECALL_QUESTION,
				});
				get().expectStatus(second, 200);
				expect(second.body).toMatchObject({
					final_answer: 'You asked me to remember that the memory store works.',
					history_turns: 1,
				});
			});
		});

		describe('model errors n8n can act on (On Model Error: Fail the Node)', () => {
			it("retries a wrong API key with n8n's Retry On Fail, then answers through the error output with the 401", async () => {
				await wrongApiKeyRetriedThenRoutedToErrorOutput(get());
			});
		});

		describe('workflow tools (examples/agent-core-workflow-tool.json)', () => {
			it('runs the sub-workflow with the validated arguments and answers from its output', async () => {
				await workflowToolRoundTrip(get());
			});
		});

		describe('http_request with the API header credential (examples/agent-core-http-tool.json)', () => {
			const api = useLoopbackApi();

			it("sends the credential's header to its host and keeps the secret out of the answer", async () => {
				await apiHeaderRoundTrip(get(), api(), `line-${line}`);
			});

			it('calls no host outside the credential’s Allowed Domains', async () => {
				const before = api().connections;
				const response = await get().post(WEBHOOKS.httpTool, {
					prompt: `Fetch http://localhost:${api().port}/status`,
				});

				get().expectStatus(response, 200);
				expect(response.body.finish_reason).toBe('tool_error');
				expect(response.body.trace[0].error.message).toMatch(/localhost is not in allowed_domains/);
				expect(api().connections).toBe(before);
			});
		});

		describe('feishu_bot with the Feishu bot credential (examples/agent-core-feishu-notify.json)', () => {
			it('posts the message to the bot of the credential, signed, and keeps its token and secret from the caller', async () => {
				await feishuNotifyRoundTrip(get(), `line-${line}`);
			});
		});

		describe("n8n's Chat Model sub-nodes on Agent Core (examples/agent-core-chat-model.json)", () => {
			for (const subNode of Object.keys(CHAT_MODEL_SUB_NODES) as ChatModelSubNode[]) {
				it(`runs a tool step and the final answer on the ${subNode} sub-node, in its own wire format`, async () => {
					await toolStepThenAnswerOnSubNode(get(), subNode, `n8n ${line}`);
				});
			}

			it('hands the run to the Fallback Model sub-node when the Chat Model fails after the tool step, running the tool once', async () => {
				await fallbackSubNodeFinishesTheRun(get(), `n8n ${line}`);
			});
		});

		describeStreamingWebhook(get);
	});
}
