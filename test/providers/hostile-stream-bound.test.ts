import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { runAgent } from '../../src';
import {
	LangChainChatModel,
	MAX_CONTENT_FREE_IN_A_ROW,
	MAX_CONTENT_FREE_TOTAL,
	PIECES_BETWEEN_TURNS,
} from '../../src/providers/langchain';
import { startFloodServer, type FloodServer } from '../support/servers/flood-server';
import { useEventLoopWatchdog } from '../support/watchdog';

/**
 * Issue #38: a model stream through an n8n chat model sub-node (the real ChatAnthropic and ChatOpenAI, against
 * a loopback server) may send only so much without content before the call stops reading it and closes the
 * connection; a long stream of real content still works, and gives the event loop turns while it is read.
 */
const event = (type: string, fields: object = {}) =>
	`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const usage = { input_tokens: 12, output_tokens: 1 };
const message = {
	id: 'msg_1',
	type: 'message',
	role: 'assistant',
	model: 'claude-x',
	content: [],
	stop_reason: null,
	stop_sequence: null,
	usage,
};
const start = event('message_start', { message });
const textStart = event('content_block_start', {
	index: 0,
	content_block: { type: 'text', text: '' },
});
const textDelta = (text: string) =>
	event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
const anthropicEnd =
	event('content_block_stop', { index: 0 }) +
	event('message_delta', {
		delta: { stop_reason: 'end_turn', stop_sequence: null },
		usage: { output_tokens: 9 },
	}) +
	event('message_stop');

const frame = (body: object) =>
	`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', ...body })}\n\n`;
const chunk = (delta: object, extra: object = {}) =>
	frame({ choices: [{ index: 0, delta, finish_reason: null }], ...extra });
const finish = frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
const openAiEnd = (text: string) => chunk({ content: text }) + finish + 'data: [DONE]\n\n';
const FINAL = '{"type":"final","answer":"ok"}';

/** The real classes, counting the chunks they make from what they read. */
class CountingAnthropic extends ChatAnthropic {
	chunksRead = 0;
	override async *_streamResponseChunks(
		...args: Parameters<ChatAnthropic['_streamResponseChunks']>
	) {
		for await (const piece of super._streamResponseChunks(...args)) {
			this.chunksRead++;
			yield piece;
		}
	}
}
class CountingOpenAI extends ChatOpenAI {
	chunksRead = 0;
	override async *_streamResponseChunks(...args: Parameters<ChatOpenAI['_streamResponseChunks']>) {
		for await (const piece of super._streamResponseChunks(...args)) {
			this.chunksRead++;
			yield piece;
		}
	}
}

const anthropic = (server: FloodServer) =>
	new CountingAnthropic({
		anthropicApiKey: 'sk-ant-bound-0001',
		model: 'claude-x',
		anthropicApiUrl: server.url,
		maxRetries: 0,
	});
const openai = (server: FloodServer) =>
	new CountingOpenAI({
		apiKey: 'sk-bound-0001',
		model: 'gpt-x',
		maxRetries: 0,
		configuration: { baseURL: server.url },
	});
/** A streamed run (the answer listener makes the adapter stream) of one LangChain model. */
const streamedRun = (model: ChatAnthropic | ChatOpenAI) =>
	runAgent({
		model: new LangChainChatModel(model),
		config: { model: 'm', max_steps: 1 },
		prompt: 'q',
		onEvent: () => undefined,
	});

let servers: FloodServer[] = [];
afterEach(async () => {
	await Promise.all(servers.map((server) => server.close()));
	servers = [];
});
async function flood(
	head: string,
	unit: string,
	times: number,
	tail: string,
): Promise<FloodServer> {
	const server = await startFloodServer(head, unit, times, tail);
	servers.push(server);
	return server;
}

describe('hostile stream bound: what a model stream may send without content', () => {
	useEventLoopWatchdog('stream-bound');

	it('ends a million repeated message_start events through ChatAnthropic with the named error, and closes the connection', async () => {
		const server = await flood('', start, 1_000_000, textStart + textDelta(FINAL) + anthropicEnd);
		const model = anthropic(server);
		const result = await streamedRun(model);
		expect(result.finish_reason).toBe('llm_error');
		expect(result.stop_detail).toContain(
			'The anthropic stream sent 11 message starts, so the call stopped reading it',
		);
		expect(model.chunksRead).toBeLessThanOrEqual(11);
		await expect(server.ended()).resolves.toBe(true);
		expect(server.requests()).toBe(1);
	});

	it('ends an endless run of empty text deltas after the text began, counted as events without content', async () => {
		const head = start + textStart + textDelta('{"type":"final",');
		const server = await flood(
			head,
			textDelta(''),
			1_000_000,
			textDelta('"answer":"ok"}') + anthropicEnd,
		);
		const model = anthropic(server);
		const result = await streamedRun(model);
		expect(result.finish_reason).toBe('llm_error');
		expect(result.stop_detail).toContain(
			`The anthropic stream sent ${MAX_CONTENT_FREE_IN_A_ROW + 1} events in a row without content`,
		);
		expect(result.stop_detail).toContain('a model stream must send text, reasoning or a tool call');
		expect(model.chunksRead).toBeLessThanOrEqual(MAX_CONTENT_FREE_IN_A_ROW + 3);
		await expect(server.ended()).resolves.toBe(true);
	});

	it('ends 100,000 empty deltas through the generic LangChain path (ChatOpenAI) after the bound, and closes the connection', async () => {
		const server = await flood(
			chunk({ role: 'assistant', content: '' }),
			chunk({ content: '' }),
			100_000,
			openAiEnd(FINAL),
		);
		const model = openai(server);
		const result = await streamedRun(model);
		expect(result.finish_reason).toBe('llm_error');
		expect(result.stop_detail).toContain(
			`The openai stream sent ${MAX_CONTENT_FREE_IN_A_ROW + 1} chunks in a row without content`,
		);
		expect(model.chunksRead).toBeLessThanOrEqual(MAX_CONTENT_FREE_IN_A_ROW + 2);
		await expect(server.ended()).resolves.toBe(true);
		expect(server.requests()).toBe(1);
	});

	it('ends a stream whose empty chunks come in runs under the bound, a letter between them, at the total bound', async () => {
		const run =
			chunk({ content: '' }).repeat(MAX_CONTENT_FREE_IN_A_ROW - 1) + chunk({ content: ' ' });
		const server = await flood(
			chunk({ role: 'assistant', content: '' }),
			run,
			100_000,
			openAiEnd(FINAL),
		);
		const model = openai(server);
		const result = await streamedRun(model);
		expect(result.finish_reason).toBe('llm_error');
		expect(result.stop_detail).toContain(
			`The openai stream sent ${MAX_CONTENT_FREE_TOTAL + 1} chunks without content`,
		);
		expect(model.chunksRead).toBeLessThanOrEqual(MAX_CONTENT_FREE_TOTAL + 10);
		await expect(server.ended()).resolves.toBe(true);
	});

	it('reads a long real Anthropic stream to its answer: 5,000 text deltas with a ping every 150, the event loop turning meanwhile', async () => {
		const answer = 'a'.repeat(5_000);
		const pieces = ['{"type":"final","answer":"', ...answer.split(''), '"}'];
		const body = pieces
			.map((piece, index) => textDelta(piece) + (index % 150 === 149 ? event('ping') : ''))
			.join('');
		// One unit: the whole stream, written at once, so every event is already buffered when the reading starts.
		const server = await flood(start + textStart, body, 1, anthropicEnd);
		let turns = 0;
		let counting = true;
		const tick = (): void => {
			turns++;
			if (counting) setImmediate(tick);
		};
		setImmediate(tick);
		const result = await streamedRun(anthropic(server)).finally(() => (counting = false));
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer === answer).toBe(true);
		expect(result.usage).toEqual({ prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 });
		// The reader gives the loop a turn every PIECES_BETWEEN_TURNS events, however the bytes arrived.
		expect(turns).toBeGreaterThanOrEqual(Math.floor(pieces.length / PIECES_BETWEEN_TURNS));
		await expect(server.ended()).resolves.toBe(false);
	});

	it('reads a long real OpenAI stream through ChatOpenAI: 20,000 content chunks and a usage-only chunk', async () => {
		const answer = 'b'.repeat(20_000);
		const body = ['{"type":"final","answer":"', ...answer.split(''), '"}']
			.map((piece) => chunk({ content: piece }))
			.join('');
		const tail =
			finish +
			frame({
				choices: [],
				usage: { prompt_tokens: 5, completion_tokens: 20_004, total_tokens: 20_009 },
			}) +
			'data: [DONE]\n\n';
		const server = await flood(chunk({ role: 'assistant', content: '' }), body, 1, tail);
		const result = await streamedRun(openai(server));
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer === answer).toBe(true);
		expect(result.usage).toEqual({
			prompt_tokens: 5,
			completion_tokens: 20_004,
			total_tokens: 20_009,
		});
	}, 120_000); // 20,000 chunks through LangChain: 9 s on a loaded 2-core machine, more under a full parallel run
});
