'use strict';
/**
 * A tiny OpenAI-compatible chat-completions server that answers with native tool calls, for the contenders
 * that use the provider's tool calling (Vercel AI SDK, LangChain.js). The scripted server in src/demo only
 * answers assistant text, which is what Agent Core's protocol needs but not what these SDKs parse.
 *
 * The conversation position is read from the request itself (the number of `tool` messages so far), so the
 * server holds no per-run state and any number of runs can go through it one after another.
 */
const http = require('node:http');
const { MODEL_CALLS_PER_RUN } = require('./scenario');

/**
 * Starts the server on 127.0.0.1 and resolves once it listens.
 * @param {{ finalAnswer: string }} options
 * @returns {Promise<{ baseUrl: string, modelCalls: () => number, close: () => Promise<void> }>}
 */
async function startNativeToolServer({ finalAnswer }) {
	let modelCalls = 0;

	const server = http.createServer((request, response) => {
		request.on('error', () => undefined);
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => {
			if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
				return sendJson(
					response,
					404,
					errorBody(`native tool server: no route for ${request.method} ${request.url}`),
				);
			}
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				return sendJson(
					response,
					400,
					errorBody('native tool server: the request body is not valid JSON'),
				);
			}
			// A streaming or tool-less request means a contender is not doing what the benchmark claims it does.
			if (body.stream === true)
				return sendJson(response, 400, errorBody('native tool server: streaming is not served'));
			if (!Array.isArray(body.messages))
				return sendJson(response, 400, errorBody("Missing required parameter: 'messages'."));
			if (!Array.isArray(body.tools) || body.tools.length === 0) {
				return sendJson(
					response,
					400,
					errorBody('native tool server: the request offers no tools'),
				);
			}
			modelCalls++;
			const toolResults = body.messages.filter(
				(message) => message && message.role === 'tool',
			).length;
			sendJson(response, 200, completion(body.model, toolResults));
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});

	function completion(model, toolResults) {
		const callIndex = toolResults;
		const message =
			callIndex < MODEL_CALLS_PER_RUN - 1
				? {
						role: 'assistant',
						content: null,
						refusal: null,
						tool_calls: [
							{
								id: `call_${callIndex + 1}`,
								type: 'function',
								function: { name: 'add', arguments: JSON.stringify({ value: callIndex + 1 }) },
							},
						],
					}
				: { role: 'assistant', content: finalAnswer, refusal: null };
		return {
			id: `chatcmpl-native-${modelCalls}`,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model: String(model ?? ''),
			choices: [
				{
					index: 0,
					message,
					logprobs: null,
					finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
				},
			],
			// Usage is always reported so that no client falls back to counting tokens itself.
			usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
		};
	}

	const address = server.address();
	return {
		baseUrl: `http://127.0.0.1:${address.port}/v1`,
		modelCalls: () => modelCalls,
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

function errorBody(message) {
	return { error: { message, type: 'invalid_request_error', param: null, code: null } };
}

function sendJson(response, status, body) {
	const payload = JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(payload),
	});
	response.end(payload);
}

module.exports = { startNativeToolServer };
