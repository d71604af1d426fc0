'use strict';
/** Prints bench/webhook.js's results: the table, where Agent Core's time goes, ratios, prompts, targets. */
const scenario = require('./scenario');

const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ratio = (value) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a');
const percent = (value) => (Number.isFinite(value) ? `${Math.round(value * 100)} %` : 'n/a');

function printTable(header, rows) {
	const widths = header.map((title, column) =>
		Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
	);
	const line = (cells) =>
		cells
			.map((cell, column) =>
				column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]),
			)
			.join(' | ');
	console.log(line(header));
	console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
	for (const row of rows) console.log(line(row));
}

/** "1.08× (rounds 1.02–1.15)": the ratio of the totals, and its range over the interleaved rounds. */
function ratioWithSpread(ours, theirs) {
	if (!ours || !theirs) return 'n/a';
	const perRound = ours.roundThroughputs
		.map((value, round) => value / theirs.roundThroughputs[round])
		.filter(Number.isFinite);
	const spread =
		perRound.length > 1
			? ` (rounds ${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)})`
			: '';
	return `${ratio(ours.throughput / theirs.throughput)}${spread}`;
}

function printMainTable(workflows, results, options) {
	const rows = [];
	for (const [levelIndex, concurrency] of options.concurrency.entries()) {
		for (const workflow of workflows) {
			const phase = results[workflow.key][levelIndex];
			if (!phase) continue;
			rows.push([
				workflow.name,
				concurrency,
				`${phase.ok}/${phase.requests}`,
				fixed(phase.throughput),
				fixed(phase.p50, 0),
				fixed(phase.p95, 0),
				fixed(phase.p99, 0),
				phase.errors,
				fixed(phase.n8nCpuMsPerRequest, 1),
				fixed(phase.mainThreadMsPerRequest, 1),
				percent(phase.mainThreadBusy),
				percent(phase.machineBusy),
				phase.model ? fixed(phase.model.callsPerRequest, 2) : '',
			]);
		}
	}
	printTable(
		[
			'workflow',
			'conc.',
			'ok/sent',
			'req/s',
			'p50 ms',
			'p95 ms',
			'p99 ms',
			'errors',
			'n8n CPU ms/req',
			'main thread ms/req',
			'main thread busy',
			'machine busy',
			'model calls/req',
		],
		rows,
	);
	console.log(
		"  n8n CPU: all threads of n8n's processes; main thread: where n8n runs JavaScript, one core at most;",
	);
	console.log(
		"  machine busy: both cores, everything on the machine (this benchmark's client and model server included).",
	);
}

function printInside(results, options) {
	const timed = options.concurrency
		.map((concurrency, levelIndex) => [concurrency, results.agentCore?.[levelIndex]?.inside])
		.filter(([, inside]) => inside);
	if (!timed.length) return;
	console.log('');
	console.log(
		`Where Agent Core's latency goes (p50 of its own timings in each response; the model server waits ${scenario.MODEL_DELAY_MS} ms per call):`,
	);
	for (const [concurrency, inside] of timed) {
		console.log(
			`  concurrency ${String(concurrency).padStart(3)}: run (elapsed_ms) ${fixed(inside.runMs, 0)} ms, one model call (model_ms) ${fixed(inside.modelCallMs, 0)} ms, ` +
				`n8n outside the node (latency − elapsed_ms) ${fixed(inside.outsideMs, 0)} ms`,
		);
	}
}

function printRatios(results, options) {
	console.log('');
	console.log('Throughput ratios (req/s; in brackets the range over the interleaved rounds):');
	for (const [levelIndex, concurrency] of options.concurrency.entries()) {
		const [ours, theirs, floor, held] = ['agentCore', 'aiAgent', 'trivial', 'setWait'].map(
			(key) => results[key]?.[levelIndex],
		);
		console.log(`  concurrency ${String(concurrency).padStart(3)}:`);
		console.log(
			`    Agent Core / AI Agent ${ratioWithSpread(ours, theirs)}; Agent Core / trivial ${ratioWithSpread(ours, floor)}; AI Agent / trivial ${ratioWithSpread(theirs, floor)}`,
		);
		const subNode = results.agentCoreSubNode?.[levelIndex];
		if (subNode)
			console.log(
				`    Agent Core on the OpenAI Chat Model sub-node / on its own credential ${ratioWithSpread(subNode, ours)}; / AI Agent ${ratioWithSpread(subNode, theirs)}`,
			);
		if (held) {
			console.log(
				`    Set + Wait 400 ms (the best any agent can do) / trivial ${ratioWithSpread(held, floor)}, / AI Agent ${ratioWithSpread(held, theirs)}; ` +
					`Agent Core / Set + Wait 400 ms ${ratioWithSpread(ours, held)}`,
			);
		}
		const withTool = results.setWaitTool?.[levelIndex];
		if (withTool)
			console.log(
				`    Agent Core / Set + Wait + Calculator ${ratioWithSpread(ours, withTool)}; AI Agent / Set + Wait + Calculator ${ratioWithSpread(theirs, withTool)}`,
			);
	}
}

/** The prompt each agent sent per webhook request, from the last level at which it answered. */
function promptsOf(workflows, results) {
	return workflows
		.filter((workflow) => workflow.model)
		.map((workflow) => ({
			workflow,
			model: results[workflow.key].filter((phase) => phase?.model && phase.ok > 0).pop()?.model,
		}))
		.filter((entry) => entry.model);
}

function printPrompts(prompts) {
	if (!prompts.length) return;
	console.log('');
	console.log(
		'Prompt per webhook request, as the model server received it (both model calls together):',
	);
	printTable(
		[
			'agent',
			'prompt tokens',
			'of which cached',
			'prompt chars',
			'of which tool definitions',
			'call 1 tokens',
			'call 2 tokens',
			'request body chars',
		],
		prompts.map(({ workflow, model }) => [
			workflow.name,
			fixed(model.promptTokensPerRequest, 0),
			fixed(model.cachedTokensPerRequest, 0),
			fixed(model.promptCharactersPerRequest, 0),
			fixed(model.toolDefinitionCharactersPerRequest, 0),
			fixed(model.byCall[0].promptTokens, 0),
			fixed(model.byCall[1].promptTokens, 0),
			fixed(model.requestBodyCharactersPerRequest, 0),
		]),
	);
	console.log(
		'  prompt = message contents + tool-call names and arguments + the `tools` JSON (native tool definitions) + a',
	);
	console.log(
		"  response_format JSON schema if sent; tokens by o200k_base (gpt-4o-mini's tokenizer). The provider adds",
	);
	console.log(
		'  framing of its own to both (per message, its rendering of tool definitions), not counted here.',
	);
	console.log(
		'  request body chars = the whole JSON body (model, temperature, response_format, JSON punctuation…).',
	);
	console.log(
		"  of which cached = what OpenAI's automatic prompt caching would serve from its cache: a prefix shared with",
	);
	console.log(
		'  a recent prompt, only from 1,024 tokens, in 128-token steps (bench/webhook/model-server.js, cachedTokensOf).',
	);
}

function printTargets(results, prompts, options) {
	console.log('');
	console.log('Targets (reported, not enforced):');
	const verdict = (met) => (met === undefined ? 'not measured' : met ? 'met' : 'MISSED');
	for (const [levelIndex, concurrency] of options.concurrency.entries()) {
		if (concurrency < 10) continue;
		const [ours, theirs, floor] = ['agentCore', 'aiAgent', 'trivial'].map(
			(key) => results[key]?.[levelIndex],
		);
		const versusAgent = ours && theirs ? ours.throughput / theirs.throughput : undefined;
		const versusFloor = ours && floor ? ours.throughput / floor.throughput : undefined;
		const held = results.setWait?.[levelIndex];
		const bound = (reference) =>
			held && reference
				? `; Set + Wait 400 ms reaches ${ratio(held.throughput / reference.throughput)}`
				: '';
		console.log(
			`  concurrency ${concurrency}: throughput ≥ 1.5× AI Agent: ${verdict(versusAgent === undefined ? undefined : versusAgent >= 1.5)} (${ratio(versusAgent)}${bound(theirs)})`,
		);
		console.log(
			`  concurrency ${concurrency}: throughput ≥ 0.9× trivial:  ${verdict(versusFloor === undefined ? undefined : versusFloor >= 0.9)} (${ratio(versusFloor)}${bound(floor)})`,
		);
	}
	printFloorTargets(results, options, verdict);
	const single = options.concurrency.indexOf(1);
	if (single >= 0) {
		const [ours, floor] = ['agentCore', 'trivial'].map((key) => results[key]?.[single]);
		const modelMs = scenario.MODEL_CALLS_PER_RUN * scenario.MODEL_DELAY_MS;
		const limit = floor ? modelMs + floor.p50 + 10 : undefined;
		console.log(
			`  concurrency 1: p50 ≤ ${modelMs} ms + trivial p50 + 10 ms: ${verdict(ours && limit !== undefined ? ours.p50 <= limit : undefined)} ` +
				`(${fixed(ours?.p50, 0)} ms vs ${fixed(limit, 0)} ms: ${fixed(ours ? ours.p50 - modelMs : NaN, 0)} ms beyond the model's ${modelMs} ms, trivial p50 ${fixed(floor?.p50, 0)} ms)`,
		);
	}
	const [ours, theirs] = ['agentCore', 'aiAgent'].map(
		(key) => prompts.find((entry) => entry.workflow.key === key)?.model,
	);
	console.log(
		`  fewer prompt tokens than the AI Agent: ${verdict(ours && theirs ? ours.promptTokensPerRequest < theirs.promptTokensPerRequest : undefined)} ` +
			`(${fixed(ours?.promptTokensPerRequest, 0)} vs ${fixed(theirs?.promptTokensPerRequest, 0)} tokens per request)`,
	);
}

/**
 * Issue #29's targets against the floor with the tool (Set + Wait + Calculator, same run): throughput ≥ 0.97× it
 * and n8n's main thread ≤ its figure + 2 ms per request; the AI Agent beside, for comparison.
 */
function printFloorTargets(results, options, verdict) {
	for (const [levelIndex, concurrency] of options.concurrency.entries()) {
		const floor = results.setWaitTool?.[levelIndex];
		if (!floor) continue;
		for (const key of ['agentCore', 'aiAgent']) {
			const phase = results[key]?.[levelIndex];
			if (!phase) continue;
			const name = key === 'agentCore' ? 'Agent Core' : 'AI Agent';
			const share = phase.throughput / floor.throughput;
			const extra = phase.mainThreadMsPerRequest - floor.mainThreadMsPerRequest;
			console.log(
				`  concurrency ${concurrency}: ${name} ≥ 0.97× Set + Wait + Calculator: ${verdict(share >= 0.97)} (${Number.isFinite(share) ? share.toFixed(3) : 'n/a'}×); ` +
					`main thread ≤ its + 2 ms: ${verdict(extra <= 2)} (${fixed(phase.mainThreadMsPerRequest)} vs ${fixed(floor.mainThreadMsPerRequest)} ms, ${extra >= 0 ? '+' : ''}${fixed(extra)} ms)`,
			);
		}
	}
}

function printErrors(workflows, results) {
	const lines = [];
	for (const workflow of workflows) {
		for (const phase of results[workflow.key]) {
			if (phase?.firstErrors.length)
				lines.push(
					`  ${workflow.name} at concurrency ${phase.concurrency}: ${phase.firstErrors.join('; ')}`,
				);
			if (phase?.model?.unexpected)
				lines.push(
					`  ${workflow.name} at concurrency ${phase.concurrency}: ${phase.model.unexpected} model calls off the script`,
				);
		}
	}
	if (!lines.length) return;
	console.log('');
	console.log('First errors:');
	for (const line of lines) console.log(line);
}

/** Everything after the run: `results[workflowKey][levelIndex]` holds aggregate() rows. */
function report(workflows, results, options) {
	console.log('');
	printMainTable(workflows, results, options);
	printInside(results, options);
	printRatios(results, options);
	const prompts = promptsOf(workflows, results);
	printPrompts(prompts);
	printTargets(results, prompts, options);
	printErrors(workflows, results);
}

module.exports = { report, printTable };
