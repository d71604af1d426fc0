'use strict';
/**
 * A model server for bench/stream.js: OpenAI chat completions that stream one fixed reply in pieces of
 * `pieceLength` characters, the first after `firstPieceDelayMs` and each next one `pieceDelayMs` later,
 * as a model producing tokens at a steady rate does. A call without `stream: true` waits the same total
 * time and answers the whole reply at once, so both kinds of call take equally long to finish.
 */
const http = require('node:http');

/**
 * @param {{ reply: string, pieceLength: number, firstPieceDelayMs: number, pieceDelayMs: number }} options
 * @returns {Promise<{ baseUrl: string, calls: () => { streamed: number, whole: number }, close: () => Promise<void> }>}
 */
async function startStreamingModelServer(options) {
	const { reply, pieceLength, firstPieceDelayMs, pieceDelayMs } = options;
	const pieces = [];
	for (let index = 0; index < reply.length; index += pieceLength)
		pieces.push(reply.slice(index, index + pieceLength));
	const calls = { streamed: 0, whole: 0 };
	const sockets = new Set();

	const server = http.createServer((request, response) => {
		let body = '';
		request.on('data', (data) => (body += data));
		request.on('end', () => {
			let streamed = false;
			try {
				streamed = JSON.parse(body).stream === true;
			} catch {
				// A bad body still gets the plain reply; the benchmark checks the answers it gets.
			}
			calls[streamed ? 'streamed' : 'whole']++;
			if (streamed) streamReply(response);
			else
				setTimeout(
					() => answerWhole(response),
					firstPieceDelayMs + pieceDelayMs * (pieces.length - 1),
				);
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});

	function chunk(delta, finishReason = null) {
		return `data: ${JSON.stringify({
			id: 'chatcmpl-bench',
			object: 'chat.completion.chunk',
			created: 0,
			model: 'bench-model',
			choices: [{ index: 0, delta, finish_reason: finishReason }],
		})}\n\n`;
	}

	function streamReply(response) {
		response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
		let next = 0;
		const sendNext = () => {
			if (response.destroyed) return;
			if (next < pieces.length) {
				response.write(
					chunk(
						next === 0 ? { role: 'assistant', content: pieces[next] } : { content: pieces[next] },
					),
				);
				next++;
				setTimeout(sendNext, pieceDelayMs);
				return;
			}
			response.write(chunk({}, 'stop'));
			response.end('data: [DONE]\n\n');
		};
		setTimeout(sendNext, firstPieceDelayMs);
	}

	function answerWhole(response) {
		const completion = {
			id: 'chatcmpl-bench',
			object: 'chat.completion',
			created: 0,
			model: 'bench-model',
			choices: [
				{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' },
			],
			usage: {
				prompt_tokens: 100,
				completion_tokens: pieces.length,
				total_tokens: 100 + pieces.length,
			},
		};
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(JSON.stringify(completion));
	}

	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		calls: () => ({ ...calls }),
		close: () =>
			new Promise((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

module.exports = { startStreamingModelServer };
