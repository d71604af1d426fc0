import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatAnthropic } from '@langchain/anthropic';
import { runAgent } from '../../src';
import { LangChainChatModel, MAX_MESSAGE_STARTS } from '../../src/providers/langchain';
import { useEventLoopWatchdog } from '../support/watchdog';

/**
 * A hostile (or broken) Anthropic endpoint behind n8n's Anthropic Chat Model sub-node (the real ChatAnthropic
 * 1.5.6): the event stream is read beside LangChain's chunks (issue #27), so what it sends there must neither
 * inflate the run's usage, nor flood the run's error, nor stall the process.
 */
const event = (type: string, fields: object) =>
	`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const message = (usage: object) => ({
	id: 'msg_hostile',
	type: 'message',
	role: 'assistant',
	model: 'claude-x',
	content: [],
	stop_reason: null,
	stop_sequence: null,
	usage,
});

/** Serves `body` as the event stream of every call; resolves to its URL, the request count and a close. */
async function streamServer(
	body: string,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
	let requests = 0;
	const server = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			requests++;
			response.writeHead(200, { 'content-type': 'text/event-stream' });
			response.end(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests: () => requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

async function streamedRun(url: string) {
	const model = new ChatAnthropic({
		anthropicApiKey: 'sk-ant-hostile-0001',
		model: 'claude-x',
		anthropicApiUrl: url,
		maxRetries: 0,
	});
	return runAgent({
		model: new LangChainChatModel(model),
		config: { model: 'claude-x' },
		prompt: 'q',
		onEvent: () => undefined,
	});
}

/** The real ChatAnthropic, counting the chunks it makes from the events it reads. */
class CountingAnthropic extends ChatAnthropic {
	chunksRead = 0;
	override async *_streamResponseChunks(
		...args: Parameters<ChatAnthropic['_streamResponseChunks']>
	) {
		for await (const chunk of super._streamResponseChunks(...args)) {
			this.chunksRead++;
			yield chunk;
		}
	}
}

const text = (value: string) => [
	event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
	event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: value } }),
	event('content_block_stop', { index: 0 }),
];

describe('hostile providers3: an Anthropic event stream through ChatAnthropic', () => {
	useEventLoopWatchdog('providers3');

	it('ends 5,000 repeated message_start events with the named anthropic stream error after at most 10 starts, after one call', async () => {
		const starts = event('message_start', {
			message: message({ input_tokens: 40, output_tokens: 1 }),
		}).repeat(5_000);
		const body =
			starts +
			text('{"type":"final","answer":"ok"}').join('') +
			event('message_delta', {
				delta: { stop_reason: 'end_turn', stop_sequence: null },
				usage: { output_tokens: 7 },
			}) +
			event('message_stop', {});
		const server = await streamServer(body);
		try {
			const model = new CountingAnthropic({
				anthropicApiKey: 'sk-ant-hostile-0001',
				model: 'claude-x',
				anthropicApiUrl: server.url,
				maxRetries: 0,
			});
			const result = await runAgent({
				model: new LangChainChatModel(model),
				config: { model: 'claude-x' },
				prompt: 'q',
				onEvent: () => undefined,
			});
			expect(result.finish_reason).toBe('llm_error');
			expect(result.stop_detail).toContain(
				`The anthropic stream sent ${MAX_MESSAGE_STARTS + 1} message starts, so the call stopped reading it`,
			);
			// The tap counts events before ChatAnthropic makes them chunks: the 11th start never became one.
			expect(model.chunksRead).toBeLessThanOrEqual(MAX_MESSAGE_STARTS);
			expect(server.requests()).toBe(1);
		} finally {
			await server.close();
		}
	});

	it('still counts a repeated message_start once, and reads string and negative counts as 0', async () => {
		const start = event('message_start', {
			message: message({ input_tokens: 40, output_tokens: 1 }),
		});
		const body =
			start +
			start +
			text('{"type":"final","answer":"ok"}').join('') +
			event('message_delta', {
				delta: { stop_reason: 'end_turn', stop_sequence: null },
				usage: {
					output_tokens: 7,
					cache_read_input_tokens: -500,
					cache_creation_input_tokens: '9999',
				},
			}) +
			event('message_stop', {});
		const server = await streamServer(body);
		try {
			const result = await streamedRun(server.url);
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'ok' });
			expect(result.usage).toEqual({ prompt_tokens: 40, completion_tokens: 7, total_tokens: 47 });
			expect(server.requests()).toBe(1);
		} finally {
			await server.close();
		}
	});

	it('ends a refusal with a 200,000-character explanation content_filter, its detail one short line, after one call', async () => {
		const explanation = 'blocked '.repeat(25_000);
		const body =
			event('message_start', { message: message({ input_tokens: 18, output_tokens: 1 }) }) +
			event('message_delta', {
				delta: {
					stop_reason: 'refusal',
					stop_sequence: null,
					stop_details: { type: 'refusal', category: 'cyber\n'.repeat(3), explanation },
				},
				usage: { output_tokens: 5 },
			}) +
			event('message_stop', {});
		const server = await streamServer(body);
		try {
			const result = await streamedRun(server.url);
			expect(result.finish_reason).toBe('content_filter');
			expect(server.requests()).toBe(1);
			expect(result.stop_detail).toContain(
				'Anthropic stop_reason refusal (cyber cyber cyber): blocked blocked',
			);
			expect(result.stop_detail!.length).toBeLessThan(600);
			expect(result.stop_detail).not.toContain('\n');
		} finally {
			await server.close();
		}
	});

	it('takes an absurd output count as at most the per-call ceiling, so it cannot pass for a small one', async () => {
		const body =
			event('message_start', { message: message({ input_tokens: 3, output_tokens: 1 }) }) +
			text('{"type":"final","answer":"ok"}').join('') +
			event('message_delta', {
				delta: { stop_reason: 'end_turn', stop_sequence: null },
				usage: { output_tokens: 1e15 },
			}) +
			event('message_stop', {});
		const server = await streamServer(body);
		try {
			const result = await streamedRun(server.url);
			expect(result.usage.completion_tokens).toBe(100_000_000);
		} finally {
			await server.close();
		}
	});
});
