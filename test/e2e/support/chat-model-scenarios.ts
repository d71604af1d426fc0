import { observationMessage } from '../../../src/agent/protocol/prompt';
import { DEMO_PROMPT } from '../../../src/demo/demo-model';
import type { ScriptedRequest } from '../../../src/demo/scripted-server';
import { PRIMARY_MODELS, type SubNodeProvider } from './workflows/derived-workflows';
import { FALLBACK_MODEL, PRIMARY_FAILS_AFTER_TOOL, promptOf } from './model-script';
import { WEBHOOKS, type AgentCoreInN8n, type WebhookResponse } from './n8n-harness';

/** The sub-nodes the chat model example and its test-only copies put on Agent Core's Chat Model input. */
export type ChatModelSubNode = SubNodeProvider | 'openai';

/**
 * Each sub-node's webhook, the provider name the trace gives its steps, and the wire format its SDK speaks
 * to the scripted server (ScriptedRequest.provider): the OpenAI sub-node uses the Responses API, as its
 * version 1.3 does by default; Ollama's uses Ollama's native /api/chat.
 */
export const CHAT_MODEL_SUB_NODES: Record<
	ChatModelSubNode,
	{ webhook: string; provider: string; wire: ScriptedRequest['provider'] }
> = {
	openai: { webhook: WEBHOOKS.chatModel, provider: 'openai', wire: 'openai-responses' },
	anthropic: { webhook: WEBHOOKS.chatModelAnthropic, provider: 'anthropic', wire: 'anthropic' },
	gemini: { webhook: WEBHOOKS.chatModelGemini, provider: 'gemini', wire: 'gemini' },
	ollama: { webhook: WEBHOOKS.chatModelOllama, provider: 'ollama', wire: 'ollama' },
};

/** The answer the demo model builds from json_transform's observation over the catalogue of DEMO_PROMPT. */
const DEMO_ANSWER = 'In stock and under 50 EUR: Desk lamp and USB-C hub.';
const DEMO_OBSERVATION = '["Desk lamp","USB-C hub"]';

/** The calls of the run whose prompt is `prompt`, as which wire format and model each arrived. */
const callsOf = (n8n: AgentCoreInN8n, prompt: string) =>
	n8n.model.requests.filter((request) => promptOf(request) === prompt);
const wireAndModel = (request: ScriptedRequest) => [request.provider, request.model];

/**
 * The catalogue question on the workflow whose Chat Model is `subNode`: one json_transform step, then the
 * answer from its observation, both steps from that sub-node's model, both calls in its SDK's wire format
 * with the credential's API key accepted (the script refuses any other key).
 */
export async function toolStepThenAnswerOnSubNode(
	n8n: AgentCoreInN8n,
	subNode: ChatModelSubNode,
	label: string,
): Promise<WebhookResponse> {
	const { webhook, provider, wire } = CHAT_MODEL_SUB_NODES[subNode];
	const model = PRIMARY_MODELS[subNode];
	const prompt = `[${subNode} sub-node, ${label}] ${DEMO_PROMPT}`;

	const response = await n8n.post(webhook, { prompt });

	n8n.expectStatus(response, 200);
	const { body } = response;
	expect(body).toMatchObject({
		final_answer: DEMO_ANSWER,
		finish_reason: 'final',
		provider,
		model,
	});
	expect(body.trace).toHaveLength(2);
	expect(body.trace[0]).toMatchObject({
		step: 1,
		action: { tool: 'json_transform' },
		observation: DEMO_OBSERVATION,
	});
	expect(body.trace[1]).toMatchObject({ step: 2, final: { answer: DEMO_ANSWER } });
	expect(
		body.trace.map((step: { provider: string; model: string }) => [step.provider, step.model]),
	).toEqual([
		[provider, model],
		[provider, model],
	]);
	expect(body.used_tools).toEqual({
		json_transform: {
			count: 1,
			total_ms: expect.any(Number),
			avg_ms: expect.any(Number),
			failures: 0,
		},
	});
	const calls = callsOf(n8n, prompt);
	expect(calls.map(wireAndModel)).toEqual([
		[wire, model],
		[wire, model],
	]);
	expect(calls[1].messages[calls[1].messages.length - 1]).toEqual({
		role: 'user',
		content: observationMessage('json_transform', DEMO_OBSERVATION),
	});
	return response;
}

/**
 * The chat model example when its OpenAI sub-node answers HTTP 500 after the tool step (also to the
 * sub-node's own retries): the Gemini Fallback Model sub-node gets the conversation with the observation
 * and finishes the run, the tool having run once.
 */
export async function fallbackSubNodeFinishesTheRun(
	n8n: AgentCoreInN8n,
	label: string,
): Promise<void> {
	const primary = CHAT_MODEL_SUB_NODES.openai;
	const prompt = `${PRIMARY_FAILS_AFTER_TOOL} [${label}] ${DEMO_PROMPT}`;

	const response = await n8n.post(WEBHOOKS.chatModel, { prompt });

	n8n.expectStatus(response, 200);
	const { body } = response;
	expect(body).toMatchObject({
		final_answer: DEMO_ANSWER,
		finish_reason: 'final',
		provider: 'gemini',
		model: FALLBACK_MODEL,
	});
	expect(
		body.trace.map((step: { provider: string; model: string }) => [step.provider, step.model]),
	).toEqual([
		[primary.provider, PRIMARY_MODELS.openai],
		['gemini', FALLBACK_MODEL],
	]);
	expect(body.trace[0]).toMatchObject({
		action: { tool: 'json_transform' },
		observation: DEMO_OBSERVATION,
	});
	expect(body.trace[1].final).toEqual({ answer: DEMO_ANSWER });
	// n8n's OpenAI sub-node words the 500 its own way ("The service was not able to process your request").
	expect(body.trace[1].notices[0]).toMatch(
		new RegExp(
			`^openai ${PRIMARY_MODELS.openai} failed \\(.+\\); the fallback gemini ${FALLBACK_MODEL} answers from this step on$`,
		),
	);
	expect(body.used_tools).toEqual({
		json_transform: {
			count: 1,
			total_ms: expect.any(Number),
			avg_ms: expect.any(Number),
			failures: 0,
		},
	});
	const calls = callsOf(n8n, prompt);
	const [first, ...failed] = calls.filter((call) => call.model === PRIMARY_MODELS.openai);
	const fallbackCalls = calls.filter((call) => call.model === FALLBACK_MODEL);
	expect(wireAndModel(first)).toEqual([primary.wire, PRIMARY_MODELS.openai]);
	expect(failed.length).toBeGreaterThanOrEqual(1);
	expect(fallbackCalls.map(wireAndModel)).toEqual([['gemini', FALLBACK_MODEL]]);
	const toFallback = fallbackCalls[0].messages;
	expect(toFallback[toFallback.length - 1]).toEqual({
		role: 'user',
		content: observationMessage('json_transform', DEMO_OBSERVATION),
	});
}
