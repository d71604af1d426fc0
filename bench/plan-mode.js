#!/usr/bin/env node
'use strict';
/**
 * Issue #51's benchmark: plan mode against ReAct on a three-step dependent job (find the customer, find
 * their last order by the customer's id, refund it by the order's id; bench/plan-mode/scenario.js), in the
 * engine: runAgent + createChatModel through the real `openai` SDK against src/demo's scripted server, which
 * answers every call after --delay ms (default 200, bench:webhook's model latency) and counts the prompt
 * tokens it received (o200k_base, bench/prompt-tokens.js). The two modes take turns, one request each, at
 * concurrency 1; every run is checked (tools called with the values the earlier tools returned, the answer).
 *
 *   npm run bench:plan                               builds, then: node bench/plan-mode.js
 *   node bench/plan-mode.js --runs 10 --warmup 2     a quick try (needs dist/ built)
 *   node bench/plan-mode.js --n8n                    also one run in a real n8n 2.41.1 (bench/plan-mode/n8n.js)
 *
 * Prints model calls, prompt tokens, p50 and p90 per request for each mode and the ratios plan / ReAct, then
 * the issue's target (2 calls against 4, ≤ 0.6 × ReAct's prompt tokens and p50) — printed, never enforced.
 * Exits 1 only when a run did not go as scripted.
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { percentile } = require('./webhook/load');
const webhookScenario = require('./webhook/scenario');
const { BENCH_API_KEY } = require('./scenario');
const job = require('./plan-mode/scenario');
const { LABELS, MODES, newTally, startModel } = require('./plan-mode/model');

const dist = (...parts) => require(path.join(__dirname, '..', 'dist', 'src', ...parts));
const TARGET_RATIO = 0.6;

function parseArguments(argv) {
	const options = { runs: 30, warmup: 3, delay: webhookScenario.MODEL_DELAY_MS, n8n: false };
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		if (flag === '--n8n') {
			options.n8n = true;
			continue;
		}
		const name = flag.replace(/^--/, '');
		const value = Number(argv[++index]);
		if (
			!(name in options) ||
			name === 'n8n' ||
			!Number.isInteger(value) ||
			value < (name === 'runs' ? 1 : 0)
		)
			throw new Error(
				`usage: node bench/plan-mode.js [--runs N] [--warmup N] [--delay MS] [--n8n]; got ${flag}`,
			);
		options[name] = value;
	}
	return options;
}

/** One request of `mode`: runs the job, checks it went as scripted, returns its wall time and the engine's figures. */
async function runOnce(model, mode, requestNumber) {
	const { runAgent } = dist('agent', 'run-agent.js');
	const { tools, arrived } = job.shopTools();
	const config = {
		model: webhookScenario.MODEL_ID,
		allowed_tools: job.TOOL_NAMES,
		max_steps: 6,
		max_tool_calls: 6,
		...(mode === 'plan' ? { mode: 'plan' } : {}),
	};
	const started = performance.now();
	const result = await runAgent({
		model,
		config,
		extraTools: tools,
		prompt: job.promptFor(requestNumber),
	});
	const wallMs = performance.now() - started;
	const problems = [];
	if (result.finish_reason !== 'final')
		problems.push(`finish_reason ${result.finish_reason}: ${result.stop_detail ?? ''}`);
	if (result.final_answer !== job.expectedAnswer(requestNumber))
		problems.push(`final_answer ${JSON.stringify(result.final_answer)}`);
	if (JSON.stringify(arrived) !== JSON.stringify(job.expectedCalls(requestNumber)))
		problems.push(`tool calls ${JSON.stringify(arrived)}`);
	if (result.metrics?.model_calls !== job.MODEL_CALLS[mode])
		problems.push(`${result.metrics?.model_calls} model calls, not ${job.MODEL_CALLS[mode]}`);
	if (problems.length)
		throw new Error(`${LABELS[mode]}, request ${requestNumber}: ${problems.join('; ')}`);
	return {
		wallMs,
		modelCalls: result.metrics.model_calls,
		promptTokens: result.usage?.prompt_tokens,
	};
}

/** Warm-up, then `runs` requests of each mode, taking turns (the first mode alternates). */
async function measureEngine(options) {
	const { createChatModel } = dist('providers', 'create-model.js');
	const { server, holder } = await startModel(options.delay);
	const model = createChatModel({
		provider: 'openai',
		apiKey: BENCH_API_KEY,
		baseUrl: server.openaiBaseUrl,
		maxRetries: 0,
	});
	const samples = Object.fromEntries(
		MODES.map((mode) => [mode, { wallMs: [], engineTokens: 0, modelCalls: 0 }]),
	);
	let requestNumber = 0;
	try {
		for (let run = 0; run < options.warmup; run++)
			for (const mode of MODES) await runOnce(model, mode, ++requestNumber);
		holder.tally = newTally();
		for (let run = 0; run < options.runs; run++) {
			const order = run % 2 ? [...MODES].reverse() : MODES;
			for (const mode of order) {
				const { wallMs, modelCalls, promptTokens } = await runOnce(model, mode, ++requestNumber);
				samples[mode].wallMs.push(wallMs);
				samples[mode].modelCalls += modelCalls;
				samples[mode].engineTokens += promptTokens ?? NaN;
			}
		}
	} finally {
		await server.close();
	}
	if (holder.unexpected.length)
		throw new Error(`the scripted model could not place: ${holder.unexpected.join(', ')}`);
	return MODES.map((mode) => {
		const wall = [...samples[mode].wallMs].sort((left, right) => left - right);
		const tally = holder.tally[mode];
		return {
			mode,
			label: LABELS[mode],
			runs: options.runs,
			modelCalls: samples[mode].modelCalls / options.runs,
			serverCalls: tally.calls / options.runs,
			promptTokens: tally.promptTokens / options.runs,
			engineTokens: samples[mode].engineTokens / options.runs,
			tokensByCall: tally.byCall.map((total) => total / options.runs),
			p50: percentile(wall, 0.5),
			p90: percentile(wall, 0.9),
		};
	});
}

const fixed = (value, digits = 0) =>
	Number.isFinite(value)
		? value.toLocaleString('en-US', {
				maximumFractionDigits: digits,
				minimumFractionDigits: digits,
			})
		: 'n/a';

/** The table, the ratios plan / ReAct and the target; `where` names the setting (engine or n8n). */
function report(where, rows) {
	console.log(`\n${where}`);
	const header = [
		'mode',
		'model calls/req',
		'prompt tokens/req',
		'tokens by call',
		'p50 ms',
		'p90 ms',
	];
	const cells = rows.map((row) => [
		row.label,
		fixed(row.modelCalls, 2),
		fixed(row.promptTokens),
		row.tokensByCall?.map((tokens) => fixed(tokens)).join(' + ') ?? '',
		fixed(row.p50),
		fixed(row.p90),
	]);
	const widths = header.map((title, column) =>
		Math.max(title.length, ...cells.map((cell) => cell[column].length)),
	);
	const line = (cell) =>
		cell
			.map((text, column) => (column ? text.padStart(widths[column]) : text.padEnd(widths[column])))
			.join(' | ');
	console.log(line(header));
	console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
	for (const cell of cells) console.log(line(cell));
	const [react, plan] = ['react', 'plan'].map((mode) => rows.find((row) => row.mode === mode));
	const ratio = (figure) => plan[figure] / react[figure];
	console.log(
		`plan / ReAct: model calls ${fixed(ratio('modelCalls'), 2)}×, prompt tokens ${fixed(ratio('promptTokens'), 2)}×, ` +
			`p50 ${fixed(ratio('p50'), 2)}×, p90 ${fixed(ratio('p90'), 2)}×`,
	);
	if (rows.every((row) => row.toolsP50 !== undefined))
		console.log(
			`the three tools' time per request (sub-workflow executions, trace tool_ms), p50: ` +
				rows.map((row) => `${row.label} ${fixed(row.toolsP50)} ms`).join(', '),
		);
	const verdict = (met) => (met ? 'met' : 'NOT met');
	console.log(
		`target (issue #51): plan 2 model calls where ReAct makes 4 — ${verdict(plan.modelCalls === 2 && react.modelCalls === 4)}` +
			` (${fixed(plan.modelCalls, 2)} against ${fixed(react.modelCalls, 2)}); prompt tokens ≤ ${TARGET_RATIO}× — ` +
			`${verdict(ratio('promptTokens') <= TARGET_RATIO)}; p50 ≤ ${TARGET_RATIO}× — ${verdict(ratio('p50') <= TARGET_RATIO)}`,
	);
}

async function main() {
	let options;
	try {
		options = parseArguments(process.argv.slice(2));
	} catch (error) {
		console.error(error.message);
		process.exitCode = 2;
		return;
	}
	console.log(
		`Node ${process.version}; scripted model ${options.delay} ms per call; ${options.runs} requests per mode after ` +
			`${options.warmup} warm-up, taking turns, concurrency 1; prompt tokens: o200k_base of what the server received`,
	);
	const rows = await measureEngine(options);
	for (const row of rows) {
		if (row.serverCalls !== row.modelCalls || row.engineTokens !== row.promptTokens)
			throw new Error(
				`${row.label}: the server counted ${row.serverCalls} calls and ${row.promptTokens} tokens per request, ` +
					`the engine ${row.modelCalls} and ${row.engineTokens}`,
			);
	}
	report('Engine (runAgent, openai SDK, scripted server):', rows);
	if (options.n8n) {
		const { measureN8n } = require('./plan-mode/n8n');
		report('n8n 2.41.1 (Webhook → Agent Core v2 → Respond):', await measureN8n(options));
	}
}

main().catch((error) => {
	console.error(error?.stack ?? error);
	process.exitCode = 1;
});
