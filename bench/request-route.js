#!/usr/bin/env node
'use strict';
/**
 * Which of the package's files one request crosses (issue #49): Agent Core v2 in n8n's engine (n8n-core's
 * WorkflowExecute, through the tests' own harness in test/support/n8n-engine.ts), an item in, a Simple-Memory-like
 * chat memory on the Memory input (loaded and saved), one call of a connected calculator tool, the final answer.
 *
 * One warm-up request runs first (it also leaves a turn in the memory, so the measured request loads a history),
 * then V8's precise coverage (node:inspector, callCount + detailed) is reset and ONE request is measured. A file
 * is crossed when at least one of its functions ran during that request; the code that runs when a module is
 * loaded is not counted (nothing of the package loads during the measured request after the warm-up: the
 * script says so if something does). Only the package's built files count (dist/src, dist/nodes); the scripted
 * model server runs in a child process, and the harness is test code, so neither is counted.
 *
 *   npx tsc -p tsconfig.build.json && node bench/request-route.js          (--json: the figures as JSON;
 *   --functions: also each file's functions that ran, with their call counts)
 */
const inspector = require('node:inspector/promises');
const path = require('node:path');
const { fork } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist') + path.sep;
const OWN = [path.join(DIST, 'src') + path.sep, path.join(DIST, 'nodes') + path.sep];
const isOwn = (file) => OWN.some((folder) => file.startsWith(folder));

/** Child process: the scripted OpenAI-compatible server. First call of a turn → one calculator action; then the answer. */
async function serveModel() {
	const { startScriptedServer } = require(path.join(DIST, 'src', 'demo', 'scripted-server.js'));
	const server = await startScriptedServer({
		script: (request) => {
			server.requests.length = 0;
			// After the calculator's observation (the message after the model's action) comes the answer.
			const previous = request.messages.at(-2);
			if (previous?.role !== 'assistant' || !previous.content.includes('"action"'))
				return JSON.stringify({ type: 'action', tool: 'calculator', args: { input: '2 + 3' } });
			return JSON.stringify({ type: 'final', answer: 'The total is 5.' });
		},
	});
	process.on('disconnect', () => void server.close());
	process.send({ baseUrl: server.openaiBaseUrl });
}

/** Lets the harness's TypeScript (test/support) load in plain node: transpiled on require, types dropped. */
function registerTestSupport() {
	const ts = require('typescript');
	const fs = require('node:fs');
	const support = path.join(ROOT, 'test', 'support') + path.sep;
	require.extensions['.ts'] = (module, file) => {
		if (!file.startsWith(support))
			throw new Error(`request-route only loads test/support's TypeScript, not ${file}`);
		const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
			compilerOptions: {
				module: ts.ModuleKind.CommonJS,
				target: ts.ScriptTarget.ES2022,
				esModuleInterop: true,
			},
			fileName: file,
		});
		module._compile(outputText, file);
	};
}

async function startModelServer() {
	const child = fork(__filename, ['--serve-model'], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const { baseUrl } = await new Promise((resolve, reject) => {
		child.once('message', resolve);
		child.once('exit', (code) => reject(new Error(`the model server ended (exit ${code})`)));
	});
	return { baseUrl, close: () => child.disconnect() };
}

/** Per file, whether a function (not the module's top level) ran, and whether the module's top level ran. */
function crossedFiles(coverage) {
	const crossed = new Map();
	for (const script of coverage.result) {
		const file = script.url.startsWith('file://')
			? require('node:url').fileURLToPath(script.url)
			: script.url;
		if (!isOwn(file)) continue;
		for (const fn of script.functions) {
			const { startOffset, count } = fn.ranges[0];
			if (count === 0) continue;
			const entry = crossed.get(file) ?? { calls: 0, loaded: false, functions: [] };
			if (startOffset === 0 && fn.functionName === '') entry.loaded = true;
			else {
				entry.calls += count;
				entry.functions.push(`${fn.functionName || '(anonymous)'}×${count}`);
			}
			crossed.set(file, entry);
		}
	}
	return crossed;
}

async function main() {
	const session = new inspector.Session();
	session.connect();
	await session.post('Profiler.enable');
	await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

	registerTestSupport();
	const { NodeConnectionTypes } = require('n8n-workflow');
	const { DynamicTool } = require('@langchain/core/tools');
	const { runWorkflow } = require('../test/support/n8n-engine.ts');
	const {
		createInputNode,
		createNode,
		connectInSequence,
		subNode,
	} = require('../test/support/test-nodes.ts');
	const { BufferWindowMemoryLike } = require('../test/support/chat-memory.ts');
	const { AgentCore } = require(path.join(DIST, 'nodes', 'AgentCore', 'AgentCore.node.js'));

	const model = await startModelServer();
	const memory = new BufferWindowMemoryLike();
	let toolCalls = 0;
	const calculator = new DynamicTool({
		name: 'calculator',
		description: 'Useful for getting the result of a math expression.',
		func: async (input) => {
			toolCalls++;
			return String(input === '2 + 3' ? 5 : NaN);
		},
	});
	// n8n builds each node type once, when it loads the package; a request only looks them up.
	const nodeTypes = {
		agentCore: new AgentCore(),
		memory: subNode('memory', NodeConnectionTypes.AiMemory, () => memory),
		calculator: subNode('calculator', NodeConnectionTypes.AiTool, () => calculator),
	};
	const into = (type) => ({ [type]: [[{ node: 'Agent Core', type, index: 0 }]] });
	const request = (chatInput) =>
		runWorkflow({
			nodes: [
				createInputNode([{ chatInput, sessionId: 'route' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
						inputMode: 'prompt',
						prompt: '={{ $json.chatInput }}',
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
				createNode({ name: 'Simple Memory', type: 'memory' }),
				createNode({ name: 'Calculator', type: 'calculator' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'Simple Memory': into(NodeConnectionTypes.AiMemory),
				Calculator: into(NodeConnectionTypes.AiTool),
			},
			nodeTypes,
			credentials: { agentCoreOpenAiApi: { apiKey: 'route-bench-key', url: model.baseUrl } },
		});
	const checked = (run, turn) => {
		const error = run.errorOf('Agent Core');
		if (error) throw error;
		const output = run.outputOf('Agent Core')[0].json;
		if (output.output !== 'The total is 5.' || toolCalls !== turn || memory.saves !== turn)
			throw new Error(
				`request ${turn} did not run as scripted: ${JSON.stringify(output).slice(0, 300)}`,
			);
	};

	try {
		checked(await request('What is 2 + 3?'), 1);
		await session.post('Profiler.takePreciseCoverage'); // resets the counters: what follows is the request
		checked(await request('And 2 + 3 again?'), 2);
		var coverage = await session.post('Profiler.takePreciseCoverage');
	} finally {
		model.close();
		await session.post('Profiler.stopPreciseCoverage');
		session.disconnect();
		require('node:fs').rmSync(process.env.N8N_USER_FOLDER, { recursive: true, force: true });
	}

	const loaded = Object.keys(require.cache).filter(isOwn);
	const crossed = crossedFiles(coverage);
	const ran = [...crossed]
		.filter(([, entry]) => entry.calls > 0)
		.map(([file]) => path.relative(DIST, file));
	const loadedLate = [...crossed]
		.filter(([, entry]) => entry.loaded)
		.map(([file]) => path.relative(DIST, file));
	if (process.argv.includes('--json')) {
		console.log(
			JSON.stringify({
				loaded: loaded.length,
				crossed: ran.sort(),
				loadedDuringRequest: loadedLate,
			}),
		);
		return;
	}
	console.log(
		'One request: Agent Core v2, memory loaded and saved, one calculator call, the final answer.',
	);
	console.log(`  files of the package loaded:               ${loaded.length}`);
	console.log(`  files with a function run by the request:  ${ran.length}`);
	if (loadedLate.length > 0)
		console.log(`  loaded during the measured request (!): ${loadedLate.join(', ')}`);
	const byFolder = new Map();
	for (const file of ran.sort()) {
		const folder = path.dirname(file);
		byFolder.set(folder, [...(byFolder.get(folder) ?? []), path.basename(file, '.js')]);
	}
	for (const [folder, files] of byFolder)
		console.log(`  ${folder}/ (${files.length}): ${files.join(', ')}`);
	if (process.argv.includes('--functions'))
		for (const file of ran)
			console.log(`${file}: ${crossed.get(path.join(DIST, file)).functions.join(' ')}`);
}

if (process.argv.includes('--serve-model')) serveModel();
else
	main().catch((error) => {
		console.error(error?.stack ?? error);
		process.exit(1);
	});
