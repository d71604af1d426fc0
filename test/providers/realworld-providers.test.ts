import { runAgent } from '../../src/agent/run-agent';
import { GeminiChatModel } from '../../src/providers/gemini';
import { ProviderHttpError } from '../../src/providers/provider-errors';
import { final, modelFor, useScriptedServer } from '../support/agent';

/**
 * Behaviours seen in real provider traffic (issue #27; the corpus in ../shared/realworld/, replayed by
 * `npm run replay:realworld`), each emulated in the scripted server with a minimal body of the recorded
 * shape; the comment on each test names the realworld case it stands for.
 */
const config = { model: 'gemini-2.5-flash', max_steps: 3 };
const json = (body: unknown) => ({
	rawBody: JSON.stringify(body),
	contentType: 'application/json; charset=UTF-8',
});
const events = (...bodies: unknown[]) => ({
	rawBody: bodies.map((body) => `data: ${JSON.stringify(body)}\r\n\r\n`).join(''),
	contentType: 'text/event-stream',
});
const streaming = { onEvent: () => undefined };

describe('provider blocks end content_filter with the provider’s own words', () => {
	const server = useScriptedServer();

	// pyd:test_google/test_google_model_armor_response_template_real_block#0: a candidate without content,
	// finishReason MODEL_ARMOR and a finishMessage.
	const armor = {
		candidates: [
			{
				finishReason: 'MODEL_ARMOR',
				finishMessage: 'The response violated Responsible AI Safety settings (Harassment) filters.',
			},
		],
		usageMetadata: {
			promptTokenCount: 7,
			candidatesTokenCount: 2,
			thoughtsTokenCount: 5,
			totalTokenCount: 14,
		},
	};

	it.each([
		['plain', json(armor), {}],
		['streamed', events(armor), streaming],
	])(
		'a Vertex Model Armor block (%s) ends content_filter after one call, its message in the step and stop_detail',
		async (_, reply, options) => {
			server().setScript(reply);
			const result = await runAgent({
				model: modelFor(server(), 'gemini'),
				config,
				prompt: 'q',
				...options,
			});
			expect(result.finish_reason).toBe('content_filter');
			expect(server().requests).toHaveLength(1);
			expect(result.trace[0].error).toEqual({
				type: 'content_filter',
				message:
					'the provider withheld the reply (its safety filter): Gemini finishReason MODEL_ARMOR: The response violated Responsible AI Safety settings (Harassment) filters.',
			});
			expect(result.stop_detail).toBe(result.trace[0].error!.message);
			expect(result.usage).toMatchObject({
				prompt_tokens: 7,
				completion_tokens: 7,
				total_tokens: 14,
				reasoning_tokens: 5,
			});
		},
	);

	it('a prompt blocked by Model Armor ends content_filter with the block reason message', async () => {
		// pyd:test_google/test_google_model_armor_prompt_template_text_gets_blocked#1: promptFeedback only, no candidates.
		server().setScript(
			json({
				promptFeedback: {
					blockReason: 'MODEL_ARMOR',
					blockReasonMessage: 'The prompt violated Prompt Injection filters.',
				},
				usageMetadata: {},
			}),
		);
		const result = await runAgent({ model: modelFor(server(), 'gemini'), config, prompt: 'q' });
		expect(result).toMatchObject({ finish_reason: 'content_filter', metrics: { model_calls: 1 } });
		expect(result.stop_detail).toBe(
			'the provider withheld the reply (its safety filter): Gemini blocked the prompt (MODEL_ARMOR): The prompt violated Prompt Injection filters.',
		);
	});

	it('a SAFETY candidate with empty content names its reason', async () => {
		// pyd:test_google/test_google_model_safety_settings#0: `content: {}` and finishReason SAFETY.
		server().setScript(
			json({
				candidates: [{ content: {}, finishReason: 'SAFETY' }],
				usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 },
			}),
		);
		const result = await runAgent({ model: modelFor(server(), 'gemini'), config, prompt: 'q' });
		expect(result).toMatchObject({
			finish_reason: 'content_filter',
			stop_detail:
				'the provider withheld the reply (its safety filter): Gemini finishReason SAFETY',
		});
		expect(server().requests).toHaveLength(1);
	});

	it('an OpenAI refusal ends content_filter with the refusal text', async () => {
		server().setScript({ text: '', refusal: "I'm sorry, I can't help with that." });
		const result = await runAgent({
			model: modelFor(server(), 'openai'),
			config: { model: 'gpt-4o' },
			prompt: 'q',
		});
		expect(result).toMatchObject({
			finish_reason: 'content_filter',
			stop_detail:
				"the provider withheld the reply (its safety filter): the model refused: I'm sorry, I can't help with that.",
		});
	});
});

describe('provider errors read as status and the provider’s own message', () => {
	const server = useScriptedServer();
	// pyd:test_model_name_suggestions/test_model_name_suggestion[google]#0: Gemini's 404 body.
	const notFound = {
		error: {
			code: 404,
			message: 'models/gemini-9-flahs is not found for API version v1beta.',
			status: 'NOT_FOUND',
			details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', detail: 'internal' }],
		},
	};

	it.each([
		['plain', {}],
		['streamed', streaming],
	])('a Gemini 404 (%s) ends llm_error "404 <message>", with no JSON in it', async (_, options) => {
		server().setScript({ status: 404, ...json(notFound) });
		const result = await runAgent({
			model: modelFor(server(), 'gemini', 2),
			config,
			prompt: 'q',
			...options,
		});
		expect(result.finish_reason).toBe('llm_error');
		expect(result.stop_detail).toBe(
			'model call failed: 404 models/gemini-9-flahs is not found for API version v1beta.',
		);
		expect(result.trace[0].error).toMatchObject({ type: 'llm_error', status: 404 });
		expect(server().requests).toHaveLength(1);
	});

	it('keeps the rest of a Gemini error body in the error’s details, not its message', async () => {
		server().setScript({ status: 404, ...json(notFound) });
		const model = new GeminiChatModel({
			apiKey: 'k',
			baseUrl: server().geminiBaseUrl,
			maxRetries: 0,
		});
		const failure = await model
			.generate({
				model: 'm',
				messages: [{ role: 'user', content: 'q' }],
				responseFormat: { type: 'text' },
				signal: new AbortController().signal,
			})
			.catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(ProviderHttpError);
		expect(failure).toMatchObject({
			status: 404,
			details: { code: 404, status: 'NOT_FOUND', details: notFound.error.details },
		});
		expect((failure as Error).message).not.toContain('DebugInfo');
	});

	it('a Gemini error event inside a 200 stream reads as its code and message, not retried', async () => {
		server().setScript(
			events(
				{ candidates: [{ content: { role: 'model', parts: [{ text: '{"type":' }] } }] },
				{ error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } },
			),
		);
		const result = await runAgent({
			model: modelFor(server(), 'gemini', 2),
			config,
			prompt: 'q',
			...streaming,
		});
		expect(result.stop_detail).toBe('model call failed: 500 Internal error encountered.');
		expect(server().requests).toHaveLength(1);
	});

	it('an error page that is not JSON reads as its text', async () => {
		server().setScript({
			status: 503,
			rawBody: 'upstream connect error',
			contentType: 'text/plain',
		});
		const result = await runAgent({ model: modelFor(server(), 'gemini', 0), config, prompt: 'q' });
		expect(result.stop_detail).toBe('model call failed: 503 upstream connect error');
	});

	it('an empty Gemini event stream is reported as such', async () => {
		// genai:Client_Tests_generateContentStream_ML_Dev_should_return_the_headers_in_the_sdkHttpResponse_for_each_chunk#0: a 200 text/event-stream with no event.
		server().setScript({ rawBody: '', contentType: 'text/event-stream' });
		const result = await runAgent({
			model: modelFor(server(), 'gemini', 2),
			config,
			prompt: 'q',
			...streaming,
		});
		expect(result.finish_reason).toBe('llm_error');
		expect(result.stop_detail).toBe(
			'model call failed: the endpoint answered the streamed call with an empty event stream (no event at all)',
		);
		expect(server().requests).toHaveLength(1);
	});

	it("OpenRouter's 429 names the upstream reason it sends in metadata.raw", async () => {
		// pyd:test_openrouter/test_openrouter_errors_raised#0: "Provider returned error" with the real reason in metadata.raw.
		const body = {
			error: {
				code: 429,
				message: 'Provider returned error',
				metadata: {
					provider_name: 'Google',
					raw: 'some-model:free is temporarily rate-limited upstream.',
				},
			},
		};
		server().setScript({ status: 429, ...json(body), headers: { 'retry-after-ms': '5' } });
		const result = await runAgent({
			model: modelFor(server(), 'openai', 2),
			config: { model: 'some-model:free' },
			prompt: 'q',
		});
		expect(result.stop_detail).toBe(
			'model call failed: 429 Provider returned error (Google: some-model:free is temporarily rate-limited upstream.)',
		);
		expect(result.trace[0].error?.status).toBe(429);
		expect(server().requests).toHaveLength(3);
	});
});

describe("Gemini's retry delay in the error body", () => {
	const server = useScriptedServer();
	// vercel:google:google-429-retry-info.json: RESOURCE_EXHAUSTED with RetryInfo.retryDelay and no Retry-After header.
	const quota = (delay: string) =>
		json({
			error: {
				code: 429,
				message: 'You exceeded your current quota, please check your plan.',
				status: 'RESOURCE_EXHAUSTED',
				details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay }],
			},
		});

	it('is waited for before each retry', async () => {
		const arrivals: number[] = [];
		server().setScript(() => {
			arrivals.push(Date.now());
			return arrivals.length < 3 ? { status: 429, ...quota('0.4s') } : final('after the wait');
		});
		const result = await runAgent({ model: modelFor(server(), 'gemini', 2), config, prompt: 'q' });
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'after the wait' });
		expect(arrivals).toHaveLength(3);
		// The backoff alone would wait about 0.5 s, then 1 s; the body asked for 0.4 s each time.
		expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(395);
		expect(arrivals[1] - arrivals[0]).toBeLessThan(480);
		expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(395);
		expect(arrivals[2] - arrivals[1]).toBeLessThan(900);
	});

	it('that ends after the call’s deadline is not waited for: the 429 and its message end the run at once', async () => {
		server().setScript({ status: 429, ...quota('34.4s') });
		const started = Date.now();
		const result = await runAgent({
			model: modelFor(server(), 'gemini', 2),
			config: { ...config, single_call_timeout: 5 },
			prompt: 'q',
		});
		expect(Date.now() - started).toBeLessThan(2_000);
		expect(result.finish_reason).toBe('llm_error');
		expect(result.stop_detail).toBe(
			"model call failed: 429 You exceeded your current quota, please check your plan. (the provider asked to retry in 34.4 s, after this call's deadline, so it was not retried)",
		);
		expect(server().requests).toHaveLength(1);
	});
});

describe('reasoning from OpenAI-compatible endpoints reaches the step', () => {
	const server = useScriptedServer();
	const completion = (message: Record<string, unknown>) =>
		json({
			id: 'chatcmpl-1',
			object: 'chat.completion',
			model: 'm',
			choices: [
				{
					index: 0,
					message: { role: 'assistant', content: final('4'), ...message },
					finish_reason: 'stop',
				},
			],
			usage: {
				prompt_tokens: 10,
				completion_tokens: 30,
				total_tokens: 40,
				completion_tokens_details: { reasoning_tokens: 25 },
			},
		});

	it.each([
		// vercel:deepseek/chat:deepseek-json.json (DeepSeek; also Z.ai, Qwen, Moonshot, xAI).
		['reasoning_content', { reasoning_content: 'Two plus two is four.' }],
		// vercel:groq:groq-reasoning.json (Groq; also OpenRouter, Cerebras, Ollama).
		['reasoning', { reasoning: 'Two plus two is four.' }],
	])('`%s` becomes the step’s reasoning, never part of the answer', async (_, message) => {
		server().setScript(completion(message));
		const result = await runAgent({
			model: modelFor(server(), 'openai'),
			config: { model: 'm' },
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: '4' });
		expect(result.trace[0].reasoning).toBe('Two plus two is four.');
		expect(result.usage).toMatchObject({
			prompt_tokens: 10,
			completion_tokens: 30,
			reasoning_tokens: 25,
		});
	});
});
