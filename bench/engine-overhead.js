'use strict';
/**
 * Client-side overhead per agent step: Agent Core against a hand-written loop on the same SDK (the floor),
 * Vercel AI SDK 6 and LangChain.js 1.5, all in one run on the same machine, printed side by side with
 * ratios to the floor. The model servers answer instantly from a child process, so what is left is the
 * clients' own work: building requests, the HTTP client, parsing, validation, bookkeeping.
 * The contenders take turns in interleaved rounds; the headline ratio is the median of the per-round ratios
 * to the bare loop, with their range (min–max) as the error bar, since a burst of load from other work
 * skews a round and the median shrugs it off.
 *
 * Usage: npm run build && node bench/engine-overhead.js [--runs 200] [--warmup 30] [--rounds 10] [--only bare,agentCore] [--baseline REV]
 * `--baseline REV` also builds commit REV (a git worktree in the temp folder, sharing node_modules) and
 * runs its engine as one more contender, so a change is compared with what came before in the same run.
 * Exits 0 whatever the numbers say; 1 only when a contender failed to run the task as scripted, 2 on bad options.
 */
const { fork } = require('node:child_process');
const path = require('node:path');
const { nextMessage: waitForMessage } = require('./child-messages');
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { CONTENDERS, agentCoreBuiltIn } = require('./contenders');
const scenario = require('./scenario');

/** Issue #29: Agent Core's CPU per step, as the median of the per-round ratios, within this of the bare loop's. */
const TARGET_RATIO_TO_BARE_LOOP = 1.05;
const DEFAULTS = { runs: 200, warmup: 30, rounds: 10 };
/** Fewer rounds than this give a median and range that say little about the noise. */
const MIN_ROUNDS_FOR_SPREAD = 5;

// Collecting before each measured segment keeps one contender's garbage from being charged to the next one.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

function parseArguments(argv) {
	const options = {
		...DEFAULTS,
		only: [...CONTENDERS.map((contender) => contender.key), 'baseline'],
	};
	for (let index = 0; index < argv.length; index++) {
		const name = argv[index].replace(/^--/, '');
		if (name === 'baseline') {
			options.baseline = argv[++index];
			if (!options.baseline)
				throw new Error('--baseline needs a git revision, e.g. --baseline HEAD~1');
			continue;
		}
		if (name === 'only') {
			// For profiling one contender without the others' samples in the same profile.
			options.only = String(argv[++index] ?? '').split(',');
			const unknown = options.only.filter(
				(key) => key !== 'baseline' && !CONTENDERS.some((contender) => contender.key === key),
			);
			if (unknown.length)
				throw new Error(
					`--only takes ${CONTENDERS.map((contender) => contender.key).join(',')},baseline; got ${unknown.join(',')}`,
				);
			continue;
		}
		if (!(name in DEFAULTS))
			throw new Error(
				`unknown option ${argv[index]} (known: --runs N, --warmup N, --rounds N, --only KEYS, --baseline REV)`,
			);
		const value = Number(argv[++index]);
		if (!Number.isInteger(value) || value < (name === 'warmup' ? 0 : 1))
			throw new Error(`--${name} needs a whole number, got ${argv[index]}`);
		options[name] = value;
	}
	options.rounds = Math.min(options.rounds, options.runs);
	return options;
}

/**
 * Builds commit `revision` of this repository into a git worktree in the temp folder (node_modules shared
 * through a link) and returns its folder; the worktree is removed when the process exits.
 */
function buildBaseline(revision) {
	const repo = path.join(__dirname, '..');
	const commit = execFileSync('git', ['rev-parse', '--short', `${revision}^{commit}`], {
		cwd: repo,
		encoding: 'utf8',
	}).trim();
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), `agent-core-baseline-${commit}-`));
	execFileSync('git', ['worktree', 'add', '--detach', '--force', folder, commit], {
		cwd: repo,
		stdio: 'ignore',
	});
	process.once('exit', () => {
		try {
			execFileSync('git', ['worktree', 'remove', '--force', folder], {
				cwd: repo,
				stdio: 'ignore',
			});
		} catch {
			fs.rmSync(folder, { recursive: true, force: true });
		}
	});
	fs.symlinkSync(path.join(repo, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
	execFileSync(
		process.execPath,
		[path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
		{ cwd: folder, stdio: 'inherit' },
	);
	return { commit, dist: path.join(folder, 'dist') };
}

/** The model servers in their own process; resolves with their URLs and a way to ask their call counts. */
function startModelServers() {
	// No inherited Node flags: `--cpu-prof` or `--inspect` given for the benchmark are meant for the client.
	const child = fork(path.join(__dirname, 'model-servers.js'), [], {
		execArgv: [],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	const nextMessage = (type) => waitForMessage(child, type, 'the model server process');
	const stop = async () => {
		if (child.exitCode === null && child.signalCode === null) {
			if (child.connected) child.send({ type: 'close' });
			const timer = setTimeout(() => child.kill(), 5000);
			await exited;
			clearTimeout(timer);
		}
	};
	return nextMessage('ready').then(
		(ready) => ({
			urls: ready,
			counts: () => {
				const answer = nextMessage('counts');
				child.send({ type: 'counts' });
				return answer;
			},
			stop,
		}),
		async (error) => {
			await stop();
			throw error;
		},
	);
}

/**
 * Runs `runs` runs of one contender back to back and checks, outside the timed part, that every run made
 * its ten model calls (by the client's own count and the server's) and its nine tool executions.
 * `round` is the index of the measured round, or undefined for the warm-up.
 */
async function runSegment(contender, runs, servers, round) {
	const timed = round !== undefined;
	const serverCallsBefore = (await servers.counts())[contender.server];
	const toolExecutionsBefore = scenario.toolExecutions();
	if (timed) collectGarbage();

	const cpuStart = process.cpuUsage();
	const wallStart = performance.now();
	let modelCalls = 0;
	for (let run = 0; run < runs; run++) modelCalls += await contender.runOnce();
	const wallMs = performance.now() - wallStart;
	const cpu = process.cpuUsage(cpuStart);

	const expectedCalls = runs * scenario.MODEL_CALLS_PER_RUN;
	const serverCalls = (await servers.counts())[contender.server] - serverCallsBefore;
	const toolExecutions = scenario.toolExecutions() - toolExecutionsBefore;
	if (
		modelCalls !== expectedCalls ||
		serverCalls !== expectedCalls ||
		toolExecutions !== runs * scenario.TOOL_CALLS_PER_RUN
	) {
		throw new Error(
			`${runs} runs should make ${expectedCalls} model calls and ${runs * scenario.TOOL_CALLS_PER_RUN} tool executions; ` +
				`the client counted ${modelCalls} calls, the server ${serverCalls}, and the tool ran ${toolExecutions} times`,
		);
	}
	if (timed) {
		contender.cpuMs += (cpu.user + cpu.system) / 1000;
		contender.wallMs += wallMs;
		contender.steps += modelCalls;
		contender.runs += runs;
		contender.cpuPerStepByRound[round] = (cpu.user + cpu.system) / 1000 / modelCalls;
		contender.wallPerStepByRound[round] = wallMs / modelCalls;
	}
}

/** Runs as evenly split as possible over the rounds. */
function runsPerRound(runs, rounds) {
	return Array.from(
		{ length: rounds },
		(_, round) => Math.floor(runs / rounds) + (round < runs % rounds ? 1 : 0),
	);
}

async function measure(contenders, options, servers) {
	const working = () => contenders.filter((contender) => !contender.failure);
	const attempt = async (contender, work) => {
		try {
			await work();
		} catch (error) {
			contender.failure = error?.message ?? String(error);
			console.error(`${contender.name} failed: ${error?.stack ?? error}`);
		}
	};

	for (const contender of contenders) {
		await attempt(contender, async () => {
			contender.runOnce = contender.create(servers.urls);
			// At least one unmeasured run, so that a broken contender fails here and not in the table.
			await runSegment(contender, Math.max(1, options.warmup), servers, undefined);
		});
	}
	// Interleaved rounds in rotating order: a burst of load from other work on the machine lands on every
	// contender about equally instead of on whichever one happened to be running.
	const rounds = runsPerRound(options.runs, options.rounds);
	for (let round = 0; round < rounds.length; round++) {
		const order = working();
		for (let turn = 0; turn < order.length; turn++) {
			const contender = order[(turn + round) % order.length];
			await attempt(contender, () => runSegment(contender, rounds[round], servers, round));
		}
	}
}

function formatRatio(value) {
	return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
}

/**
 * `contender`'s ratio to `reference` within each round for `figure` (`cpuPerStepByRound` or
 * `wallPerStepByRound`), as { median, min, max, rounds }: a burst of load skews a round, the median shrugs it off.
 */
function perRoundRatios(contender, reference, figure) {
	const ratios = contender[figure]
		.map((perStep, round) => perStep / reference[figure][round])
		.filter(Number.isFinite)
		.sort((left, right) => left - right);
	if (ratios.length === 0) return { median: NaN, min: NaN, max: NaN, rounds: 0 };
	const middle = ratios.length >> 1;
	const median = ratios.length % 2 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
	return { median, min: ratios[0], max: ratios[ratios.length - 1], rounds: ratios.length };
}

/** `1.03× (0.95–1.12×)`: a median of per-round ratios and its range. */
function formatSpread({ median, min, max }) {
	return Number.isFinite(median)
		? `${formatRatio(median)} (${min.toFixed(2)}–${formatRatio(max)})`
		: 'n/a';
}

function printReport(contenders, options) {
	const rows = contenders.map((contender) => {
		if (contender.failure) return [contender.name, 'FAILED', '', '', ''];
		return [
			contender.name,
			contender.cpuPerStep.toFixed(3),
			contender.wallPerStep.toFixed(3),
			formatSpread(contender.cpuRatio),
			formatSpread(contender.wallRatio),
		];
	});
	const header = [
		'contender',
		'CPU ms/step',
		'wall ms/step',
		'CPU × bare loop, median (range)',
		'wall × bare loop, median (range)',
	];
	const widths = header.map((title, column) =>
		Math.max(title.length, ...rows.map((row) => row[column].length)),
	);
	const line = (cells) =>
		cells
			.map((cell, column) =>
				column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
			)
			.join(' | ');

	console.log(`Node ${process.version} on ${process.platform}/${process.arch}`);
	console.log(
		`${options.runs} measured runs per contender (${scenario.MODEL_CALLS_PER_RUN} model calls and ${scenario.TOOL_CALLS_PER_RUN} tool calls each) ` +
			`after ${options.warmup} warm-up runs, in ${options.rounds} interleaved rounds; client CPU only (the model servers run in a child process)`,
	);
	console.log(
		`ms/step: over all measured runs. × bare loop: the ratio within each round, median over the ${options.rounds} rounds and (min–max), ` +
			'so that load from other work, which skews single rounds, does not skew the figure.',
	);
	if (options.rounds < MIN_ROUNDS_FOR_SPREAD)
		console.log(
			`Note: with fewer than ${MIN_ROUNDS_FOR_SPREAD} rounds the median and range say little about the noise.`,
		);
	console.log('');
	console.log(line(header));
	console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
	for (const row of rows) console.log(line(row));
	console.log('');

	const [bare, agentCore, vercel, baseline] = ['bare', 'agentCore', 'vercel', 'baseline'].map(
		(key) => contenders.find((contender) => contender.key === key),
	);
	const measured = (contender) => contender && !contender.failure;
	if (measured(bare) && measured(agentCore)) {
		const within = agentCore.cpuRatio.median <= TARGET_RATIO_TO_BARE_LOOP;
		console.log(
			`Agent Core CPU/step within ${TARGET_RATIO_TO_BARE_LOOP}× the bare loop (median of per-round ratios): ${within ? 'yes' : 'no'} (${formatSpread(agentCore.cpuRatio)})`,
		);
	} else {
		console.log(
			`Agent Core CPU/step within ${TARGET_RATIO_TO_BARE_LOOP}× the bare loop: not measured`,
		);
	}
	if (measured(agentCore) && measured(baseline)) {
		console.log(
			`Agent Core now vs ${baseline.name}: CPU/step ${formatSpread(perRoundRatios(agentCore, baseline, 'cpuPerStepByRound'))} per round (below 1× is faster)`,
		);
	}
	if (measured(agentCore) && measured(vercel)) {
		const versusVercel = perRoundRatios(agentCore, vercel, 'cpuPerStepByRound');
		console.log(
			`Agent Core below Vercel AI SDK: ${versusVercel.median < 1 ? 'yes' : 'no'} (CPU/step ${formatSpread(versusVercel)} per round)`,
		);
	} else {
		console.log('Agent Core below Vercel AI SDK: not measured');
	}
	for (const contender of contenders) {
		if (contender.failure)
			console.log(`${contender.name} did not run the task correctly: ${contender.failure}`);
	}
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
	const definitions = [...CONTENDERS];
	if (options.baseline && options.only.includes('baseline')) {
		const baseline = buildBaseline(options.baseline);
		definitions.splice(2, 0, {
			name: `Agent Core at ${baseline.commit}`,
			key: 'baseline',
			server: 'protocol',
			create: agentCoreBuiltIn(baseline.dist),
		});
	}
	const contenders = definitions
		.filter((definition) => options.only.includes(definition.key))
		.map((definition) => ({
			...definition,
			cpuMs: 0,
			wallMs: 0,
			steps: 0,
			runs: 0,
			cpuPerStepByRound: [],
			wallPerStepByRound: [],
		}));
	const servers = await startModelServers();
	try {
		await measure(contenders, options, servers);
	} finally {
		await servers.stop();
	}

	for (const contender of contenders) {
		if (contender.failure) continue;
		contender.cpuPerStep = contender.cpuMs / contender.steps;
		contender.wallPerStep = contender.wallMs / contender.steps;
	}
	const bare = contenders.find((contender) => contender.key === 'bare' && !contender.failure);
	const noRatio = { median: NaN, min: NaN, max: NaN, rounds: 0 };
	for (const contender of contenders) {
		if (contender.failure) continue;
		contender.cpuRatio = bare ? perRoundRatios(contender, bare, 'cpuPerStepByRound') : noRatio;
		contender.wallRatio = bare ? perRoundRatios(contender, bare, 'wallPerStepByRound') : noRatio;
	}
	printReport(contenders, options);
	if (contenders.some((contender) => contender.failure)) process.exitCode = 1;
}

main().catch((error) => {
	console.error(error?.stack ?? error);
	process.exitCode = 1;
});
