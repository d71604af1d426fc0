'use strict';
/**
 * Time to the first answer chunk at concurrency 1: how soon Agent Core hands the caller the first piece
 * of the final answer (its `answer_delta` event), beside the model's own time to first token measured by
 * a bare `openai` SDK stream of the same reply from the same server, in one run, interleaved.
 *
 *   npm run bench:stream                       # builds first
 *   node bench/stream.js --runs 10             # a quick try (needs dist/ built)
 *
 * The model server (bench/stream-server.js) streams a final answer in pieces of 4 characters, the first
 * after 50 ms and one every 10 ms after that, the way a model produces tokens at a steady rate.
 */
const path = require('node:path');
const { parseArgs } = require('node:util');
const OpenAI = require('openai').default;
const { startStreamingModelServer } = require('./stream-server');

const dist = path.join(__dirname, '..', 'dist', 'src');
const { runAgent } = require(path.join(dist, 'agent', 'run-agent.js'));
const { createChatModel } = require(path.join(dist, 'providers', 'create-model.js'));

const ANSWER =
	'The three cheapest items in stock are the desk lamp at 39.90 EUR, the USB-C hub at 44 EUR and the ' +
	'notebook pack at 12.50 EUR; the office chair costs 189 EUR and is the only one above the budget.';
const REPLY = JSON.stringify({ type: 'final', answer: ANSWER });
const SERVER = { reply: REPLY, pieceLength: 4, firstPieceDelayMs: 50, pieceDelayMs: 10 };
const API_KEY = 'bench-stream-key';
const MODEL = 'bench-model';

/** The bare SDK: when the first piece of text arrives, when the answer's own text begins, when the reply ends. */
async function bareStream(client) {
	const started = performance.now();
	let firstToken;
	let answerBegins;
	let text = '';
	const stream = await client.chat.completions.create({
		model: MODEL,
		messages: [{ role: 'user', content: 'q' }],
		stream: true,
	});
	for await (const part of stream) {
		const piece = part.choices[0]?.delta?.content;
		if (!piece) continue;
		firstToken ??= performance.now() - started;
		text += piece;
		// The first character after `"answer":"` is the first character a reader of the answer could be shown.
		if (
			answerBegins === undefined &&
			text.length > text.indexOf('"answer":"') + 10 &&
			text.includes('"answer":"')
		)
			answerBegins = performance.now() - started;
	}
	if (text !== REPLY)
		throw new Error(`bare stream: unexpected reply ${JSON.stringify(text.slice(0, 80))}`);
	return { firstToken, answerBegins, whole: performance.now() - started };
}

/** Agent Core: when its first answer_delta event comes, and when the run returns. */
async function agentCoreRun(model) {
	const started = performance.now();
	let firstAnswerChunk;
	let streamed = '';
	let chunks = 0;
	const result = await runAgent({
		model,
		config: { model: MODEL, max_steps: 2 },
		prompt: 'q',
		secrets: [API_KEY],
		onEvent: (event) => {
			if (event.type !== 'answer_delta') return;
			firstAnswerChunk ??= performance.now() - started;
			streamed += event.text;
			chunks++;
		},
	});
	const whole = performance.now() - started;
	if (result.final_answer !== ANSWER || streamed !== ANSWER)
		throw new Error(
			`Agent Core: unexpected answer (${result.finish_reason}) ${JSON.stringify(streamed.slice(0, 80))}`,
		);
	return { firstAnswerChunk, whole, chunks };
}

function percentile(values, fraction) {
	const sorted = [...values].sort((left, right) => left - right);
	return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

const format = (milliseconds) => milliseconds.toFixed(1).padStart(8);

async function main() {
	const { values } = parseArgs({
		options: { runs: { type: 'string', default: '30' }, warmup: { type: 'string', default: '3' } },
	});
	const runs = Number(values.runs);
	const warmup = Number(values.warmup);
	const server = await startStreamingModelServer(SERVER);
	try {
		const client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseUrl, maxRetries: 0 });
		const model = createChatModel({
			provider: 'openai',
			apiKey: API_KEY,
			baseUrl: server.baseUrl,
			maxRetries: 0,
		});
		for (let index = 0; index < warmup; index++) {
			await bareStream(client);
			await agentCoreRun(model);
		}
		const bare = [];
		const agent = [];
		const callsBefore = server.calls();
		// Alternating, one at a time (concurrency 1), so load from elsewhere lands on both about equally.
		for (let index = 0; index < runs; index++) {
			if (index % 2 === 0) {
				bare.push(await bareStream(client));
				agent.push(await agentCoreRun(model));
			} else {
				agent.push(await agentCoreRun(model));
				bare.push(await bareStream(client));
			}
		}
		const calls = server.calls();
		const agentStreamed = calls.streamed - callsBefore.streamed - runs;

		const rows = [
			['model: first token (bare openai SDK stream)', bare.map((run) => run.firstToken)],
			[
				'model: first character of the answer text (same stream)',
				bare.map((run) => run.answerBegins),
			],
			['model: whole reply (same stream)', bare.map((run) => run.whole)],
			[
				'Agent Core: first answer chunk (onEvent answer_delta)',
				agent.map((run) => run.firstAnswerChunk),
			],
			['Agent Core: run returned', agent.map((run) => run.whole)],
		];
		console.log(
			`stream benchmark: ${runs} runs each, concurrency 1, reply of ${REPLY.length} characters in pieces of ${SERVER.pieceLength}, first after ${SERVER.firstPieceDelayMs} ms, then every ${SERVER.pieceDelayMs} ms`,
		);
		console.log(
			`Agent Core's model calls ${agentStreamed === runs ? 'streamed' : `streamed ${agentStreamed} of ${runs} times (the adapter does not stream: the answer comes when the reply is whole)`}; answer chunks per run: median ${percentile(
				agent.map((run) => run.chunks),
				0.5,
			)}`,
		);
		console.log(`${'measure'.padEnd(58)}  p50 ms   p90 ms`);
		for (const [label, samples] of rows)
			console.log(
				`${label.padEnd(58)}${format(percentile(samples, 0.5))} ${format(percentile(samples, 0.9))}`,
			);
		const medianOf = (index) => percentile(rows[index][1], 0.5);
		console.log(
			`Agent Core's first answer chunk / model's first token: ${(medianOf(3) / medianOf(0)).toFixed(2)}×`,
		);
		console.log(
			`Agent Core's first answer chunk / first character of the answer text in the stream: ${(medianOf(3) / medianOf(1)).toFixed(2)}×`,
		);
		console.log(
			`Agent Core's first answer chunk / model's whole reply: ${(medianOf(3) / medianOf(2)).toFixed(2)}×`,
		);
	} finally {
		await server.close();
	}
}

main().catch((error) => {
	console.error(error?.stack ?? error);
	process.exitCode = 1;
});
