#!/usr/bin/env node
'use strict';
/**
 * Agent Core against n8n's own AI Agent, side by side in one real n8n (2.41.1 on Node 24), through
 * production webhooks under load, with n8n's own floor (Webhook → Set → Respond) measured in the same run,
 * and that floor holding each execution for the model's 400 ms (Set + Wait 0.4 s): what no agent can beat.
 *
 *   node bench/webhook.js          (npm run bench:webhook): builds, packs and installs the package itself
 *   node bench/webhook.js --no-build --concurrency 1,10 --requests 10,50 --warmup 5     a quick try
 *
 * Options:
 *   --concurrency LIST     requests in flight, e.g. 1,10,100 (default)
 *   --requests LIST|N      requests per level, one per concurrency level or one for all (default 30,200,400)
 *   --warmup N             unmeasured requests per workflow first, 5 at a time (default 20)
 *   --rounds N             split each level's requests into up to N interleaved rounds, each workflow in
 *                          turn in rotating order (default 3; fewer when a round would hold < 2 × concurrency)
 *   --only LIST            a subset of trivial,setWait,setWaitTool,agentCore,agentCoreSubNode,aiAgent
 *   --no-build             pack dist/ as it is instead of running `npm run build` first
 *   --max-concurrent-calls N   set Agent Core's "Max Concurrent Model Calls" option (default: the node's own)
 *   --cpu-prof DIR         run n8n with --cpu-prof, profiles written to DIR when n8n stops
 *   --keep                 keep n8n's user folder (log, database) and print where it is
 *   --wait-for-load X      before starting, wait (up to 15 min) for the 1-minute load average to drop below X
 *
 * BENCH_WEBHOOK_DUMP=DIR writes the first model request of each agent and call to DIR, to read what each
 * agent sends. With --cpu-prof, `node bench/webhook/profile-summary.js DIR` shows where n8n's main thread
 * spent each phase's time.
 *
 * The model is a scripted OpenAI-compatible server in a child process that answers every call after 200 ms:
 * for Agent Core a Calculator action then a final answer, for the AI Agent a native Calculator call then a
 * text answer, so each agent run is two model calls (a 400 ms floor). See bench/webhook/scenario.js.
 * Every answer is checked (status 200 and the exact expected body), and the model server counts the calls
 * and the prompt each agent sent. Targets are printed, never enforced. Exits 0 unless a workflow did not
 * work at all (its smoke request failed or no measured request succeeded).
 */
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { nextMessage: waitForMessage } = require('./child-messages');
const { ensureN8n } = require('../scripts/n8n-cache');
const {
	createN8nInstance,
	installPackage,
	packPackage,
	removeOnExit,
	runCommand,
} = require('../scripts/n8n-local');
const { measureRounds, smokeAndWarmUp } = require('./webhook/measure');
const { mainProcessOf, processesOf } = require('./webhook/process-cpu');
const { report } = require('./webhook/report');
const scenario = require('./webhook/scenario');

const N8N_LINE = 2;
const DEFAULTS = { concurrency: [1, 10, 100], requests: [30, 200, 400], warmup: 20, rounds: 3 };
const LOAD_ENV = {
	EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
	EXECUTIONS_DATA_SAVE_ON_PROGRESS: 'false',
};
const CREDENTIALS = {
	agentCore: {
		id: 'benchAgentCoreKey',
		name: 'Bench: scripted model (Agent Core)',
		type: 'agentCoreOpenAiApi',
	},
	aiAgent: { id: 'benchOpenAiKey', name: 'Bench: scripted model (AI Agent)', type: 'openAiApi' },
	agentCoreSubNode: {
		id: 'benchOpenAiProtocolKey',
		name: 'Bench: scripted model (Agent Core sub-node)',
		type: 'openAiApi',
	},
};

const setNodeAnswer = (index, body) =>
	body?.ok === true && body.echo === scenario.promptFor(index)
		? undefined
		: "not the Set node's {ok, echo}";

/** What is wrong with an Agent Core answer, if anything: one Calculator call, then the expected final answer. */
function agentCoreAnswer(index, body) {
	const expected = scenario.answerFor(
		scenario.tagOf(scenario.promptFor(index)),
		scenario.EXPECTED_TOTAL,
	);
	if (body?.finish_reason !== 'final')
		return `finish_reason ${body?.finish_reason}: ${body?.stop_detail ?? ''}`;
	if (body.final_answer !== expected) return `final_answer ${JSON.stringify(body.final_answer)}`;
	const calls = Object.values(body.used_tools ?? {}).reduce((sum, usage) => sum + usage.count, 0);
	if (body.trace?.length !== 2 || calls !== 1) return 'not one Calculator call then a final answer';
	return undefined;
}

/**
 * The workflows, in the order of the table. `check` returns what is wrong with an answer, if anything.
 * "Set + Wait" is n8n's floor for any agent: the trivial workflow holding each execution for the model's
 * 400 ms, as both agents must; no agent node can beat it, so it shows what part of a gap to the trivial
 * workflow is the model's time and what part is the node's.
 */
const WORKFLOWS = [
	{
		key: 'trivial',
		name: 'trivial (Set)',
		file: 'trivial.json',
		path: 'bench-trivial',
		check: setNodeAnswer,
	},
	{
		key: 'setWait',
		name: 'Set + Wait 400 ms',
		file: 'set-wait.json',
		path: 'bench-wait',
		check: setNodeAnswer,
	},
	// Issue #29's floor: Set + Wait with the same Calculator sub-node connected. A Set node takes no tool, so n8n's
	// own Tool Executor (the node n8n uses to run a tool without an agent) takes the Calculator and runs the same
	// sum once, as each agent does: what n8n spends supplying and running the tool is in the floor too.
	{
		key: 'setWaitTool',
		name: 'Set + Wait 400 ms + Calculator',
		file: 'set-wait-calculator.json',
		path: 'bench-wait-calculator',
		check: setNodeAnswer,
	},
	{
		key: 'agentCore',
		name: 'Agent Core',
		file: 'agent-core.json',
		path: 'bench-agent-core',
		model: 'protocol',
		check: agentCoreAnswer,
	},
	{
		key: 'agentCoreSubNode',
		name: 'Agent Core + OpenAI Chat Model sub-node',
		file: 'agent-core-sub-node.json',
		path: 'bench-agent-core-sub-node',
		model: 'protocol',
		check: agentCoreAnswer,
	},
	{
		key: 'aiAgent',
		name: 'n8n AI Agent',
		file: 'ai-agent.json',
		path: 'bench-ai-agent',
		model: 'native',
		check: (index, body) => {
			const expected = scenario.answerFor(
				scenario.tagOf(scenario.promptFor(index)),
				scenario.EXPECTED_TOTAL,
			);
			return body?.output === expected
				? undefined
				: `output ${JSON.stringify(body?.output ?? body)}`;
		},
	},
];

function parseArguments(argv) {
	const options = {
		...DEFAULTS,
		only: WORKFLOWS.map((workflow) => workflow.key),
		build: true,
		keep: false,
	};
	const numbers = (text, flag) => {
		const list = String(text ?? '')
			.split(',')
			.map(Number);
		if (list.length === 0 || list.some((value) => !Number.isInteger(value) || value < 1))
			throw new Error(`${flag} takes whole numbers ≥ 1, e.g. 1,10,100; got ${text}`);
		return list;
	};
	let requestsGiven;
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		const value = () => argv[++index];
		if (flag === '--concurrency') options.concurrency = numbers(value(), flag);
		else if (flag === '--requests') requestsGiven = numbers(value(), flag);
		else if (flag === '--warmup' || flag === '--rounds') {
			const name = flag.slice(2);
			options[name] = Number(value());
			if (!Number.isInteger(options[name]) || options[name] < (name === 'rounds' ? 1 : 0))
				throw new Error(`${flag} takes a whole number`);
		} else if (flag === '--only') {
			options.only = String(value() ?? '').split(',');
			const unknown = options.only.filter(
				(key) => !WORKFLOWS.some((workflow) => workflow.key === key),
			);
			if (unknown.length)
				throw new Error(
					`--only takes ${WORKFLOWS.map((workflow) => workflow.key).join(',')}; got ${unknown.join(',')}`,
				);
		} else if (flag === '--no-build') options.build = false;
		else if (flag === '--keep') options.keep = true;
		else if (flag === '--max-concurrent-calls')
			[options.maxConcurrentCalls] = numbers(value(), flag);
		else if (flag === '--cpu-prof') options.cpuProfileFolder = path.resolve(String(value() ?? ''));
		else if (flag === '--wait-for-load') {
			options.waitForLoad = Number(value());
			if (!(options.waitForLoad > 0))
				throw new Error('--wait-for-load takes a load average, e.g. 1.5');
		} else
			throw new Error(`unknown option ${flag} (see the comment at the top of bench/webhook.js)`);
	}
	if (requestsGiven) {
		if (requestsGiven.length === 1)
			options.requests = options.concurrency.map(() => requestsGiven[0]);
		else if (requestsGiven.length === options.concurrency.length) options.requests = requestsGiven;
		else
			throw new Error(
				`--requests needs one number or one per concurrency level (${options.concurrency.length})`,
			);
	} else if (
		options.concurrency.length !== DEFAULTS.concurrency.length ||
		options.concurrency.some((level, index) => level !== DEFAULTS.concurrency[index])
	) {
		// Custom levels without counts: enough requests for each in-flight slot to be used a few times.
		options.requests = options.concurrency.map((level) => Math.max(30, level * 4));
	}
	return options;
}

/**
 * The model server in its own process: resolves with its URLs, its stats and a way to stop it. `args`:
 * ['lookups'] plays bench/lookups.js's three-lookup job instead of this benchmark's one-call job.
 */
function startModelServer(args = []) {
	const child = fork(path.join(__dirname, 'webhook', 'model-server.js'), args, {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	process.once('exit', () => child.kill('SIGKILL'));
	const nextMessage = (type) => waitForMessage(child, type, 'the model server');
	const ask = (type) => {
		const answer = nextMessage(type);
		child.send({ type });
		return answer;
	};
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		if (child.connected) child.send({ type: 'close' });
		const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
		await exited;
		clearTimeout(timer);
	};
	return nextMessage('ready').then(
		(ready) => ({ urls: ready, stats: () => ask('stats'), reset: () => ask('reset'), stop }),
		async (error) => {
			await stop();
			throw error;
		},
	);
}

function readWorkflows(options) {
	return WORKFLOWS.filter((workflow) => options.only.includes(workflow.key)).map((definition) => {
		const json = JSON.parse(
			fs.readFileSync(path.join(__dirname, 'webhook', definition.file), 'utf8'),
		);
		for (const node of json.nodes) {
			// The two agents get the same task text; the files hold it too, so they import as they are.
			if (node.type.endsWith('.agentCore')) {
				node.parameters.developerText = scenario.INSTRUCTIONS;
				if (options.maxConcurrentCalls)
					node.parameters.options = {
						...node.parameters.options,
						maxConcurrentCalls: options.maxConcurrentCalls,
					};
			}
			if (node.type === '@n8n/n8n-nodes-langchain.agent')
				node.parameters.options = {
					...node.parameters.options,
					systemMessage: scenario.INSTRUCTIONS,
				};
		}
		return { ...definition, json };
	});
}

/** Waits until the 1-minute load average is below `limit`, at most 15 minutes; says when it gave up. */
async function waitForLoad(limit) {
	const deadline = Date.now() + 15 * 60 * 1000;
	let said = false;
	while (os.loadavg()[0] >= limit) {
		if (Date.now() > deadline) {
			process.stderr.write(
				`[bench] the load average stayed at or above ${limit} for 15 min; measuring anyway\n`,
			);
			return;
		}
		if (!said)
			process.stderr.write(
				`[bench] waiting for the 1-minute load average (${os.loadavg()[0].toFixed(2)}) to drop below ${limit}…\n`,
			);
		said = true;
		await new Promise((resolve) => setTimeout(resolve, 10000));
	}
}

function loadAverage() {
	return os
		.loadavg()
		.map((value) => value.toFixed(2))
		.join(' / ');
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
	if (options.waitForLoad) await waitForLoad(options.waitForLoad);
	const startLoad = loadAverage();
	const workflows = readWorkflows(options);
	const installation = await ensureN8n(N8N_LINE);
	const n8nNodeVersion = (await runCommand(installation.node, ['--version'])).trim();
	const n8nVersion = JSON.parse(
		fs.readFileSync(path.join(installation.folder, 'node_modules', 'n8n', 'package.json'), 'utf8'),
	).version;

	const runFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-bench-webhook-'));
	const cancelRemoval = removeOnExit(runFolder);
	let models;
	let n8n;
	const stopAll = async () => {
		await n8n?.stop({ keepUserFolder: options.keep });
		await models?.stop();
	};
	try {
		process.stderr.write(
			`[bench] ${options.build ? 'npm run build + ' : ''}npm pack, install as a community package…\n`,
		);
		const tarball = await packPackage(runFolder, { build: options.build });
		const nodesFolder = await installPackage(tarball, path.join(runFolder, 'nodes'));

		models = await startModelServer();
		const credentials = [
			{ ...CREDENTIALS.agentCore, data: { apiKey: 'bench-key', url: models.urls.protocolBaseUrl } },
			{ ...CREDENTIALS.aiAgent, data: { apiKey: 'bench-key', url: models.urls.nativeBaseUrl } },
			{
				...CREDENTIALS.agentCoreSubNode,
				data: { apiKey: 'bench-key', url: models.urls.protocolBaseUrl },
			},
		];
		const env = { ...LOAD_ENV };
		if (options.cpuProfileFolder) {
			fs.mkdirSync(options.cpuProfileFolder, { recursive: true });
			env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${options.cpuProfileFolder}`;
		}
		const userFolder = options.keep
			? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-bench-webhook-n8n-'))
			: undefined;
		n8n = await createN8nInstance({
			installation,
			nodesFolder,
			credentials,
			workflows: workflows.map((workflow) => workflow.json),
			env,
			userFolder,
			keepUserFolder: options.keep,
		});
		process.stderr.write('[bench] starting n8n…\n');
		await n8n.start({ webhookPaths: workflows.map((workflow) => workflow.path) });
		// n8n's processes (main and task runner) by their user folder; the list is refreshed in case the runner restarts.
		let pidList = processesOf(n8n.userFolder);
		const n8nProcesses = {
			all: () => (pidList = [...new Set([...pidList, ...processesOf(n8n.userFolder)])]),
			main: mainProcessOf(pidList),
		};

		console.log(
			`n8n ${n8nVersion} on Node ${n8nNodeVersion.replace(/^v/, '')} (regular mode, N8N_CONCURRENCY_PRODUCTION_LIMIT unset: no cap on production executions); load client on Node ${process.versions.node}`,
		);
		console.log(
			`${os.cpus().length} cores, load average (1/5/15 min) at launch ${startLoad}; n8n env ${Object.entries(
				LOAD_ENV,
			)
				.map(([name, value]) => `${name}=${value}`)
				.join(' ')}`,
		);
		console.log(
			`model: scripted OpenAI-compatible server in its own process, ${scenario.MODEL_DELAY_MS} ms per call, ${scenario.MODEL_CALLS_PER_RUN} calls per agent run; ` +
				`Agent Core max concurrent model calls: ${options.maxConcurrentCalls ?? 'node default'}`,
		);

		const working = await smokeAndWarmUp(n8n, workflows, { warmup: options.warmup });
		console.log(`load average (1/5/15 min) before the measured phases ${loadAverage()}`);
		const results = await measureRounds(n8n, workflows, working, options, {
			models,
			n8nProcesses,
		});
		report(workflows, results, options);
		if (options.cpuProfileFolder) {
			const windows = Object.values(results)
				.flat()
				.filter(Boolean)
				.flatMap((phase) => phase.windows);
			fs.writeFileSync(
				path.join(options.cpuProfileFolder, 'phases.json'),
				`${JSON.stringify(windows, null, 2)}\n`,
			);
		}
		console.log('');
		console.log(`load average (1/5/15 min) at end ${loadAverage()}`);
		for (const workflow of working) {
			if (results[workflow.key].every((phase) => !phase || phase.ok === 0)) {
				console.log(`${workflow.name}: no measured request succeeded`);
				process.exitCode = 1;
			}
		}
		if (options.keep) console.log(`n8n user folder kept: ${n8n.userFolder} (log: ${n8n.logPath})`);
	} finally {
		await stopAll();
		if (options.cpuProfileFolder) console.log(`CPU profiles: ${options.cpuProfileFolder}`);
		fs.rmSync(runFolder, { recursive: true, force: true });
		cancelRemoval();
	}
}

module.exports = { startModelServer, LOAD_ENV, loadAverage };

if (require.main === module)
	main().catch((error) => {
		console.error(error?.stack ?? error);
		process.exitCode = 1;
	});
