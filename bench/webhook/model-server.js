'use strict';
/**
 * Child process of bench/webhook.js: the model both agents talk to, in its own process so that its CPU is
 * not taken from n8n's share of the measurement (it still shares the machine's cores).
 *
 * Two OpenAI-compatible endpoints, each answering every call after MODEL_DELAY_MS:
 * - protocol: src/demo's scripted server (build first), answering Agent Core's Action/Final protocol in
 *   assistant text — an action of the one tool its system message lists (the Calculator), then a final
 *   answer built from the observation;
 * - native: answers n8n's AI Agent (LangChain's ChatOpenAI) with a native tool call (`tool_calls`,
 *   finish_reason "tool_calls"), then a text answer built from the tool message.
 *
 * Started with the argument `lookups` (bench/lookups.js), both play bench/webhook/lookups-scenario.js instead:
 * three Calculator calls per run (in one reply, or one per reply where Agent Core offers no "actions" form).
 *
 * Both record what they received per call (request body size, prompt text size) so the benchmark can
 * compare the prompts the agents send. Messages from the parent: `{ type: 'stats' }` → `{ type: 'stats',
 * protocol, native }`; `{ type: 'reset' }` zeroes the counters; `{ type: 'close' }` ends the process. It
 * also ends when the parent goes away.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { promptParts, promptTokenList, textOf } = require('../prompt-tokens');
const scenario = require('./scenario');

/** bench/lookups.js's three-lookup job, when started with `lookups`; else bench/webhook.js's one-call job. */
const lookups = process.argv[2] === 'lookups' ? require('./lookups-scenario') : undefined;

const { startScriptedServer } = require(
	path.join(__dirname, '..', '..', 'dist', 'src', 'demo', 'scripted-server.js'),
);
const { readObservation } = require(
	path.join(__dirname, '..', '..', 'dist', 'src', 'agent', 'protocol', 'prompt.js'),
);

function emptyStats() {
	return {
		calls: 0,
		/** Calls the script could not place (a third call, a missing tag…): the run will answer wrongly. */
		unexpected: 0,
		requestBodyCharacters: 0,
		/** Text the model reads (see promptParts), in characters and in o200k_base tokens. */
		promptCharacters: 0,
		promptTokens: 0,
		/** Prompt tokens OpenAI would have served from its prompt cache (see cachedTokensOf). */
		cachedTokens: 0,
		toolDefinitionCharacters: 0,
		byCall: [0, 1, 2, 3].map(() => ({
			calls: 0,
			requestBodyCharacters: 0,
			promptCharacters: 0,
			promptTokens: 0,
		})),
	};
}

const stats = { protocol: emptyStats(), native: emptyStats() };

const characters = (texts) => texts.reduce((total, text) => total + text.length, 0);

/**
 * OpenAI's automatic prompt caching, as its guide states it (platform.openai.com/docs/guides/prompt-caching):
 * a request whose prompt shares an exact prefix with a recent one gets that prefix from the cache, only for
 * prompts of 1,024 tokens or more, in steps of 128 tokens from 1,024; the prefix runs over the tool
 * definitions and then the messages in order. Here: the longest token prefix shared with one of the agent's
 * recent prompts (the cache is per organisation and short-lived: the last 64 prompts of each agent stand for it).
 */
const recentPrompts = { protocol: [], native: [] };
function cachedTokensOf(kind, tokenList) {
	let shared = 0;
	for (const earlier of recentPrompts[kind]) {
		let length = 0;
		const limit = Math.min(earlier.length, tokenList.length);
		while (length < limit && earlier[length] === tokenList[length]) length++;
		shared = Math.max(shared, length);
	}
	recentPrompts[kind].push(tokenList);
	if (recentPrompts[kind].length > 64) recentPrompts[kind].shift();
	if (tokenList.length < 1024 || shared < 1024) return 0;
	return 1024 + Math.floor((shared - 1024) / 128) * 128;
}
/** Records one call: what it weighed and where in the run it came (0: first call, 1: after the tool). */
function record(kind, body, callIndex) {
	const { parts, definitions } = promptParts(body);
	const toolDefinitionCharacters = characters(definitions);
	const promptCharacters = characters(parts) + toolDefinitionCharacters;
	const tokenList = promptTokenList(body);
	const promptTokens = tokenList.length;
	const cachedTokens = cachedTokensOf(kind, tokenList);
	const requestBodyCharacters = JSON.stringify(body).length;
	const target = stats[kind];
	target.cachedTokens += cachedTokens;
	dumpFirst(kind, callIndex, body);
	target.calls++;
	target.requestBodyCharacters += requestBodyCharacters;
	target.promptCharacters += promptCharacters;
	target.promptTokens += promptTokens;
	target.toolDefinitionCharacters += toolDefinitionCharacters;
	const slot = target.byCall[callIndex];
	if (slot) {
		slot.calls++;
		slot.requestBodyCharacters += requestBodyCharacters;
		slot.promptCharacters += promptCharacters;
		slot.promptTokens += promptTokens;
	} else {
		target.unexpected++;
	}
	return { promptTokens, cachedTokens };
}

/** BENCH_WEBHOOK_DUMP=<folder>: the first request body of each agent and call position, for reading. */
const dumped = new Set();
function dumpFirst(kind, callIndex, body) {
	const folder = process.env.BENCH_WEBHOOK_DUMP;
	if (!folder || dumped.has(`${kind}-${callIndex}`)) return;
	dumped.add(`${kind}-${callIndex}`);
	fs.mkdirSync(folder, { recursive: true });
	fs.writeFileSync(
		path.join(folder, `${kind}-call-${callIndex + 1}.json`),
		`${JSON.stringify(body, null, 2)}\n`,
	);
}

function firstUserText(messages) {
	return textOf(messages.find((message) => message?.role === 'user')?.content);
}

/** The one tool Agent Core's system message lists ("- name: description" then "  args: {schema}"). */
function offeredTool(systemText) {
	const match = /^- ([^:\s]+): .*\n  args: (.*)$/m.exec(String(systemText ?? ''));
	if (!match) return undefined;
	return { name: match[1], takesInput: /"input"/.test(match[2]) };
}

/** Agent Core's side: reads the run's position from the conversation, so runs need no state here. */
function protocolScript(scripted) {
	return (request) => {
		// The scripted server keeps every request for tests; here that would only grow this process's heap.
		scripted.requests.length = 0;
		const earlierTurns = request.messages.filter((message) => message.role === 'assistant').length;
		const { promptTokens, cachedTokens } = record('protocol', request.body, earlierTurns);
		const tag = scenario.tagOf(firstUserText(request.messages));
		const last = request.messages[request.messages.length - 1]?.content ?? '';
		const tool = offeredTool(request.messages[0]?.content);
		const read = readObservation(last);
		const observation = tool && read?.tool === tool.name ? read.text : undefined;
		let text =
			lookups && tag && tool
				? lookups.protocolReply({ messages: request.messages, tool, turns: earlierTurns, tag })
				: undefined;
		if (lookups && text) {
			// The three-lookup script placed the call.
		} else if (lookups || !tag || !tool || earlierTurns > 1) {
			stats.protocol.unexpected++;
			text = JSON.stringify({
				type: 'final',
				answer: `unexpected call ${earlierTurns + 1} (tag ${tag ?? 'missing'}, tool ${tool?.name ?? 'missing'})`,
			});
		} else if (earlierTurns === 0) {
			const args = tool.takesInput
				? { input: scenario.CALCULATOR_EXPRESSION }
				: { expression: scenario.CALCULATOR_EXPRESSION };
			text = JSON.stringify({ type: 'action', tool: tool.name, args });
		} else {
			text = JSON.stringify({
				type: 'final',
				answer: scenario.answerFor(tag, observation ?? `(no observation: ${last.slice(0, 80)})`),
			});
		}
		return {
			text,
			delayMs: scenario.MODEL_DELAY_MS,
			usage: {
				prompt_tokens: promptTokens,
				completion_tokens: Math.ceil(text.length / 4),
				...(cachedTokens ? { cached_tokens: cachedTokens } : {}),
			},
		};
	};
}

/** n8n's AI Agent side: native tool calling, position read from the `tool` messages so far. */
function startNativeServer() {
	let completions = 0;
	const pending = new Set();
	const server = http.createServer((request, response) => {
		request.on('error', () => undefined);
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => {
			if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
				return sendJson(
					response,
					404,
					errorBody(`native model server: no route for ${request.method} ${request.url}`),
				);
			}
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				return sendJson(
					response,
					400,
					errorBody('native model server: the request body is not valid JSON'),
				);
			}
			if (body.stream === true)
				return sendJson(response, 400, errorBody('native model server: streaming is not served'));
			if (!Array.isArray(body.messages))
				return sendJson(response, 400, errorBody("Missing required parameter: 'messages'."));
			const tool = body.tools?.[0]?.function;
			if (!tool?.name)
				return sendJson(
					response,
					400,
					errorBody('native model server: the request offers no tools'),
				);
			const toolMessages = body.messages.filter((message) => message?.role === 'tool');
			const { promptTokens, cachedTokens } = record('native', body, toolMessages.length);
			const tag = scenario.tagOf(firstUserText(body.messages));
			let message =
				lookups && tag
					? lookups.nativeReply({
							tool,
							toolMessages,
							tag,
							nextId: () => ++completions,
							readResult: (content) => toolResult(textOf(content)),
						})
					: undefined;
			if (lookups && message) {
				// The three-lookup script placed the call.
			} else if (lookups || !tag || toolMessages.length > 1) {
				stats.native.unexpected++;
				message = {
					role: 'assistant',
					content: `unexpected call ${toolMessages.length + 1} (tag ${tag ?? 'missing'})`,
					refusal: null,
				};
			} else if (toolMessages.length === 0) {
				// LangChain's classic string tools (the Calculator) take {input}; say so when a tool takes something else.
				const takesInput = tool.parameters?.properties?.input !== undefined;
				const args = takesInput
					? { input: scenario.CALCULATOR_EXPRESSION }
					: { expression: scenario.CALCULATOR_EXPRESSION };
				message = {
					role: 'assistant',
					content: null,
					refusal: null,
					tool_calls: [
						{
							id: `call_${++completions}`,
							type: 'function',
							function: { name: tool.name, arguments: JSON.stringify(args) },
						},
					],
				};
			} else {
				message = {
					role: 'assistant',
					content: scenario.answerFor(tag, toolResult(textOf(toolMessages[0].content))),
					refusal: null,
				};
			}
			const completion = {
				id: `chatcmpl-native-${++completions}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: String(body.model ?? ''),
				choices: [
					{
						index: 0,
						message,
						logprobs: null,
						finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
					},
				],
				usage: {
					prompt_tokens: promptTokens,
					completion_tokens: 10,
					total_tokens: promptTokens + 10,
					prompt_tokens_details: { cached_tokens: cachedTokens },
				},
			};
			const timer = setTimeout(() => {
				pending.delete(timer);
				sendJson(response, 200, completion);
			}, scenario.MODEL_DELAY_MS);
			pending.add(timer);
			response.once('close', () => {
				clearTimeout(timer);
				pending.delete(timer);
			});
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () =>
			resolve({
				baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
				close: () =>
					new Promise((done) => {
						for (const timer of pending) clearTimeout(timer);
						server.close(() => done());
						server.closeAllConnections();
					}),
			}),
		);
	});
}

/** n8n hands a tool's output to the model as `[{"response":"272"}]`; the model reads the value inside. */
function toolResult(content) {
	try {
		const parsed = JSON.parse(content);
		const first = Array.isArray(parsed) ? parsed[0] : parsed;
		if (first && typeof first === 'object' && 'response' in first) return String(first.response);
	} catch {
		// Plain text: the value itself.
	}
	return content;
}

function errorBody(message) {
	return { error: { message, type: 'invalid_request_error', param: null, code: null } };
}

function sendJson(response, status, body) {
	if (response.headersSent || response.destroyed) return;
	const payload = JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(payload),
	});
	response.end(payload);
}

async function main() {
	const holder = {};
	const scripted = await startScriptedServer({
		script: (request) => holder.script(request),
		models: [scenario.MODEL_ID],
	});
	holder.script = protocolScript(scripted);
	const native = await startNativeServer();

	let closing;
	const close = () => {
		closing ??= Promise.all([scripted.close(), native.close()]).finally(() => {
			if (process.connected) process.disconnect();
			process.exit(0);
		});
		return closing;
	};
	process.on('message', (message) => {
		if (message?.type === 'stats') process.send({ type: 'stats', ...stats });
		else if (message?.type === 'reset') {
			stats.protocol = emptyStats();
			stats.native = emptyStats();
			process.send({ type: 'reset' });
		} else if (message?.type === 'close') void close();
	});
	process.on('disconnect', () => void close());
	process.on('SIGINT', () => void close());
	process.on('SIGTERM', () => void close());
	process.send({
		type: 'ready',
		protocolBaseUrl: scripted.openaiBaseUrl,
		nativeBaseUrl: native.baseUrl,
	});
}

main().catch((error) => {
	console.error(`model server: ${error?.stack ?? error}`);
	process.exitCode = 1;
	if (process.connected) process.disconnect();
});
