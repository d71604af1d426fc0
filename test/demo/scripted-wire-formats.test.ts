/**
 * The scripted server's Anthropic Messages, OpenAI Responses and Ollama native formats, each through
 * the vendor's real client where one is installed (@anthropic-ai/sdk, openai, @langchain/openai). The
 * `ollama` npm client is not installed, so the Ollama tests use plain fetch, as ollama-js does.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ChatOpenAI } from '@langchain/openai';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { startsScriptedServers } from '../support/agent';
import { rejectionOf } from '../support/rejection';

const startServer = startsScriptedServers();

describe('Anthropic Messages API through @anthropic-ai/sdk', () => {
	function anthropicClient(server: ScriptedServer): Anthropic {
		return new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
	}

	it('reads the top-level system and consecutive user turns and answers a Message with end_turn', async () => {
		const server = await startServer({ script: 'Bonjour' });
		const message = await anthropicClient(server).messages.create({
			model: 'claude-test',
			max_tokens: 100,
			system: [{ type: 'text', text: 'Be brief.' }],
			messages: [
				{ role: 'user', content: 'first' },
				{ role: 'user', content: [{ type: 'text', text: 'second' }] },
			],
		});
		expect(message).toMatchObject({
			type: 'message',
			role: 'assistant',
			model: 'claude-test',
			content: [{ type: 'text', text: 'Bonjour' }],
			stop_reason: 'end_turn',
			stop_sequence: null,
		});
		expect(message.usage.input_tokens).toBeGreaterThan(0);
		expect(message.usage.output_tokens).toBeGreaterThan(0);
		const [request] = server.requests;
		expect(request.provider).toBe('anthropic');
		expect(request.messages).toEqual([
			{ role: 'system', content: 'Be brief.' },
			{ role: 'user', content: 'first' },
			{ role: 'user', content: 'second' },
		]);
		expect(request.headers['x-api-key']).toBe('test-key');
		expect(request.headers['anthropic-version']).toBe('2023-06-01');
	});

	it('names a length finish max_tokens and a content filter refusal', async () => {
		const server = await startServer({
			script: [
				{ text: 'cut', finishReason: 'length' },
				{ text: '', finishReason: 'content_filter' },
			],
		});
		const client = anthropicClient(server);
		const ask = () =>
			client.messages.create({
				model: 'claude-test',
				max_tokens: 5,
				messages: [{ role: 'user', content: 'hi' }],
			});
		expect((await ask()).stop_reason).toBe('max_tokens');
		expect((await ask()).stop_reason).toBe('refusal');
	});

	it('streams message_start, text deltas and message_stop that the SDK assembles into the final Message', async () => {
		const server = await startServer({ script: { chunks: ['Hel', 'lo ', 'there'] } });
		const stream = anthropicClient(server).messages.stream({
			model: 'claude-test',
			max_tokens: 100,
			messages: [{ role: 'user', content: 'hi' }],
		});
		const texts: string[] = [];
		stream.on('text', (text) => texts.push(text));
		const message = await stream.finalMessage();
		expect(texts).toEqual(['Hel', 'lo ', 'there']);
		expect(message.content).toEqual([{ type: 'text', text: 'Hello there' }]);
		expect(message.stop_reason).toBe('end_turn');
		expect(message.usage.output_tokens).toBeGreaterThan(0);
		expect(server.requests[0].streamed).toBe(true);
	});

	it('sends a mid-stream failure as an error event, which the SDK throws', async () => {
		const server = await startServer({
			script: { chunks: ['one', 'two'], streamErrorAfter: 1, errorMessage: 'Overloaded' },
		});
		const stream = anthropicClient(server).messages.stream({
			model: 'claude-test',
			max_tokens: 100,
			messages: [{ role: 'user', content: 'hi' }],
		});
		const error = await rejectionOf(stream.finalMessage());
		expect(String(error.message)).toContain('Overloaded');
	});

	it('answers an error status in Anthropic error form with the type the status means', async () => {
		const server = await startServer({
			script: [
				{ status: 429, errorMessage: 'slow down' },
				{ status: 529, errorMessage: 'Overloaded' },
			],
		});
		const client = anthropicClient(server);
		const ask = () =>
			client.messages.create({
				model: 'claude-test',
				max_tokens: 5,
				messages: [{ role: 'user', content: 'hi' }],
			});
		const rateLimited = await rejectionOf(ask());
		expect(rateLimited).toBeInstanceOf(Anthropic.RateLimitError);
		expect(rateLimited.status).toBe(429);
		// @anthropic-ai/sdk (0.115, as n8n 2.41 bundles; 0.27 too): `.error` is the whole body, `{type:"error", error:{type, message}, request_id}`.
		expect(rateLimited.error).toMatchObject({
			type: 'error',
			error: { type: 'rate_limit_error', message: 'slow down' },
		});
		const overloaded = await rejectionOf(ask());
		expect(overloaded.status).toBe(529);
		expect(overloaded.error.error.type).toBe('overloaded_error');
	});

	it('refuses temperature together with top_p with the documented 400', async () => {
		const server = await startServer({ script: 'unused' });
		const client = anthropicClient(server);
		const error = await rejectionOf(
			client.messages.create({
				model: 'claude-test',
				max_tokens: 5,
				temperature: 0.5,
				top_p: 0.9,
				messages: [{ role: 'user', content: 'hi' }],
			}),
		);
		expect(error.status).toBe(400);
		expect(error.error.error).toEqual({
			type: 'invalid_request_error',
			message:
				'`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
		});
	});

	it('answers 400 invalid_request_error when max_tokens is missing', async () => {
		const server = await startServer({ script: 'unused' });
		const error = await rejectionOf(
			anthropicClient(server).messages.create({
				model: 'claude-test',
				messages: [{ role: 'user', content: 'hi' }],
			} as any),
		);
		expect(error.status).toBe(400);
		expect(error.error.error.type).toBe('invalid_request_error');
		expect(error.error.error.message).toContain('max_tokens');
		expect(server.requests).toHaveLength(0);
	});
});

describe('OpenAI Responses API through the openai SDK and @langchain/openai', () => {
	function openAiClient(server: ScriptedServer): OpenAI {
		return new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseUrl, maxRetries: 0 });
	}

	it('reads instructions and input items and answers a completed Response whose output_text the SDK finds', async () => {
		const server = await startServer({ script: { text: 'Hi there', reasoningTokens: 3 } });
		const response = await openAiClient(server).responses.create({
			model: 'gpt-test',
			instructions: 'Be brief.',
			input: [
				{ role: 'user', content: 'first' },
				{ role: 'user', content: [{ type: 'input_text', text: 'second' }] },
			],
		});
		expect(response).toMatchObject({
			object: 'response',
			status: 'completed',
			model: 'gpt-test',
			incomplete_details: null,
		});
		expect(response.output).toMatchObject([
			{
				type: 'message',
				role: 'assistant',
				content: [{ type: 'output_text', text: 'Hi there', annotations: [] }],
			},
		]);
		expect(response.output_text).toBe('Hi there');
		expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(3);
		expect(response.usage?.total_tokens).toBe(
			(response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0),
		);
		expect(server.requests[0]).toMatchObject({ provider: 'openai-responses', streamed: false });
		expect(server.requests[0].messages).toEqual([
			{ role: 'system', content: 'Be brief.' },
			{ role: 'user', content: 'first' },
			{ role: 'user', content: 'second' },
		]);
	});

	it('ends a length finish incomplete with reason max_output_tokens', async () => {
		const server = await startServer({ script: { text: 'cut', finishReason: 'length' } });
		const response = await openAiClient(server).responses.create({
			model: 'gpt-test',
			input: 'hello',
		});
		expect(response.status).toBe('incomplete');
		expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
	});

	it('streams created, output_text deltas and completed events in sequence order', async () => {
		const server = await startServer({ script: { chunks: ['Hel', 'lo'] } });
		const stream = await openAiClient(server).responses.create({
			model: 'gpt-test',
			input: 'hello',
			stream: true,
		});
		const events: any[] = [];
		for await (const event of stream) events.push(event);
		expect(events[0].type).toBe('response.created');
		expect(
			events
				.filter((event) => event.type === 'response.output_text.delta')
				.map((event) => event.delta),
		).toEqual(['Hel', 'lo']);
		const last = events[events.length - 1];
		expect(last.type).toBe('response.completed');
		expect(last.response.output[0].content[0].text).toBe('Hello');
		expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
	});

	it('sends a mid-stream failure as an error event after the text so far', async () => {
		const server = await startServer({
			script: { chunks: ['one', 'two'], streamErrorAfter: 1, errorMessage: 'boom' },
		});
		const stream = await openAiClient(server).responses.create({
			model: 'gpt-test',
			input: 'hello',
			stream: true,
		});
		const events: any[] = [];
		for await (const event of stream) events.push(event);
		expect(
			events
				.filter((event) => event.type === 'response.output_text.delta')
				.map((event) => event.delta),
		).toEqual(['one']);
		expect(events[events.length - 1]).toMatchObject({
			type: 'error',
			code: 'server_error',
			message: 'boom',
		});
	});

	it('answers an error status in OpenAI error form, which the SDK throws with its status', async () => {
		const server = await startServer({ script: { status: 429, errorMessage: 'slow down' } });
		const error = await rejectionOf(
			openAiClient(server).responses.create({ model: 'gpt-test', input: 'hello' }),
		);
		expect(error).toBeInstanceOf(OpenAI.RateLimitError);
		expect(error.error).toMatchObject({ message: 'slow down', code: 'rate_limit_exceeded' });
	});

	function chatModel(server: ScriptedServer): ChatOpenAI {
		return new ChatOpenAI({
			model: 'gpt-test',
			apiKey: 'test',
			useResponsesApi: true,
			maxRetries: 0,
			configuration: { baseURL: server.openaiBaseUrl },
		});
	}

	it('serves ChatOpenAI with useResponsesApi: invoke gets the text and the usage', async () => {
		const server = await startServer({ script: 'Bonjour' });
		const message = await chatModel(server).invoke([
			new SystemMessage('Be brief.'),
			new HumanMessage('hello'),
		]);
		expect(message.text).toBe('Bonjour');
		expect(message.usage_metadata?.output_tokens).toBeGreaterThan(0);
		expect(server.requests[0].provider).toBe('openai-responses');
		expect(server.requests[0].messages.map((entry) => entry.role)).toEqual(['system', 'user']);
	});

	it('serves ChatOpenAI with useResponsesApi: stream yields the pieces and ends with the usage', async () => {
		const server = await startServer({ script: { chunks: ['Bon', 'jour'] } });
		const pieces: string[] = [];
		let outputTokens: number | undefined;
		for await (const chunk of await chatModel(server).stream([new HumanMessage('hello')])) {
			if (chunk.text) pieces.push(chunk.text);
			outputTokens = chunk.usage_metadata?.output_tokens ?? outputTokens;
		}
		expect(pieces).toEqual(['Bon', 'jour']);
		expect(outputTokens).toBeGreaterThan(0);
		expect(server.requests[0].streamed).toBe(true);
	});
});

describe('Ollama native chat API over plain fetch (the ollama npm client is not installed)', () => {
	function postChat(server: ScriptedServer, body: object): Promise<Response> {
		return fetch(`${server.url}/api/chat`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
	}

	it('answers stream: false with one done message carrying done_reason and the eval counts', async () => {
		const server = await startServer({ script: 'Hallo' });
		const answer = await postChat(server, {
			model: 'llama-test',
			stream: false,
			options: { temperature: 0 },
			messages: [
				{ role: 'system', content: 'Be brief.' },
				{ role: 'user', content: 'hi' },
			],
		});
		expect(answer.status).toBe(200);
		const body: any = await answer.json();
		expect(body).toMatchObject({
			model: 'llama-test',
			message: { role: 'assistant', content: 'Hallo' },
			done: true,
			done_reason: 'stop',
		});
		expect(body.prompt_eval_count).toBeGreaterThan(0);
		expect(body.eval_count).toBeGreaterThan(0);
		expect(typeof body.total_duration).toBe('number');
		expect(server.requests[0]).toMatchObject({
			provider: 'ollama',
			streamed: false,
			messages: [
				{ role: 'system', content: 'Be brief.' },
				{ role: 'user', content: 'hi' },
			],
		});
	});

	it('streams NDJSON by default: done:false pieces, then a done:true line with length as done_reason', async () => {
		const server = await startServer({ script: { chunks: ['Hal', 'lo'], finishReason: 'length' } });
		const answer = await postChat(server, {
			model: 'llama-test',
			messages: [{ role: 'user', content: 'hi' }],
		});
		expect(answer.headers.get('content-type')).toBe('application/x-ndjson');
		const lines = (await answer.text())
			.trim()
			.split('\n')
			.map((line) => JSON.parse(line));
		expect(lines.map((line) => [line.message.content, line.done])).toEqual([
			['Hal', false],
			['lo', false],
			['', true],
		]);
		expect(lines[2]).toMatchObject({ done_reason: 'length' });
		expect(lines[2].eval_count).toBeGreaterThan(0);
		expect(server.requests[0].streamed).toBe(true);
	});

	it('ends a stream that fails midway with an error line', async () => {
		const server = await startServer({
			script: { chunks: ['one', 'two'], streamErrorAfter: 1, errorMessage: 'boom' },
		});
		const answer = await postChat(server, {
			model: 'llama-test',
			messages: [{ role: 'user', content: 'hi' }],
		});
		const lines = (await answer.text())
			.trim()
			.split('\n')
			.map((line) => JSON.parse(line));
		expect(lines).toEqual([
			expect.objectContaining({ message: { role: 'assistant', content: 'one' }, done: false }),
			{ error: 'boom' },
		]);
	});

	it('answers errors as {"error": message} with the status, and 400 for a missing model', async () => {
		const server = await startServer({
			script: { status: 404, errorMessage: 'model "llama-test" not found, try pulling it first' },
		});
		const notFound = await postChat(server, { model: 'llama-test', stream: false, messages: [] });
		expect(notFound.status).toBe(404);
		expect(await notFound.json()).toEqual({
			error: 'model "llama-test" not found, try pulling it first',
		});
		const noModel = await postChat(server, { messages: [] });
		expect(noModel.status).toBe(400);
		expect(((await noModel.json()) as any).error).toContain('model is required');
	});

	it('lists the served models on /api/tags and tells its version on /api/version', async () => {
		const server = await startServer({ models: ['llama-test', 'qwen-test'] });
		const tags: any = await (await fetch(`${server.url}/api/tags`)).json();
		expect(tags.models.map((model: any) => [model.name, model.model])).toEqual([
			['llama-test', 'llama-test'],
			['qwen-test', 'qwen-test'],
		]);
		const version: any = await (await fetch(`${server.url}/api/version`)).json();
		expect(typeof version.version).toBe('string');
		const unknown = await fetch(`${server.url}/api/nothing`);
		expect(unknown.status).toBe(404);
		expect(typeof ((await unknown.json()) as any).error).toBe('string');
	});
});
