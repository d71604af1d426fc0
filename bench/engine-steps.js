'use strict';
/**
 * The engine's own CPU per step, with no HTTP at all: engine-overhead.js's ten-call task run through
 * `runAgent` with an in-process model that answers the script at once, so what is measured is the loop,
 * validation, redaction, hashing and bookkeeping, without the SDK and the HTTP client every contender pays.
 * Builds given with --dist (e.g. an earlier commit's dist/) take turns with this checkout's in interleaved
 * rounds, and each is reported as µs per step, median over rounds and min–max, and as the per-round ratio
 * to the first build.
 *
 *   node bench/engine-steps.js [--runs 2000] [--rounds 10] [--dist /tmp/base/dist ...] [--listener]
 *
 * `--listener` passes an `onEvent` listener that drops the events, as a streaming caller would cost.
 * For looking at the engine in a profiler: node --cpu-prof bench/engine-steps.js --runs 5000.
 */
const path = require('node:path');
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');
const scenario = require('./scenario');
const { BENCH_API_KEY } = scenario;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

function parseArguments(argv) {
	const options = {
		runs: 2000,
		rounds: 10,
		warmup: 200,
		dists: [path.join(__dirname, '..', 'dist')],
		listener: false,
	};
	for (let index = 0; index < argv.length; index++) {
		const name = argv[index];
		if (name === '--dist') options.dists.push(path.resolve(argv[++index]));
		else if (name === '--listener') options.listener = true;
		else if (['--runs', '--rounds', '--warmup'].includes(name))
			options[name.slice(2)] = Number(argv[++index]);
		else
			throw new Error(
				`unknown option ${name} (known: --runs N, --rounds N, --warmup N, --dist FOLDER, --listener)`,
			);
	}
	return options;
}

/** `runOnce()` on the build in `dist`: one run of the task against a model object that answers the script. */
function contender(dist, listener) {
	const { runAgent } = require(path.join(dist, 'src', 'agent', 'run-agent.js'));
	let call = 0;
	const model = {
		provider: 'openai',
		secrets: [BENCH_API_KEY],
		generate: async () => {
			const text = scenario.protocolReply(call++ % scenario.MODEL_CALLS_PER_RUN);
			return {
				text,
				usage: { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 },
				usageReported: true,
				finishReason: 'stop',
			};
		},
	};
	const config = {
		model: scenario.MODEL_ID,
		max_steps: scenario.MODEL_CALLS_PER_RUN,
		max_tool_calls: scenario.MODEL_CALLS_PER_RUN,
		allowed_tools: ['add'],
	};
	const addTool = {
		name: 'add',
		description: scenario.ADD_DESCRIPTION,
		parameters: scenario.ADD_PARAMETERS,
		execute: (args) => scenario.add(args),
	};
	const onEvent = listener ? () => undefined : undefined;
	return async function runOnce() {
		call = 0;
		const result = await runAgent({
			model,
			config,
			prompt: scenario.PROMPT,
			extraTools: [addTool],
			onEvent,
		});
		if (result.finish_reason !== 'final' || result.trace.length !== scenario.MODEL_CALLS_PER_RUN)
			throw new Error(`${dist}: ended ${result.finish_reason} (${result.stop_detail})`);
		return result;
	};
}

const median = (values) => {
	const sorted = [...values].sort((left, right) => left - right);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main() {
	const options = parseArguments(process.argv.slice(2));
	const builds = options.dists.map((dist) => ({
		dist,
		runOnce: contender(dist, options.listener),
		perRound: [],
	}));
	for (const build of builds) for (let run = 0; run < options.warmup; run++) await build.runOnce();
	const digests = new Set();
	for (const build of builds) digests.add((await build.runOnce()).trace_digest.length);
	const perRound = Math.max(1, Math.round(options.runs / options.rounds));
	for (let round = 0; round < options.rounds; round++) {
		for (let turn = 0; turn < builds.length; turn++) {
			const build = builds[(turn + round) % builds.length];
			collectGarbage();
			const start = process.cpuUsage();
			for (let run = 0; run < perRound; run++) await build.runOnce();
			const cpu = process.cpuUsage(start);
			build.perRound[round] = (cpu.user + cpu.system) / (perRound * scenario.MODEL_CALLS_PER_RUN);
		}
	}
	console.log(
		`Node ${process.version}; ${perRound} runs × ${options.rounds} rounds per build, ${scenario.MODEL_CALLS_PER_RUN} steps a run, in-process model${options.listener ? ', with an event listener' : ''}`,
	);
	const first = builds[0];
	for (const build of builds) {
		const ratios = build.perRound.map((value, round) => value / first.perRound[round]);
		console.log(
			`${build.dist}: ${median(build.perRound).toFixed(1)} µs CPU/step (${Math.min(...build.perRound).toFixed(1)}–${Math.max(...build.perRound).toFixed(1)})` +
				(build === first
					? ''
					: `; × first build per round: ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`),
		);
	}
}

main().catch((error) => {
	console.error(error?.stack ?? error);
	process.exitCode = 1;
});
