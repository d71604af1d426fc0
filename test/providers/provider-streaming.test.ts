import { runAgent } from '../../src/agent/run-agent';
import type { ScriptedReply, ScriptedServer } from '../../src/demo/scripted-server';
import {
	ProviderResponseError,
	type ChatModel,
	type ChatRequest,
	type ChatResponse,
} from '../../src/providers/chat-model';
import { final, modelFor, useScriptedServer } from '../support/agent';
import { rejectionOf } from '../support/rejection';

/**
 * Issue #13 §3, provider side: with `onTextDelta` set, both adapters stream the reply through the real
 * SDKs from the scripted server, pass each piece on in order, and return the same ChatResponse as a
 * call without streaming.
 */

/** What a stream listener heard: each piece of text, and `reset` where earlier pieces were voided. */
type Heard = Array<{ delta: string } | 'reset'>;

function listener() {
	const heard: Heard = [];
	return {
		heard,
		deltas: () => heard.flatMap((entry) => (entry === 'reset' ? [] : [entry.delta])),
		request: {
			onTextDelta: (delta: string) => heard.push({ delta }),
			onTextReset: () => heard.push('reset'),
		},
	};
}

function requestOf(overrides: Partial<ChatRequest> = {}): ChatRequest {
	return {
		model: 'scripted-model',
		messages: [{ role: 'user', content: 'q' }],
		responseFormat: { type: 'text' },
		signal: new AbortController().signal,
		...overrides,
	};
}

/** One streamed call: the response and what the listener heard. */
async function streamedCall(model: ChatModel, overrides: Partial<ChatRequest> = {}) {
	const { heard, deltas, request } = listener();
	const response = await model.generate(requestOf({ ...request, ...overrides }));
	return { response, heard, deltas: deltas() };
}

/** Bounded, so a condition that never comes fails the test instead of hanging it. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
	const deadline = Date.now() + 5_000;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

const settingsOf = (provider: 'openai' | 'gemini', body: any) =>
	provider === 'openai' ? body : (body.generationConfig ?? {});

describe.each(['openai', 'gemini'] as const)('streaming through the real %s SDK', (provider) => {
	const server: () => ScriptedServer = useScriptedServer({ reasoningModel: true });
	const native = (openai: string, gemini: string) => (provider === 'openai' ? openai : gemini);

	it('passes the pieces on in the order they arrive, and they join to the returned text', async () => {
		const chunks = ['{"type":"fin', 'al","answer":', '"Grüße, ', '🌍"}'];
		server().setScript({ chunks, chunkDelayMs: 20 });
		const { response, heard } = await streamedCall(modelFor(server(), provider));
		expect(heard).toEqual(chunks.map((delta) => ({ delta })));
		expect(response.text).toBe(chunks.join(''));
		expect(server().requests[0].streamed).toBe(true);
		if (provider === 'openai')
			expect(server().requests[0].body).toMatchObject({
				stream: true,
				stream_options: { include_usage: true },
			});
	});

	it('splits a reply scripted as one text into several pieces, all passed on', async () => {
		const text = final('An answer long enough to come in several pieces.');
		server().setScript(text);
		const { response, deltas } = await streamedCall(modelFor(server(), provider));
		expect(deltas.length).toBeGreaterThan(3);
		expect(deltas.join('')).toBe(text);
		expect(response.text).toBe(text);
	});

	it('sends the same request fields as a plain call, plus the stream', async () => {
		server().setScript('ok');
		const settings = {
			temperature: 1,
			maxOutputTokens: 300,
			reasoningEffort: 'low' as const,
			responseFormat: { type: 'json_object' as const },
		};
		await modelFor(server(), provider).generate(requestOf(settings));
		await streamedCall(modelFor(server(), provider), settings);
		const [plain, streamed] = server().requests;
		expect(plain.streamed).toBe(false);
		expect(streamed.streamed).toBe(true);
		const { stream, stream_options, ...streamedRest } = streamed.body;
		expect(streamedRest).toEqual(plain.body);
		if (provider === 'openai')
			expect([plain.body.stream, plain.body.stream_options]).toEqual([undefined, undefined]);
		expect(settingsOf(provider, plain.body)).toMatchObject(
			provider === 'openai'
				? { max_completion_tokens: 300, temperature: 1 }
				: { maxOutputTokens: 300 },
		);
	});

	const sameAsPlain: Array<[string, ScriptedReply, Partial<ChatResponse>]> = [
		[
			'usage and reasoning tokens',
			{
				text: final('ok'),
				usage: { prompt_tokens: 50, completion_tokens: 30 },
				reasoningTokens: 20,
			},
			{
				usage: {
					prompt_tokens: 50,
					completion_tokens: provider === 'openai' ? 30 : 50,
					total_tokens: provider === 'openai' ? 80 : 100,
					reasoning_tokens: 20,
				},
				finishReason: 'stop',
			},
		],
		[
			'a reply cut at the output limit',
			{
				text: '{"type":"final","answer":"cut of',
				finishReason: native('length', 'MAX_TOKENS'),
				usage: { prompt_tokens: 40, completion_tokens: 400 },
			},
			{ text: '{"type":"final","answer":"cut of', finishReason: 'length' },
		],
		[
			'a reply withheld by the content filter',
			{ text: '', finishReason: native('content_filter', 'SAFETY') },
			{ text: '', finishReason: 'content_filter' },
		],
		[
			'native tool calls',
			{
				text: '',
				toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time' }],
			},
			{ nativeToolCalls: ['get_weather', 'get_time'], finishReason: 'stop' },
		],
		provider === 'openai'
			? [
					'a refusal',
					{ text: '', refusal: 'I cannot help with that request, sorry.' },
					{ text: '', finishReason: 'content_filter' },
				]
			: [
					'a blocked prompt',
					{ text: '', promptBlocked: 'SAFETY' },
					{ text: '', finishReason: 'content_filter' },
				],
	];

	it.each(sameAsPlain)(
		'reads %s from the stream as from a plain call',
		async (_name, reply, expected) => {
			server().setScript(reply);
			const plain = await modelFor(server(), provider).generate(requestOf());
			const { response: streamed, deltas } = await streamedCall(modelFor(server(), provider));
			expect(streamed).toEqual(plain);
			expect(streamed).toMatchObject(expected);
			expect(deltas.join('')).toBe(streamed.text);
		},
	);

	it('an error event inside the stream rejects the call after the pieces before it, and is not retried', async () => {
		server().setScript({
			chunks: ['{"type":', '"final",', '"answer":"x"}'],
			streamErrorAfter: 2,
			errorMessage: 'The model broke off mid-reply',
		});
		const model = modelFor(server(), provider, 2);
		const { heard, request } = listener();
		const error = await rejectionOf(model.generate(requestOf(request)));
		expect(error.message).toMatch(/The model broke off mid-reply/);
		// What the engine reports as the llm_error's status: openai-node gives none, @google/genai the event's code.
		expect(error.status).toBe(provider === 'openai' ? undefined : 500);
		expect(heard).toEqual([{ delta: '{"type":' }, { delta: '"final",' }]);
		expect(server().requests).toHaveLength(1);
	});

	it('a run whose model stream breaks with an error event ends llm_error naming it', async () => {
		server().setScript({
			text: final('never whole'),
			streamErrorAfter: 1,
			errorMessage: 'The model broke off mid-reply',
		});
		const result = await runAgent({
			model: modelFor(server(), provider),
			config: { model: 'scripted-model' },
			prompt: 'q',
			onEvent: () => undefined,
		});
		expect(result.finish_reason).toBe('llm_error');
		expect(result.trace[0].error?.message).toMatch(
			/model call failed: .*The model broke off mid-reply/,
		);
		expect(server().requests[0].streamed).toBe(true);
	});

	it('an abort mid-stream rejects at once, passes nothing more on, and closes the connection', async () => {
		// 200 pieces 300 ms apart: a minute of stream, which an abort must cut short.
		const chunks = Array.from({ length: 200 }, (_, index) => `piece ${index} `);
		server().setScript({ chunks, chunkDelayMs: 300 });
		const controller = new AbortController();
		const heard: string[] = [];
		const started = Date.now();
		const call = modelFor(server(), provider).generate(
			requestOf({
				signal: controller.signal,
				onTextDelta: (delta) => {
					heard.push(delta);
					controller.abort();
				},
			}),
		);
		await rejectionOf(call);
		expect(Date.now() - started).toBeLessThan(15_000);
		await eventually(
			() => server().requests[0].clientLeftEarly,
			'the server to see the connection close',
		);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(heard).toEqual(['piece 0 ']);
	});

	it('a 503 before the stream is retried without a reset, and only the answering stream is passed on', async () => {
		server().setScript([
			{ status: 503, errorMessage: 'overloaded', headers: { 'retry-after-ms': '10' } },
			{ chunks: ['Hello, ', 'world'] },
		]);
		const { response, heard } = await streamedCall(modelFor(server(), provider, 2));
		expect(heard).toEqual([{ delta: 'Hello, ' }, { delta: 'world' }]);
		expect(response.text).toBe('Hello, world');
		expect(server().requests).toHaveLength(2);
	});

	it('a connection that breaks after some pieces is retried, and the listener hears a reset before the new pieces', async () => {
		server().setScript([
			{ chunks: ['First ', 'attempt ', 'lost'], streamCutAfter: 2, chunkDelayMs: 20 },
			{ chunks: ['Second ', 'attempt'] },
		]);
		const { response, heard } = await streamedCall(modelFor(server(), provider, 2));
		expect(heard).toEqual([
			{ delta: 'First ' },
			{ delta: 'attempt ' },
			'reset',
			{ delta: 'Second ' },
			{ delta: 'attempt' },
		]);
		expect(response.text).toBe('Second attempt');
		expect(server().requests).toHaveLength(2);
	});

	it('a refused temperature on a streamed call is dropped once, with a notice, and the call streamed again', async () => {
		server().setScript({ chunks: ['fi', 'ne'] });
		const { response, heard } = await streamedCall(modelFor(server(), provider), {
			temperature: 0.2,
		});
		expect(response.text).toBe('fine');
		expect(response.notices?.join(' ')).toMatch(
			/rejected temperature .*retried without temperature/,
		);
		expect(heard).toEqual([{ delta: 'fi' }, { delta: 'ne' }]);
		expect(
			server().requests.map((request) => [
				request.streamed,
				settingsOf(provider, request.body).temperature,
			]),
		).toEqual([
			[true, 0.2],
			[true, undefined],
		]);
	});

	it('a plain JSON answer to a streamed call fails as an unexpected answer, not as an empty reply', async () => {
		const body = JSON.stringify({
			choices: [{ index: 0, message: { role: 'assistant', content: 'whole' } }],
			candidates: [],
		});
		server().setScript({ rawBody: body, contentType: 'application/json' });
		const error = await rejectionOf(streamedCall(modelFor(server(), provider)));
		expect(error).toBeInstanceOf(ProviderResponseError);
		expect(error.message).toMatch(/streamed call without/);
	});
});

describe('streaming through the real openai SDK, OpenAI-compatible servers', () => {
	const server = useScriptedServer();

	it('an endpoint that refuses stream_options gets the stream again without it, with a notice', async () => {
		server().setScript((request) =>
			request.body.stream_options
				? { status: 400, errorMessage: 'Unrecognized request argument supplied: stream_options' }
				: { chunks: ['o', 'k'] },
		);
		const model = modelFor(server(), 'openai');
		const { response, deltas } = await streamedCall(model);
		expect(response.text).toBe('ok');
		expect(deltas).toEqual(['o', 'k']);
		expect(response.notices?.join(' ')).toMatch(
			/rejected stream_options .*retried without stream_options/,
		);
		expect(server().requests.map((request) => request.body.stream_options)).toEqual([
			{ include_usage: true },
			undefined,
		]);
	});
});

describe('streaming through the real @google/genai SDK, thinking models', () => {
	const server = useScriptedServer();

	it('passes on the answer text but not the thought parts, and counts the thoughts as reasoning tokens', async () => {
		// [GG-rec-think]: thoughts come as {text, thought: true} parts; each event is a whole response [GG-rec-stream].
		const event = (parts: object[], extra: object = {}) =>
			`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, thoughtsTokenCount: 7, totalTokenCount: 14 } })}\r\n\r\n`;
		const rawBody =
			event([{ text: 'Let me think this over.', thought: true }]) +
			event([{ text: 'The ' }]) +
			event([{ text: 'answer.' }], { finishReason: 'STOP' });
		server().setScript({ rawBody, contentType: 'text/event-stream' });
		const { response, deltas } = await streamedCall(modelFor(server(), 'gemini'));
		expect(deltas).toEqual(['The ', 'answer.']);
		expect(response).toMatchObject({
			text: 'The answer.',
			finishReason: 'stop',
			usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14, reasoning_tokens: 7 },
		});
	});
});
