#!/usr/bin/env node
'use strict';
/**
 * Issue #42's benchmark: a three-lookup task (total the in-stock prices of three catalogues, one Calculator
 * call each) in one real n8n 2.41.x, three workflows Webhook → agent (+ n8n's Calculator sub-node) → Respond:
 * - n8n's AI Agent, whose scripted model asks for the three calls in one reply (native `tool_calls`);
 * - Agent Core v2 with Max Parallel Tool Calls 4: one `{"type":"actions",…}` reply with the three calls;
 * - Agent Core v2 with Max Parallel Tool Calls 1: three single actions.
 * Each Agent Core marks the Calculator read-only (Options → Read-Only Tools), so a batch's calls run together.
 * The answer quotes the three totals and the request's tag: a correct body proves all three calls ran.
 *
 *   node bench/lookups.js          (npm run bench:lookups): builds, packs and installs the package itself
 *   node bench/lookups.js --no-build --concurrency 1 --requests 10 --warmup 2     a quick try
 *
 * Options: --concurrency LIST (default 1,10), --requests LIST|N (default 30 per level), --warmup N (default 5),
 * --rounds N (default 3), --no-build, --keep (keep n8n's user folder). Reuses bench/webhook.js's machinery:
 * the model server (started with `lookups`), the load client and the per-segment measurement. Prints per
 * workflow model calls per request, p50/p95 latency and prompt tokens per request (o200k_base, counted by the
 * model server), then the issue's targets — printed, never enforced. Exits 1 only when a workflow did not work.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureN8n } = require('../scripts/n8n-cache');
const {
	createN8nInstance,
	installPackage,
	packPackage,
	removeOnExit,
	runCommand,
} = require('../scripts/n8n-local');
const { LOAD_ENV, loadAverage, startModelServer } = require('./webhook');
const { measureRounds, smokeAndWarmUp } = require('./webhook/measure');
const { mainProcessOf, processesOf } = require('./webhook/process-cpu');
const { report } = require('./webhook/lookups-report');
const scenario = require('./webhook/scenario');
const lookups = require('./webhook/lookups-scenario');
const { WORKFLOWS, buildWorkflow } = require('./webhook/lookups-workflows');

const CREDENTIALS = {
	agentCore: {
		id: 'benchAgentCoreKey',
		name: 'Bench: scripted model (Agent Core)',
		type: 'agentCoreOpenAiApi',
	},
	aiAgent: { id: 'benchOpenAiKey', name: 'Bench: scripted model (AI Agent)', type: 'openAiApi' },
};

function parseArguments(argv) {
	const options = {
		concurrency: [1, 10],
		requests: undefined,
		warmup: 5,
		rounds: 3,
		build: true,
		keep: false,
	};
	const numbers = (text, flag) => {
		const list = String(text ?? '')
			.split(',')
			.map(Number);
		if (list.some((value) => !Number.isInteger(value) || value < 1))
			throw new Error(`${flag} takes whole numbers ≥ 1, e.g. 1,10; got ${text}`);
		return list;
	};
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		const value = () => argv[++index];
		if (flag === '--concurrency') options.concurrency = numbers(value(), flag);
		else if (flag === '--requests') options.requests = numbers(value(), flag);
		else if (flag === '--warmup' || flag === '--rounds') {
			const name = flag.slice(2);
			options[name] = Number(value());
			if (!Number.isInteger(options[name]) || options[name] < (name === 'rounds' ? 1 : 0))
				throw new Error(`${flag} takes a whole number`);
		} else if (flag === '--no-build') options.build = false;
		else if (flag === '--keep') options.keep = true;
		else throw new Error(`unknown option ${flag} (see the comment at the top of bench/lookups.js)`);
	}
	const given = options.requests ?? [30];
	if (given.length !== 1 && given.length !== options.concurrency.length)
		throw new Error(
			`--requests needs one number or one per concurrency level (${options.concurrency.length})`,
		);
	options.requests = options.concurrency.map((_, index) => given[given.length === 1 ? 0 : index]);
	return options;
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
	const startLoad = loadAverage();
	const workflows = WORKFLOWS.map(buildWorkflow);
	const installation = await ensureN8n(2);
	const n8nNodeVersion = (await runCommand(installation.node, ['--version'])).trim();
	const n8nVersion = JSON.parse(
		fs.readFileSync(path.join(installation.folder, 'node_modules', 'n8n', 'package.json'), 'utf8'),
	).version;
	const runFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-bench-lookups-'));
	const cancelRemoval = removeOnExit(runFolder);
	let models;
	let n8n;
	try {
		process.stderr.write(
			`[bench] ${options.build ? 'npm run build + ' : ''}npm pack, install as a community package…\n`,
		);
		const tarball = await packPackage(runFolder, { build: options.build });
		const nodesFolder = await installPackage(tarball, path.join(runFolder, 'nodes'));
		models = await startModelServer(['lookups']);
		n8n = await createN8nInstance({
			installation,
			nodesFolder,
			credentials: [
				{
					...CREDENTIALS.agentCore,
					data: { apiKey: 'bench-key', url: models.urls.protocolBaseUrl },
				},
				{ ...CREDENTIALS.aiAgent, data: { apiKey: 'bench-key', url: models.urls.nativeBaseUrl } },
			],
			workflows: workflows.map((workflow) => workflow.json),
			env: { ...LOAD_ENV },
			keepUserFolder: options.keep,
		});
		process.stderr.write('[bench] starting n8n…\n');
		await n8n.start({ webhookPaths: workflows.map((workflow) => workflow.path) });
		let pidList = processesOf(n8n.userFolder);
		const n8nProcesses = {
			all: () => (pidList = [...new Set([...pidList, ...processesOf(n8n.userFolder)])]),
			main: mainProcessOf(pidList),
		};
		console.log(
			`n8n ${n8nVersion} on Node ${n8nNodeVersion.replace(/^v/, '')}; load client on Node ${process.versions.node}`,
		);
		console.log(`${os.cpus().length} cores, load average (1/5/15 min) at launch ${startLoad}`);
		console.log(
			`model: scripted OpenAI-compatible server in its own process, ${scenario.MODEL_DELAY_MS} ms per call; ` +
				`task: ${lookups.CATALOGUES.length} Calculator calls per request (${lookups.CATALOGUES.map((c) => c.expression).join(' | ')})`,
		);

		const working = await smokeAndWarmUp(n8n, workflows, {
			warmup: options.warmup,
			promptFor: lookups.promptFor,
		});

		const results = await measureRounds(n8n, workflows, working, options, {
			models,
			n8nProcesses,
			promptFor: lookups.promptFor,
		});
		report(workflows, results, options);
		console.log(`load average (1/5/15 min) at end ${loadAverage()}`);
		if (options.keep) console.log(`n8n user folder kept: ${n8n.userFolder} (log: ${n8n.logPath})`);
	} finally {
		await n8n?.stop({ keepUserFolder: options.keep });
		await models?.stop();
		fs.rmSync(runFolder, { recursive: true, force: true });
		cancelRemoval();
	}
}

main().catch((error) => {
	console.error(error?.stack ?? error);
	process.exitCode = 1;
});
