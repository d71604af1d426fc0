import * as http from 'node:http';
import OpenAI from 'openai';
import { ApiError, GoogleGenAI } from '@google/genai';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { startsScriptedServers } from '../support/agent';
import { rejectionOf } from '../support/rejection';

const startServer = startsScriptedServers();

function openAiClient(
	server: ScriptedServer,
	options: { maxRetries?: number; timeout?: number } = {},
): OpenAI {
	return new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseUrl, maxRetries: 0, ...options });
}

function geminiClient(
	server: ScriptedServer,
	options: { apiVersion?: string; timeout?: number } = {},
): GoogleGenAI {
	return new GoogleGenAI({
		apiKey: 'test',
		httpOptions: { baseUrl: server.geminiBaseUrl, ...options },
	});
}

async function askOpenAi(client: OpenAI, content = 'hello'): Promise<string | null> {
	const completion = await client.chat.completions.create({
		model: 'gpt-test',
		messages: [{ role: 'user', content }],
	});
	return completion.choices[0].message.content;
}

async function askGemini(client: GoogleGenAI, text = 'hello'): Promise<string | undefined> {
	const response = await client.models.generateContent({ model: 'gemini-test', contents: text });
	return response.text;
}

/**
 * @google/genai rethrows undici's DOMException AbortError as is in plain node; under jest that
 * DOMException belongs to another realm, so the SDK wraps it: Error("exception AbortError: ...", { cause }).
 */
function isAbortError(error: any): boolean {
	return error?.name === 'AbortError' || error?.cause?.name === 'AbortError';
}

/** Bounded, so that a request that never arrives fails the test instead of keeping jest alive. */
async function waitForRequests(server: ScriptedServer, count: number): Promise<void> {
	const deadline = Date.now() + 5000;
	while (server.requests.length < count) {
		if (Date.now() > deadline)
			throw new Error(`expected ${count} requests, received ${server.requests.length}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

/** A raw request, for what the SDKs never send (broken JSON, unknown paths). */
async function rawPost(
	url: string,
	body: string,
	headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
	const response = await fetch(url, {
		method: 'POST',
		body,
		headers: { 'content-type': 'application/json', ...headers },
	});
	return { status: response.status, json: await response.json() };
}

describe('scripted server with the real openai SDK', () => {
	it('answers a chat completion with the scripted text and estimated usage', async () => {
		const server = await startServer({ script: 'Final: done' });
		const completion = await openAiClient(server).chat.completions.create({
			model: 'gpt-test',
			messages: [
				{ role: 'system', content: 'abcd' },
				{ role: 'user', content: '12345678' },
			],
		});

		expect(completion.object).toBe('chat.completion');
		expect(completion.model).toBe('gpt-test');
		expect(completion.choices[0].message).toMatchObject({
			role: 'assistant',
			content: 'Final: done',
		});
		expect(completion.choices[0].finish_reason).toBe('stop');
		// 12 prompt characters / 4 = 3 tokens; 11 reply characters / 4 rounded up = 3 tokens.
		expect(completion.usage).toEqual({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
	});

	it('reports scripted usage instead of the estimate', async () => {
		const server = await startServer({
			script: { text: 'ok', usage: { prompt_tokens: 100, completion_tokens: 7 } },
		});
		const completion = await openAiClient(server).chat.completions.create({
			model: 'm',
			messages: [{ role: 'user', content: 'x' }],
		});
		expect(completion.usage).toEqual({
			prompt_tokens: 100,
			completion_tokens: 7,
			total_tokens: 107,
		});
	});

	it('surfaces a scripted 429 as RateLimitError with status, body and headers', async () => {
		const server = await startServer({
			script: { status: 429, errorMessage: 'slow down', headers: { 'retry-after': '7' } },
		});
		const error = await rejectionOf(askOpenAi(openAiClient(server)));

		expect(error).toBeInstanceOf(OpenAI.RateLimitError);
		expect(error).toBeInstanceOf(OpenAI.APIError);
		expect(error.status).toBe(429);
		expect(error.message).toBe('429 slow down');
		expect(error.error).toEqual({
			message: 'slow down',
			type: 'requests',
			param: null,
			code: 'rate_limit_exceeded',
		});
		expect(error.headers.get('retry-after')).toBe('7');
	});

	it('surfaces a scripted 500 as InternalServerError', async () => {
		const server = await startServer({ script: { status: 500, errorMessage: 'boom' } });
		const error = await rejectionOf(askOpenAi(openAiClient(server)));
		expect(error).toBeInstanceOf(OpenAI.InternalServerError);
		expect(error.status).toBe(500);
		expect(error.type).toBe('server_error');
	});

	it('lets the SDK retry a 500 once and then succeed', async () => {
		// retry-after-ms keeps the SDK from sleeping its default half second before the retry.
		const server = await startServer({
			script: [{ status: 500, headers: { 'retry-after-ms': '5' } }, 'second time lucky'],
		});
		const text = await askOpenAi(openAiClient(server, { maxRetries: 1 }));

		expect(text).toBe('second time lucky');
		expect(server.requests.map((request) => request.callIndex)).toEqual([0, 1]);
		expect(server.requests[1].headers['x-stainless-retry-count']).toBe('1');
		server.assertAllUsed();
	});

	it('rejects a call aborted by the caller as APIUserAbortError and keeps serving', async () => {
		const server = await startServer({ script: [{ text: 'too late', delayMs: 10_000 }, 'next'] });
		const client = openAiClient(server);
		const controller = new AbortController();
		const pending = client.chat.completions.create(
			{ model: 'm', messages: [{ role: 'user', content: 'x' }] },
			{ signal: controller.signal },
		);
		await waitForRequests(server, 1);
		controller.abort();

		const error = await rejectionOf(pending);
		expect(error).toBeInstanceOf(OpenAI.APIUserAbortError);
		expect(error.message).toBe('Request was aborted.');
		expect(await askOpenAi(client)).toBe('next');
	});

	it('rejects a call slower than the client timeout as an APIConnectionError', async () => {
		const server = await startServer({ script: { text: 'too late', delayMs: 10_000 } });
		const error = await rejectionOf(askOpenAi(openAiClient(server, { timeout: 50 })));
		// Plain node gives the subclass APIConnectionTimeoutError; under jest the SDK cannot recognise
		// undici's AbortError (it comes from another realm) and reports "Connection error." instead.
		expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
		expect(error.status).toBeUndefined();
	});

	it('lists the configured models', async () => {
		const server = await startServer({ models: ['alpha', 'beta'] });
		const ids: string[] = [];
		for await (const model of openAiClient(server).models.list()) ids.push(model.id);
		expect(ids).toEqual(['alpha', 'beta']);
	});
});

describe('scripted server with the real @google/genai SDK', () => {
	it('answers generateContent with the scripted text and estimated usage', async () => {
		const server = await startServer({ script: 'Final: done' });
		const response = await geminiClient(server).models.generateContent({
			model: 'gemini-test',
			contents: '12345678',
			config: { systemInstruction: 'abcd' },
		});

		expect(response.text).toBe('Final: done');
		expect(response.candidates?.[0].finishReason).toBe('STOP');
		expect(response.candidates?.[0].content?.role).toBe('model');
		expect(response.usageMetadata).toEqual({
			promptTokenCount: 3,
			candidatesTokenCount: 3,
			totalTokenCount: 6,
		});
		expect(server.requests[0]).toMatchObject({
			provider: 'gemini',
			model: 'gemini-test',
			callIndex: 0,
		});
	});

	it('reports scripted usage instead of the estimate', async () => {
		const server = await startServer({
			script: { text: 'ok', usage: { prompt_tokens: 40, completion_tokens: 2 } },
		});
		const response = await geminiClient(server).models.generateContent({
			model: 'g',
			contents: 'x',
		});
		expect(response.usageMetadata).toEqual({
			promptTokenCount: 40,
			candidatesTokenCount: 2,
			totalTokenCount: 42,
		});
	});

	it('surfaces scripted 429 and 500 as ApiError with the status and the Google status name', async () => {
		const server = await startServer({
			script: [{ status: 429, errorMessage: 'quota' }, { status: 500 }],
		});
		const client = geminiClient(server);

		const rateLimited = await rejectionOf(askGemini(client));
		expect(rateLimited).toBeInstanceOf(ApiError);
		expect(rateLimited.name).toBe('ApiError');
		expect(rateLimited.status).toBe(429);
		// The SDK puts the whole JSON error body in the message.
		expect(JSON.parse(rateLimited.message)).toEqual({
			error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' },
		});

		const failed = await rejectionOf(askGemini(client));
		expect(failed).toBeInstanceOf(ApiError);
		expect(failed.status).toBe(500);
		expect(JSON.parse(failed.message).error.status).toBe('INTERNAL');
	});

	it('rejects a call aborted through config.abortSignal with an AbortError and keeps serving', async () => {
		const server = await startServer({ script: [{ text: 'too late', delayMs: 10_000 }, 'next'] });
		const client = geminiClient(server);
		const controller = new AbortController();
		const pending = client.models.generateContent({
			model: 'g',
			contents: 'x',
			config: { abortSignal: controller.signal },
		});
		await waitForRequests(server, 1);
		controller.abort(new Error('the reason is not passed on'));

		expect(isAbortError(await rejectionOf(pending))).toBe(true);
		expect(await askGemini(client)).toBe('next');
	});

	it('rejects a call slower than httpOptions.timeout with the same AbortError as a caller abort', async () => {
		const server = await startServer({ script: { text: 'too late', delayMs: 10_000 } });
		const error = await rejectionOf(askGemini(geminiClient(server, { timeout: 50 })));
		expect(isAbortError(error)).toBe(true);
		expect(error).not.toBeInstanceOf(ApiError);
	});

	it('lists the configured models for v1beta and v1', async () => {
		const server = await startServer({ models: ['alpha', 'beta'] });
		for (const apiVersion of ['v1beta', 'v1']) {
			const names: string[] = [];
			for await (const model of await geminiClient(server, { apiVersion }).models.list())
				names.push(String(model.name));
			expect(names).toEqual(['models/alpha', 'models/beta']);
		}
	});
});

describe('scripts', () => {
	it('replays an array in call order and confirms every reply was used', async () => {
		const server = await startServer({ script: ['first', 'second', 'third'] });
		const openai = openAiClient(server);
		const gemini = geminiClient(server);

		expect(await askOpenAi(openai)).toBe('first');
		expect(await askGemini(gemini)).toBe('second');
		expect(() => server.assertAllUsed()).toThrow(
			'1 scripted reply was never requested (calls 2..2)',
		);
		expect(await askOpenAi(openai)).toBe('third');
		expect(() => server.assertAllUsed()).not.toThrow();
		expect(server.requests.map((request) => [request.provider, request.callIndex])).toEqual([
			['openai', 0],
			['gemini', 1],
			['openai', 2],
		]);
	});

	it('answers a call beyond the array with a 500 naming the call, and records it', async () => {
		const server = await startServer({ script: ['only'] });
		const client = openAiClient(server);
		await askOpenAi(client);

		const error = await rejectionOf(askOpenAi(client, 'one more'));
		expect(error.status).toBe(500);
		expect(error.error.message).toBe('scripted server: no reply scripted for call 1');
		expect(server.requests[1]).toMatchObject({
			callIndex: 1,
			messages: [{ role: 'user', content: 'one more' }],
		});
	});

	it('gives a function script the OpenAI call in neutral messages', async () => {
		const server = await startServer({ script: (request) => `seen ${request.messages.length}` });
		const completion = await openAiClient(server).chat.completions.create({
			model: 'gpt-test',
			messages: [
				{ role: 'system', content: 'rules' },
				{
					role: 'user',
					content: [
						{ type: 'text', text: 'part one, ' },
						{ type: 'text', text: 'part two' },
					],
				},
				{ role: 'assistant', content: 'earlier answer' },
			],
			temperature: 0,
		});

		expect(completion.choices[0].message.content).toBe('seen 3');
		expect(server.requests[0]).toMatchObject({
			provider: 'openai',
			model: 'gpt-test',
			callIndex: 0,
			body: { temperature: 0 },
			messages: [
				{ role: 'system', content: 'rules' },
				{ role: 'user', content: 'part one, part two' },
				{ role: 'assistant', content: 'earlier answer' },
			],
		});
	});

	it('gives a function script the Gemini call with the system instruction first and roles mapped', async () => {
		const seen: unknown[] = [];
		const server = await startServer({
			script: async (request) => {
				seen.push(request.messages);
				return 'ok';
			},
		});
		await geminiClient(server).models.generateContent({
			model: 'gemini-test',
			contents: [
				{ role: 'user', parts: [{ text: 'question ' }, { text: 'in two parts' }] },
				{ role: 'model', parts: [{ text: 'earlier answer' }] },
				{ role: 'user', parts: [{ text: 'follow-up' }] },
			],
			config: { systemInstruction: 'rules' },
		});

		expect(seen).toEqual([
			[
				{ role: 'system', content: 'rules' },
				{ role: 'user', content: 'question in two parts' },
				{ role: 'assistant', content: 'earlier answer' },
				{ role: 'user', content: 'follow-up' },
			],
		]);
	});

	it('answers 500 with the message when a function script throws', async () => {
		const server = await startServer({
			script: () => {
				throw new Error('script bug');
			},
		});
		const error = await rejectionOf(askOpenAi(openAiClient(server)));
		expect(error.status).toBe(500);
		expect(error.error.message).toBe('scripted server: the script threw: script bug');
	});

	it('restarts call numbering when the script is replaced', async () => {
		const server = await startServer({ script: ['a', 'b'] });
		const client = openAiClient(server);
		await askOpenAi(client);
		server.setScript(['x']);

		expect(await askOpenAi(client)).toBe('x');
		expect(server.requests.map((request) => request.callIndex)).toEqual([0, 0]);
		server.assertAllUsed();
	});
});

describe('endpoints without JSON mode', () => {
	it('rejects response_format with the OpenAI 400 without consuming a reply', async () => {
		const server = await startServer({ script: ['plain answer'], rejectResponseFormat: true });
		const client = openAiClient(server);
		const messages = [{ role: 'user' as const, content: 'x' }];

		const error = await rejectionOf(
			client.chat.completions.create({
				model: 'm',
				messages,
				response_format: { type: 'json_object' },
			}),
		);
		expect(error).toBeInstanceOf(OpenAI.BadRequestError);
		expect(error.status).toBe(400);
		expect(error.param).toBe('response_format');
		expect(error.error).toEqual({
			message: 'Unrecognized request argument supplied: response_format',
			type: 'invalid_request_error',
			param: 'response_format',
			code: null,
		});

		const completion = await client.chat.completions.create({ model: 'm', messages });
		expect(completion.choices[0].message.content).toBe('plain answer');
		expect(server.requests).toHaveLength(2);
		expect(server.requests[0].body.response_format).toEqual({ type: 'json_object' });
		expect(server.requests.map((request) => request.callIndex)).toEqual([0, 0]);
		server.assertAllUsed();
	});

	it('accepts response_format when the option is off', async () => {
		const server = await startServer({ script: '{"final":"ok"}' });
		const completion = await openAiClient(server).chat.completions.create({
			model: 'm',
			messages: [{ role: 'user', content: 'x' }],
			response_format: { type: 'json_object' },
		});
		expect(completion.choices[0].message.content).toBe('{"final":"ok"}');
	});
});

describe('malformed requests', () => {
	it('answers broken JSON with a 400 in each provider format and records no call', async () => {
		const server = await startServer({ script: 'unused' });

		const openai = await rawPost(`${server.openaiBaseUrl}/chat/completions`, '{"messages": [');
		expect(openai.status).toBe(400);
		expect(openai.json.error).toMatchObject({
			type: 'invalid_request_error',
			param: null,
			code: null,
		});
		expect(openai.json.error.message).toMatch(/not valid JSON/);

		const gemini = await rawPost(
			`${server.geminiBaseUrl}/v1beta/models/g:generateContent`,
			'not json',
		);
		expect(gemini.status).toBe(400);
		expect(gemini.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
		expect(server.requests).toHaveLength(0);
	});

	it('answers an unknown path with a 404 JSON error', async () => {
		const server = await startServer();
		const response = await rawPost(`${server.url}/v2/nowhere`, '{}');
		expect(response.status).toBe(404);
		expect(response.json.error.message).toBe('scripted server: no route for POST /v2/nowhere');
	});
});

describe('closing', () => {
	it('closes promptly with a keep-alive connection open and a delayed reply pending', async () => {
		const server = await startServer({
			script: ['quick', { text: 'never sent', delayMs: 60_000 }],
		});
		const client = openAiClient(server);
		expect(await askOpenAi(client)).toBe('quick');
		const pending = rejectionOf(askOpenAi(client));
		await waitForRequests(server, 2);

		const startedAt = Date.now();
		await server.close();
		expect(Date.now() - startedAt).toBeLessThan(1000);
		expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);

		const refused = await new Promise<Error>((resolve) =>
			http.get(server.url, () => undefined).on('error', resolve),
		);
		expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
	});
});

/** The `data:` payloads of an event stream, checking that every event is one `data:` line and ends as `separator` says. */
function eventsOf(body: string, separator: '\n\n' | '\r\n\r\n'): string[] {
	expect(body.endsWith(separator)).toBe(true);
	const events = body.slice(0, -separator.length).split(separator);
	for (const event of events) expect(event).toMatch(/^data: [^\r\n]*$/);
	return events.map((event) => event.slice('data: '.length));
}

async function postStream(url: string, body: object): Promise<Response> {
	return fetch(url, {
		method: 'POST',
		body: JSON.stringify(body),
		headers: { 'content-type': 'application/json' },
	});
}

const openAiStreamBody = (extra: object = {}) => ({
	model: 'gpt-test',
	messages: [{ role: 'user', content: '12345678' }],
	stream: true,
	...extra,
});
const geminiStreamBody = { contents: [{ role: 'user', parts: [{ text: '12345678' }] }] };
const geminiStreamPath = '/v1beta/models/gemini-test:streamGenerateContent?alt=sse';

describe('streamed answers on the wire', () => {
	it('streams OpenAI chunks: role first, the text in the scripted pieces, finish_reason last, the usage chunk with no choices, then [DONE]', async () => {
		const server = await startServer({
			script: {
				chunks: ['Hel', 'lo, ', 'world'],
				usage: { prompt_tokens: 9, completion_tokens: 4 },
			},
		});
		const response = await postStream(
			`${server.url}/v1/chat/completions`,
			openAiStreamBody({ stream_options: { include_usage: true } }),
		);
		expect(response.headers.get('content-type')).toBe('text/event-stream');
		const events = eventsOf(await response.text(), '\n\n');

		expect(events[events.length - 1]).toBe('[DONE]');
		const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
		for (const chunk of chunks) {
			expect(chunk).toMatchObject({
				id: chunks[0].id,
				object: 'chat.completion.chunk',
				created: chunks[0].created,
				model: 'gpt-test',
			});
		}
		const usageChunk = chunks.pop();
		expect(usageChunk.choices).toEqual([]);
		expect(usageChunk.usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
		for (const chunk of chunks) expect(chunk.usage).toBeNull();
		expect(chunks[0].choices[0].delta.role).toBe('assistant');
		expect(chunks.slice(1).some((chunk) => 'role' in chunk.choices[0].delta)).toBe(false);
		expect(
			chunks
				.map((chunk) => chunk.choices[0].delta.content ?? '')
				.filter((piece: string) => piece !== ''),
		).toEqual(['Hel', 'lo, ', 'world']);
		expect(chunks.map((chunk) => chunk.choices[0].finish_reason)).toEqual([
			...chunks.slice(1).map(() => null),
			'stop',
		]);
		for (const chunk of chunks)
			expect(chunk.choices[0]).toMatchObject({ index: 0, logprobs: null });
		expect(server.requests[0]).toMatchObject({ streamed: true, body: { stream: true } });
	});

	it('streams OpenAI chunks without usage when include_usage is not asked for', async () => {
		const server = await startServer({ script: 'streamed without usage' });
		const events = eventsOf(
			await (await postStream(`${server.url}/v1/chat/completions`, openAiStreamBody())).text(),
			'\n\n',
		);
		const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
		expect(chunks.length).toBeGreaterThan(3);
		for (const chunk of chunks) {
			expect(chunk).not.toHaveProperty('usage');
			expect(chunk.choices).toHaveLength(1);
		}
		expect(chunks.map((chunk) => chunk.choices[0].delta.content ?? '').join('')).toBe(
			'streamed without usage',
		);
	});

	it('streams OpenAI tool calls as an opening delta with the name, then the arguments', async () => {
		const server = await startServer({
			script: { text: '', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
		});
		const events = eventsOf(
			await (await postStream(`${server.url}/v1/chat/completions`, openAiStreamBody())).text(),
			'\n\n',
		);
		const deltas = events.slice(0, -1).map((event) => JSON.parse(event).choices[0]);
		expect(deltas[0].delta).toMatchObject({ role: 'assistant', content: null });
		const calls = deltas.flatMap((choice) => choice.delta.tool_calls ?? []);
		expect(calls[0]).toMatchObject({
			index: 0,
			id: 'call_scripted_0',
			type: 'function',
			function: { name: 'get_weather' },
		});
		expect(JSON.parse(calls.map((call: any) => call.function.arguments).join(''))).toEqual({
			city: 'Paris',
		});
		expect(deltas[deltas.length - 1].finish_reason).toBe('tool_calls');
	});

	it('ends an OpenAI stream with the error event after the scripted number of pieces, and no [DONE]', async () => {
		const server = await startServer({
			script: { chunks: ['one ', 'two ', 'three'], streamErrorAfter: 2, errorMessage: 'broke off' },
		});
		const response = await postStream(`${server.url}/v1/chat/completions`, openAiStreamBody());
		expect(response.status).toBe(200);
		const events = eventsOf(await response.text(), '\n\n');
		expect(JSON.parse(events[events.length - 1])).toEqual({
			error: { message: 'broke off', type: 'server_error', param: null, code: null },
		});
		const pieces = events
			.slice(0, -1)
			.map((event) => JSON.parse(event).choices[0].delta.content ?? '');
		expect(pieces.join('')).toBe('one two ');
	});

	it('streams Gemini events as whole responses with cumulative usage, finishReason only on the last, and no [DONE]', async () => {
		const server = await startServer({
			script: {
				chunks: ['Hel', 'lo, ', 'world'],
				usage: { prompt_tokens: 9, completion_tokens: 6 },
			},
		});
		const response = await postStream(`${server.url}${geminiStreamPath}`, geminiStreamBody);
		expect(response.headers.get('content-type')).toBe('text/event-stream');
		const events = eventsOf(await response.text(), '\r\n\r\n');

		expect(events).not.toContain('[DONE]');
		const chunks = events.map((event) => JSON.parse(event));
		expect(chunks.map((chunk) => chunk.candidates[0].content.parts[0].text)).toEqual([
			'Hel',
			'lo, ',
			'world',
		]);
		expect(chunks.map((chunk) => chunk.candidates[0].finishReason)).toEqual([
			undefined,
			undefined,
			'STOP',
		]);
		expect(chunks.map((chunk) => chunk.usageMetadata.candidatesTokenCount)).toEqual([2, 4, 6]);
		expect(chunks.map((chunk) => chunk.usageMetadata.promptTokenCount)).toEqual([9, 9, 9]);
		expect(chunks[2].usageMetadata.totalTokenCount).toBe(15);
		for (const chunk of chunks)
			expect(chunk).toMatchObject({
				modelVersion: 'gemini-test',
				responseId: chunks[0].responseId,
			});
		expect(server.requests[0]).toMatchObject({
			provider: 'gemini',
			model: 'gemini-test',
			streamed: true,
		});
	});

	it('ends a Gemini stream with the error event after the scripted number of pieces', async () => {
		const server = await startServer({
			script: { chunks: ['one ', 'two'], streamErrorAfter: 1, errorMessage: 'broke off' },
		});
		const events = eventsOf(
			await (await postStream(`${server.url}${geminiStreamPath}`, geminiStreamBody)).text(),
			'\r\n\r\n',
		);
		expect(events).toHaveLength(2);
		expect(JSON.parse(events[0]).candidates[0].content.parts[0].text).toBe('one ');
		expect(JSON.parse(events[1])).toEqual({
			error: { code: 500, message: 'broke off', status: 'INTERNAL' },
		});
	});

	it.each<[string, string, object]>([
		['openai', '/v1/chat/completions', openAiStreamBody()],
		['gemini', geminiStreamPath, geminiStreamBody],
	])(
		'answers a scripted HTTP error to a %s stream request as JSON, before any event',
		async (_provider, path, body) => {
			const server = await startServer({
				script: { status: 429, errorMessage: 'slow down', chunkDelayMs: 10 },
			});
			const response = await postStream(`${server.url}${path}`, body);
			expect(response.status).toBe(429);
			expect(response.headers.get('content-type')).toMatch(/^application\/json/);
			expect(((await response.json()) as any).error.message).toBe('slow down');
		},
	);

	it('sends each event when it is due, not the stream at the end, and notes a client that leaves mid-stream', async () => {
		// The second event is due in a minute: reading the first proves events are not held back.
		const server = await startServer({
			script: { chunks: ['first', 'second'], chunkDelayMs: 60_000 },
		});
		const controller = new AbortController();
		const response = await fetch(`${server.url}${geminiStreamPath}`, {
			method: 'POST',
			body: JSON.stringify(geminiStreamBody),
			signal: controller.signal,
		});
		const reader = response.body!.getReader();
		const { value } = await reader.read();
		expect(new TextDecoder().decode(value)).toMatch(/^data: .*"text":"first".*\r\n\r\n$/);
		expect(server.requests[0].clientLeftEarly).toBe(false);

		controller.abort();
		await reader.cancel().catch(() => undefined);
		await waitFor(
			() => server.requests[0].clientLeftEarly,
			'the server to note the client leaving',
		);
	});

	it('breaks the connection after the scripted number of pieces, without ending the stream', async () => {
		const server = await startServer({ script: { chunks: ['kept ', 'lost'], streamCutAfter: 1 } });
		const response = await postStream(`${server.url}/v1/chat/completions`, openAiStreamBody());
		const reader = response.body!.getReader();
		let received = '';
		const error = await rejectionOf(
			(async () => {
				for (;;) {
					const { value, done } = await reader.read();
					if (done) return;
					received += new TextDecoder().decode(value);
				}
			})(),
		);
		// undici's TypeError ("terminated"), from node's realm rather than jest's.
		expect(error.name).toBe('TypeError');
		expect(received).toContain('"content":"kept "');
		expect(received).not.toContain('lost');
		expect(received).not.toContain('[DONE]');
	});

	it('refuses chunks that do not join to the scripted text with a 500 naming the mistake', async () => {
		const server = await startServer({ script: { text: 'whole', chunks: ['who', 'LE'] } });
		const response = await rawPost(
			`${server.url}/v1/chat/completions`,
			JSON.stringify(openAiStreamBody()),
		);
		expect(response.status).toBe(500);
		expect(response.json.error.message).toMatch(/chunks do not join to the scripted text/);
	});
});

/** Bounded polling, so that a state that never comes fails the test instead of hanging it. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
	const deadline = Date.now() + 5000;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
