'use strict';
/**
 * One measured segment of load on one workflow, the aggregation of a level's segments (its rounds) into the
 * figures of one table row, and what bench/webhook.js and bench/lookups.js both run around it: the smoke
 * request and warm-up per workflow, then the interleaved rounds over every level.
 */
const { runLoad, percentile } = require('./load');
const { cpuMilliseconds, mainThreadMilliseconds, machineTicks } = require('./process-cpu');
const scenario = require('./scenario');

/**
 * Sends `requests` requests at `concurrency` to one workflow and records, besides latency and errors,
 * n8n's CPU (all its processes, and its main thread alone), the machine's busy ticks, the model calls the
 * agent made (read from the model server), and Agent Core's own timings from its responses.
 *
 * @param {object} n8n            from createN8nInstance()
 * @param {object} workflow       an entry of WORKFLOWS (key, path, check, model)
 * @param {object} context        { concurrency, requests, firstIndex, models, n8nProcesses: { all(): number[], main: number },
 *                                promptFor?: (index) => string (default: bench/webhook/scenario.js's) }
 */
async function measureSegment(
	n8n,
	workflow,
	{ concurrency, requests, firstIndex, models, n8nProcesses, promptFor = scenario.promptFor },
) {
	if (workflow.model) await models.reset();
	const inside = { runMs: [], modelCallMs: [], outsideMs: [] };
	const before = {
		cpu: cpuMilliseconds(n8nProcesses.all()),
		main: mainThreadMilliseconds(n8nProcesses.main),
		machine: machineTicks(),
	};
	const startMicroseconds = Number(process.hrtime.bigint() / 1000n);
	const result = await runLoad({
		url: n8n.webhookUrl(workflow.path),
		requests,
		concurrency,
		body: (index) => ({ prompt: promptFor(firstIndex + index) }),
		check: (index, status, body, text, latencyMs) => {
			if (status !== 200) return `HTTP ${status} ${text.slice(0, 200)}`;
			const problem = workflow.check(firstIndex + index, body);
			// Agent Core times its own run and each model call: the rest of the latency is n8n's.
			if (!problem && workflow.key === 'agentCore') {
				inside.runMs.push(body.elapsed_ms);
				inside.outsideMs.push(latencyMs - body.elapsed_ms);
				for (const step of body.trace) inside.modelCallMs.push(step.model_ms);
			}
			return problem;
		},
	});
	const endMicroseconds = Number(process.hrtime.bigint() / 1000n);
	const after = {
		cpu: cpuMilliseconds(n8nProcesses.all()),
		main: mainThreadMilliseconds(n8nProcesses.main),
		machine: machineTicks(),
	};
	return {
		concurrency,
		requests,
		sent: requests - result.notStarted,
		ok: result.ok,
		errors: result.errors + result.notStarted,
		wallMs: result.wallMs,
		latenciesMs: result.latenciesMs,
		n8nCpuMs: after.cpu - before.cpu,
		mainThreadMs: after.main - before.main,
		machine: {
			busy: after.machine.busy - before.machine.busy,
			total: after.machine.total - before.machine.total,
		},
		model: workflow.model ? (await models.stats())[workflow.model] : undefined,
		inside,
		firstErrors: result.firstErrors,
		// CLOCK_MONOTONIC microseconds, the clock of V8's CPU profiles: profile-summary.js cuts a profile to them.
		window: { workflow: workflow.key, concurrency, requests, startMicroseconds, endMicroseconds },
	};
}

const sum = (values) => values.reduce((total, value) => total + value, 0);
const median = (values) =>
	percentile(
		[...values].sort((left, right) => left - right),
		0.5,
	);

/** A level's segments (rounds) of one workflow → one row: totals, percentiles over every request, per-round throughput. */
function aggregate(segments) {
	const sent = Math.max(1, sum(segments.map((segment) => segment.sent)));
	const wallMs = sum(segments.map((segment) => segment.wallMs));
	const latencies = segments
		.flatMap((segment) => segment.latenciesMs)
		.sort((left, right) => left - right);
	const ok = sum(segments.map((segment) => segment.ok));
	const phase = {
		concurrency: segments[0].concurrency,
		requests: sum(segments.map((segment) => segment.requests)),
		ok,
		errors: sum(segments.map((segment) => segment.errors)),
		throughput: ok / (wallMs / 1000),
		roundThroughputs: segments.map((segment) => segment.ok / (segment.wallMs / 1000)),
		p50: percentile(latencies, 0.5),
		p95: percentile(latencies, 0.95),
		p99: percentile(latencies, 0.99),
		n8nCpuMsPerRequest: sum(segments.map((segment) => segment.n8nCpuMs)) / sent,
		mainThreadMsPerRequest: sum(segments.map((segment) => segment.mainThreadMs)) / sent,
		mainThreadBusy: sum(segments.map((segment) => segment.mainThreadMs)) / wallMs,
		machineBusy:
			sum(segments.map((segment) => segment.machine.busy)) /
			Math.max(1, sum(segments.map((segment) => segment.machine.total))),
		firstErrors: segments.flatMap((segment) => segment.firstErrors).slice(0, 5),
		windows: segments.map((segment) => segment.window),
	};
	const runMs = segments.flatMap((segment) => segment.inside.runMs);
	if (runMs.length) {
		phase.inside = {
			runMs: median(runMs),
			modelCallMs: median(segments.flatMap((segment) => segment.inside.modelCallMs)),
			outsideMs: median(segments.flatMap((segment) => segment.inside.outsideMs)),
		};
	}
	const models = segments.map((segment) => segment.model).filter(Boolean);
	if (models.length) {
		const total = (name) => sum(models.map((model) => model[name]));
		const slot = (index, name) => sum(models.map((model) => model.byCall[index][name]));
		phase.model = {
			callsPerRequest: total('calls') / sent,
			unexpected: total('unexpected'),
			promptCharactersPerRequest: total('promptCharacters') / sent,
			promptTokensPerRequest: total('promptTokens') / sent,
			cachedTokensPerRequest: total('cachedTokens') / sent,
			requestBodyCharactersPerRequest: total('requestBodyCharacters') / sent,
			toolDefinitionCharactersPerRequest: total('toolDefinitionCharacters') / sent,
			byCall: [0, 1].map((index) => {
				const calls = Math.max(1, slot(index, 'calls'));
				return {
					promptCharacters: slot(index, 'promptCharacters') / calls,
					promptTokens: slot(index, 'promptTokens') / calls,
					requestBodyCharacters: slot(index, 'requestBodyCharacters') / calls,
				};
			}),
		};
	}
	return phase;
}

/**
 * One request to each workflow first: one that cannot answer at all is reported (exit code 1, with n8n's log
 * tail) and left out of the load. Then `warmup` unmeasured requests to each working one, 5 at a time.
 * Returns the working workflows.
 */
async function smokeAndWarmUp(n8n, workflows, { warmup, promptFor = scenario.promptFor }) {
	const working = [];
	for (const workflow of workflows) {
		const smoke = await runLoad({
			url: n8n.webhookUrl(workflow.path),
			requests: 1,
			concurrency: 1,
			body: () => ({ prompt: promptFor(0) }),
			check: (index, status, body, text) =>
				status !== 200 ? `HTTP ${status} ${text.slice(0, 300)}` : workflow.check(0, body),
		});
		if (smoke.ok === 1) working.push(workflow);
		else {
			console.log(`${workflow.name} does not work: ${smoke.firstErrors.join('; ')}`);
			process.exitCode = 1;
		}
	}
	if (working.length < workflows.length) console.log(`n8n log tail:\n${n8n.logTail(3000)}`);
	if (warmup > 0) process.stderr.write(`[bench] warm-up: ${warmup} requests per workflow…\n`);
	for (const workflow of warmup > 0 ? working : [])
		await runLoad({
			url: n8n.webhookUrl(workflow.path),
			requests: warmup,
			concurrency: Math.min(5, warmup),
			body: (index) => ({ prompt: promptFor(index) }),
			check: () => undefined,
		});
	return working;
}

/**
 * Every concurrency level (`options.concurrency`, `options.requests[level]` requests each) split into up to
 * `options.rounds` rounds of at least 2 × concurrency requests, each workflow of `working` in turn in rotating
 * order. `context`: { models, n8nProcesses, promptFor? }, as measureSegment takes them. Returns, per key of
 * `workflows`, one aggregated phase per level (undefined where the workflow was not measured).
 */
async function measureRounds(n8n, workflows, working, options, context) {
	const segments = Object.fromEntries(
		workflows.map((workflow) => [workflow.key, options.concurrency.map(() => [])]),
	);
	let firstIndex = 1000;
	for (const [level, concurrency] of options.concurrency.entries()) {
		const requests = options.requests[level];
		const rounds = Math.max(1, Math.min(options.rounds, Math.floor(requests / (2 * concurrency))));
		for (let round = 0; round < rounds; round++) {
			const share = Math.floor(requests / rounds) + (round < requests % rounds ? 1 : 0);
			// Rotating order: a burst of other work on the machine lands on every workflow about equally.
			for (let turn = 0; turn < working.length; turn++) {
				const workflow = working[(turn + round + level) % working.length];
				process.stderr.write(
					`[bench] ${workflow.name}: ${share} requests at concurrency ${concurrency} (round ${round + 1}/${rounds})…\n`,
				);
				segments[workflow.key][level].push(
					await measureSegment(n8n, workflow, {
						...context,
						concurrency,
						requests: share,
						firstIndex,
					}),
				);
				firstIndex += share;
			}
		}
	}
	return Object.fromEntries(
		Object.entries(segments).map(([key, levels]) => [
			key,
			levels.map((list) => (list.length ? aggregate(list) : undefined)),
		]),
	);
}

module.exports = { measureSegment, aggregate, measureRounds, smokeAndWarmUp };
