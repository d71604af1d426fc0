#!/usr/bin/env node
// Replays the real-world provider recordings and broken-JSON replies of ../shared/realworld/ through the built engine (dist/) and checks each case's expect (issue #27).
// @ts-nocheck: a development script over untyped recorded JSON, checked by running it against the corpus, not by tsc.
'use strict';

/*
 * The corpus is public data recorded by others; it is read from ../shared/realworld/ when present and never
 * copied into the project (README there). Each case's recording is served by a loopback HTTP server of its
 * own, exactly as recorded (status, headers, body; an event stream as its recorded text, event by event), and
 * replayed through the path its `api` names: `chat` and `gemini` through the engine's own providers
 * (createChatModel + runAgent), `anthropic` and `responses` through the LangChain classes n8n's sub-nodes hand
 * over (devDependencies at n8n 2.41.1's versions), wrapped in the engine's LangChain adapter (src/providers/langchain/model.ts) — skipped only when those packages are not installed.
 * Usage: node scripts/replay-realworld.js [--only <substring>] [--concurrency <n>]
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { protocolBody, recordedReasoning } = require('./replay-realworld-wire');

const ROOT = path.resolve(__dirname, '..');
const CORPUS = path.resolve(ROOT, '../shared/realworld');
const RECORDINGS = path.join(CORPUS, 'recordings.json');
const BROKEN = path.join(CORPUS, 'broken-json.json');

function argument(name, fallback) {
	const at = process.argv.indexOf(name);
	return at === -1 ? fallback : process.argv[at + 1];
}
const ONLY = argument('--only', '');
const CONCURRENCY = Number(argument('--concurrency', '6'));

/**
 * The run's settings: the engine's defaults, except a call deadline long enough for a provider's retry delay
 * to be honoured (a recorded RetryInfo asks for 34.4 s, twice) and a run timeout above two such calls.
 */
const CONFIG = { single_call_timeout: 90, timeout: 300 };
const PROMPT = 'Replay: answer the question.';

function loadEngine() {
	const entry = path.join(ROOT, 'dist/src/index.js');
	if (!fs.existsSync(entry)) {
		console.log(
			'replay-realworld: dist/ is missing; build first with `npx tsc -p tsconfig.build.json`',
		);
		process.exit(1);
	}
	return require(entry);
}

/** A LangChain class from node_modules, or undefined when the package is not installed. */
function optionalClass(packageName, className) {
	try {
		return require(require.resolve(packageName, { paths: [ROOT] }))[className];
	} catch {
		return undefined;
	}
}

/** `name version` of each package as installed, or `name not installed`. */
function installedVersions(names) {
	return names
		.map((name) => {
			try {
				return `${name} ${JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version}`;
			} catch {
				return `${name} not installed`;
			}
		})
		.join(', ');
}

/** Serves `answers[n]` (or the last one) to the n-th request; resolves to the server, its URL and what it received. */
function serve(answers) {
	const received = [];
	const server = http.createServer((request, response) => {
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => {
			received.push({
				at: Date.now(),
				url: request.url,
				body: Buffer.concat(chunks).toString('utf8'),
			});
			const answer = answers[Math.min(received.length - 1, answers.length - 1)];
			send(answer, response);
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () =>
			resolve({ server, url: `http://127.0.0.1:${server.address().port}`, received }),
		),
	);
}

/** Writes a recorded answer: headers as recorded (no length or encoding of the original transfer), and a stream event by event. */
function send(answer, response) {
	const headers = {};
	for (const [name, value] of Object.entries(answer.headers ?? {})) {
		if (!/^(content-length|transfer-encoding|content-encoding|connection|keep-alive)$/i.test(name))
			headers[name] = value;
	}
	response.writeHead(answer.status, headers);
	if (!answer.stream) return response.end(answer.body);
	// One write per event, so the client reads the recorded chunk splits as separate arrivals.
	const events = answer.body.split(/(?<=\r?\n\r?\n)/);
	let index = 0;
	const next = () => {
		if (index >= events.length) return response.end();
		response.write(events[index++]);
		setImmediate(next);
	};
	next();
}

/** The answer the n-th request of a case gets: the recording as recorded (raw) or its protocol variant. */
function answerOf(recording, variant, cut) {
	const body =
		variant === 'protocol' && recording.status < 400
			? protocolBody(recording, cut)
			: recording.body;
	return { status: recording.status, headers: recording.headers, stream: recording.stream, body };
}

/** The model a case runs on, or a reason the path is not available. */
function modelFor(engine, api, recording, url) {
	if (api === 'chat')
		return {
			model: engine.createChatModel({
				provider: 'openai',
				apiKey: 'replay-key',
				baseUrl: `${url}/v1`,
			}),
		};
	if (api === 'gemini')
		return {
			model: engine.createChatModel({ provider: 'gemini', apiKey: 'replay-key', baseUrl: url }),
		};
	const { LangChainChatModel } = require(path.join(ROOT, 'dist/src/providers/langchain/index.js'));
	if (api === 'responses') {
		const ChatOpenAI = optionalClass('@langchain/openai', 'ChatOpenAI');
		if (!ChatOpenAI) return { skipped: 'path not available (@langchain/openai is not installed)' };
		// As n8n's OpenAI Chat Model v1.3 builds it (provider-behaviours.md §6 [N-openai]): the Responses API, 2 retries.
		const chat = new ChatOpenAI({
			model: recording.model,
			apiKey: 'replay-key',
			configuration: { baseURL: `${url}/v1` },
			useResponsesApi: true,
			maxRetries: 2,
		});
		return { model: new LangChainChatModel(chat) };
	}
	const ChatAnthropic = optionalClass('@langchain/anthropic', 'ChatAnthropic');
	if (!ChatAnthropic)
		return { skipped: 'path not available (@langchain/anthropic is not installed)' };
	const chat = new ChatAnthropic({
		model: recording.model,
		apiKey: 'replay-key',
		anthropicApiUrl: url,
		maxRetries: 2,
	});
	return { model: new LangChainChatModel(chat) };
}

async function runCase(engine, { api, recording, answers, stream, model: modelName }) {
	const replay = await serve(answers);
	try {
		const chosen = modelFor(engine, api, recording, replay.url);
		if (chosen.skipped) return { skipped: chosen.skipped };
		const result = await engine.runAgent({
			model: chosen.model,
			config: { model: modelName ?? recording.model, ...CONFIG },
			prompt: PROMPT,
			...(stream ? { onEvent: () => undefined } : {}),
		});
		return { result, received: replay.received };
	} finally {
		replay.server.closeAllConnections();
		await new Promise((resolve) => replay.server.close(resolve));
	}
}

const sameCount = (actual, expected) => (actual ?? 0) === (expected ?? 0);

/** What differs between a replayed run and the case's expect; empty when every expectation holds. */
function differences(testCase, recording, { result, received }) {
	const expect = testCase.expect;
	const found = [];
	const trace = result.trace;
	if (result.finish_reason !== expect.finish_reason)
		found.push(
			`finish_reason ${result.finish_reason} (expected ${expect.finish_reason})${result.stop_detail ? `: ${clip(result.stop_detail)}` : ''}`,
		);
	if (expect.model_calls !== undefined && result.metrics.model_calls !== expect.model_calls)
		found.push(`model_calls ${result.metrics.model_calls} (expected ${expect.model_calls})`);
	if (expect.requests !== undefined && received.length !== expect.requests)
		found.push(`requests ${received.length} (expected ${expect.requests})`);
	if (expect.answer !== undefined && result.final_answer !== expect.answer)
		found.push(
			`answer ${clip(JSON.stringify(result.final_answer))} (expected ${clip(JSON.stringify(expect.answer))})`,
		);
	if (expect.usage) {
		const usage = result.usage;
		const keys = ['prompt_tokens', 'completion_tokens', 'total_tokens', 'reasoning_tokens'];
		if (!keys.every((key) => sameCount(usage[key], expect.usage[key]))) {
			found.push(
				`usage ${keys.map((key) => usage[key] ?? 0).join('/')}${usage.estimated ? ' (estimated)' : ''} (expected ${keys.map((key) => expect.usage[key] ?? 0).join('/')})`,
			);
		}
	}
	const first = trace[0]?.error;
	if (expect.first_error !== undefined && first?.type !== expect.first_error)
		found.push(
			`first_error ${first?.type ?? 'none'} (expected ${expect.first_error})${first ? `: ${clip(first.message)}` : ''}`,
		);
	if (
		expect.first_message_includes !== undefined &&
		!(first?.message ?? '').toLowerCase().includes(expect.first_message_includes.toLowerCase())
	) {
		found.push(
			`first message lacks "${expect.first_message_includes}": ${clip(first?.message ?? 'none')}`,
		);
	}
	const lastError = [...trace].reverse().find((step) => step.error)?.error;
	if (
		expect.error_includes !== undefined &&
		!(result.stop_detail ?? '').includes(expect.error_includes)
	)
		found.push(
			`error lacks "${clip(expect.error_includes, 40)}": ${clip(result.stop_detail ?? 'none')}`,
		);
	if (expect.error_includes !== undefined)
		found.push(...unreadable(result.stop_detail ?? '', recording));
	if (expect.status !== undefined && lastError?.status !== expect.status)
		found.push(`status ${lastError?.status ?? 'none'} (expected ${expect.status})`);
	if (testCase.reasoning_kept) {
		const recorded = recordedReasoning(recording).trim();
		const kept = trace.map((step) => step.reasoning ?? '').join('\n');
		if (recorded && !kept.includes(recorded.slice(0, 300)))
			found.push(
				`reasoning ${kept ? `differs: ${clip(JSON.stringify(kept), 60)}` : 'missing from the step'}`,
			);
	}
	if (expect.retry_delay_ms !== undefined) {
		const gaps = received.slice(1).map((request, index) => request.at - received[index].at);
		if (gaps.some((gap) => gap < expect.retry_delay_ms))
			found.push(
				`retries ${gaps.join('/')} ms apart (the provider asked ${expect.retry_delay_ms} ms)`,
			);
	}
	return found;
}

/**
 * What makes an error unreadable beyond what `error_includes` checks (issue #27, item 4): raw or escaped JSON
 * in the message, a message too long to read, or an upstream reason the body carried (OpenRouter's
 * `metadata.raw`) left out.
 */
function unreadable(detail, recording) {
	const found = [];
	if (/\{"|\\"/.test(detail)) found.push(`error holds raw JSON: ${clip(detail, 80)}`);
	if (detail.length > 500) found.push(`error is ${detail.length} characters long`);
	let raw;
	try {
		raw = JSON.parse(recording.body)?.error?.metadata?.raw;
	} catch {
		raw = undefined;
	}
	if (typeof raw === 'string' && !detail.includes(raw.slice(0, 40)))
		found.push(`error leaves out the upstream reason (metadata.raw "${clip(raw, 40)}")`);
	return found;
}

const clip = (text, length = 160) => {
	const line = String(text).replace(/\s+/g, ' ');
	return line.length > length ? `${line.slice(0, length)}…` : line;
};

/** A recorded RetryInfo delay ("34.4s") in milliseconds, so the replay also checks the retries waited for it. */
function recordedRetryDelay(recording) {
	const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(recording.body);
	return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

function recordingCases(corpus) {
	const byId = new Map(corpus.recordings.map((recording) => [recording.id, recording]));
	return corpus.cases.map((testCase) => {
		const recording = byId.get(testCase.recording);
		const first = answerOf(recording, testCase.variant, testCase.cut);
		const answers = testCase.second
			? [first, answerOf(recording, testCase.second, testCase.cut)]
			: [first];
		const delay = recording.status === 429 ? recordedRetryDelay(recording) : undefined;
		const expect =
			delay === undefined ? testCase.expect : { ...testCase.expect, retry_delay_ms: delay };
		return {
			id: testCase.id,
			group: `${recording.api}/${testCase.cli}`,
			api: recording.api,
			recording,
			testCase: { ...testCase, expect },
			answers,
			stream: testCase.cli === 'stream',
		};
	});
}

/**
 * A broken-JSON reply in the corpus's chat-completion template: the first call gets it; a repair turn gets a
 * valid protocol answer, so a run that repairs ends `final` after two calls.
 */
function brokenJsonCases(corpus) {
	const withContent = (content) => {
		const body = JSON.parse(JSON.stringify(corpus.template.json));
		body.choices[0].message.content = content;
		return {
			status: 200,
			headers: { 'content-type': 'application/json' },
			stream: false,
			body: JSON.stringify(body),
		};
	};
	const repaired = withContent('{"type":"final","answer":"repaired"}');
	return corpus.cases.map((testCase) => ({
		id: `broken-json:${testCase.id}`,
		group: 'broken-json/chat/plain',
		api: 'chat',
		recording: { model: corpus.template.json.model },
		brokenJson: testCase,
		answers: [withContent(testCase.reply), repaired],
		stream: false,
	}));
}

/** What differs for a broken-JSON case: accepted only when the expect says so; a repair message naming the problem. */
function brokenJsonDifferences(testCase, { result }) {
	const { outcome, message } = testCase.expect;
	const first = result.trace[0]?.error;
	const accepted = result.finish_reason === 'final' && result.metrics.model_calls === 1;
	if (outcome === 'either') return [];
	if (outcome === 'accept')
		return accepted
			? []
			: [`refused a valid protocol object: ${clip(first?.message ?? result.finish_reason)}`];
	if (accepted) return ['accepted a reply the expect says must be repaired'];
	if (first?.type !== 'parse_error')
		return [`first_error ${first?.type ?? 'none'} (expected parse_error)`];
	const names = (message ?? '').split('|').filter(Boolean);
	const text = first.message.toLowerCase();
	return names.length && !names.some((name) => text.includes(name.toLowerCase()))
		? [`repair message names none of "${message}": ${clip(first.message)}`]
		: [];
}

async function inPool(items, size, work) {
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.max(1, size) }, async () => {
			while (next < items.length) await work(items[next++]);
		}),
	);
}

async function main() {
	if (!fs.existsSync(RECORDINGS) && !fs.existsSync(BROKEN)) {
		console.log(
			`replay-realworld: no corpus at ${path.relative(ROOT, CORPUS)} (recordings.json, broken-json.json); nothing to replay`,
		);
		return;
	}
	const engine = loadEngine();
	const cases = [
		...(fs.existsSync(RECORDINGS)
			? recordingCases(JSON.parse(fs.readFileSync(RECORDINGS, 'utf8')))
			: []),
		...(fs.existsSync(BROKEN) ? brokenJsonCases(JSON.parse(fs.readFileSync(BROKEN, 'utf8'))) : []),
	].filter((entry) => entry.id.includes(ONLY));
	const totals = new Map();
	const tally = (group, outcome) => {
		const counts = totals.get(group) ?? { passed: 0, failed: 0, skipped: 0 };
		counts[outcome]++;
		totals.set(group, counts);
	};
	const lines = [];
	const skipReasons = new Set();
	await inPool(cases, CONCURRENCY, async (entry) => {
		let outcome;
		try {
			const run = await runCase(engine, entry);
			if (run.skipped) {
				outcome = 'skipped';
				skipReasons.add(`${entry.api}: ${run.skipped}`);
			} else {
				const found = entry.brokenJson
					? brokenJsonDifferences(entry.brokenJson, run)
					: differences(entry.testCase, entry.recording, run);
				outcome = found.length ? 'failed' : 'passed';
				if (found.length)
					lines.push({ id: entry.id, text: `FAIL ${entry.id}: ${found.join('; ')}` });
			}
		} catch (error) {
			outcome = 'failed';
			lines.push({
				id: entry.id,
				text: `FAIL ${entry.id}: the replay threw ${clip(error?.stack ?? error, 300)}`,
			});
		}
		tally(entry.group, outcome);
		tally(entry.brokenJson ? 'broken-json' : 'recordings', outcome);
	});
	const order = new Map(cases.map((entry, index) => [entry.id, index]));
	lines.sort((a, b) => order.get(a.id) - order.get(b.id));
	// Skips are counted, and listed once per path rather than once per case.
	for (const line of lines) console.log(line.text);
	const summary = (name, counts) =>
		`${name}: ${counts.passed + counts.failed + counts.skipped} cases: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
	console.log('');
	for (const [group, counts] of [...totals].filter(([group]) => group.includes('/')).sort())
		console.log(summary(group, counts));
	for (const name of ['recordings', 'broken-json'])
		if (totals.has(name)) console.log(summary(name, totals.get(name)));
	const all = [...totals]
		.filter(([group]) => !group.includes('/'))
		.reduce(
			(sum, [, counts]) => ({
				passed: sum.passed + counts.passed,
				failed: sum.failed + counts.failed,
				skipped: sum.skipped + counts.skipped,
			}),
			{ passed: 0, failed: 0, skipped: 0 },
		);
	for (const reason of [...skipReasons].sort()) console.log(`skipped: ${reason}`);
	console.log(
		`LangChain classes used: ${installedVersions(['@langchain/openai', '@langchain/anthropic', '@langchain/core'])} (n8n 2.41.1 ships @langchain/openai 1.4.4, @langchain/anthropic 1.5.6, @langchain/core 1.2.8)`,
	);
	console.log(
		`${all.passed + all.failed + all.skipped} cases: ${all.passed} passed, ${all.failed} failed, ${all.skipped} skipped`,
	);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
