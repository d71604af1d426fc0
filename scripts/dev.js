#!/usr/bin/env node
// @ts-check
/**
 * `npm run dev [-- --n8n 2] [-- --port 5678] [-- --fresh] [-- --watch]`: a local n8n with this package
 * installed as a community package and three examples imported and active: the two webhook examples and a
 * chat (Chat Trigger → Agent Core, no Redis) to open in the editor's chat panel or on its hosted chat page.
 *
 * - n8n comes from the cache of scripts/n8n-cache.js (installed on first use): line 1 (1.123.x on this
 *   machine's Node, the default) or line 2 (2.41.x on Node 24 from the cache).
 * - The package is built, packed and installed into the n8n user folder at every start. The user folder
 *   (${AGENT_CORE_CACHE_DIR:-~/.cache/n8n-nodes-agent-core}/dev/n8n-<version>) is kept between runs, so the
 *   owner account and your own workflows stay; the examples and the credential are re-imported each time.
 *   `--fresh` starts from an empty folder.
 * - `--watch`: after a change under src/, nodes/ or credentials/ (quiet for 300 ms), the package is built
 *   and packed again; when that works, n8n stops, the package is reinstalled into its nodes folder and n8n
 *   starts again on the same port with the same user folder (n8n loads community packages only at start).
 *   A failed build prints the compiler's errors and leaves the running n8n as it is.
 * - With OPENAI_API_KEY set, the credential uses it (and OPENAI_BASE_URL, default https://api.openai.com/v1).
 *   Without it, the bundled scripted demo model runs on 127.0.0.1 and the credential points at it.
 * - Ctrl-C stops n8n and the demo model.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { cacheDir, ensureN8n } = require('./n8n-cache');
const local = require('./n8n-local');
const { watchFolders } = require('./watch-folders');

/** @typedef {import('./n8n-local').N8nInstance} N8nInstance */
/** @typedef {{ line: 1 | 2; port: number; portGiven: boolean; fresh: boolean; watch: boolean; help: boolean }} DevOptions */

const CREDENTIAL_TYPE = 'agentCoreOpenAiApi';
/** The two webhook examples, and a chat that needs nothing but the model (no Redis). */
const EXAMPLE_FILES = [
	'agent-core-webhook.json',
	'agent-core-webhook-strict-limits.json',
	'agent-core-simple-chat.json',
];
/** Where the chat example's Chat Trigger answers (its hosted chat page, and what n8n's chat widget posts to). */
const CHAT_PATH = `${chatTriggerOf(local.readExampleWorkflows(['agent-core-simple-chat.json'])[0]).webhookId}/chat`;
const WEBHOOK_PATHS = ['agent-core', 'agent-core-strict', CHAT_PATH];
/** What `--watch` watches: the sources of everything the build puts into the package. */
const WATCHED_FOLDERS = ['src', 'nodes', 'credentials'].map((folder) =>
	path.join(local.REPO_FOLDER, folder),
);

/**
 * @param {string[]} argv
 * @returns {DevOptions}
 */
function parseArguments(argv) {
	const options = {
		line: 1,
		port: 5678,
		portGiven: false,
		fresh: false,
		watch: false,
		help: false,
	};
	for (let index = 0; index < argv.length; index++) {
		const [flag, inline] = argv[index].split('=');
		const value = () => inline ?? argv[++index];
		if (flag === '--n8n') options.line = Number(value());
		else if (flag === '--port') {
			options.port = Number(value());
			options.portGiven = true;
		} else if (flag === '--fresh') options.fresh = true;
		else if (flag === '--watch') options.watch = true;
		else if (flag === '--help' || flag === '-h') options.help = true;
		else
			throw new Error(
				`unknown argument ${argv[index]} (use --n8n 1|2, --port N, --fresh, --watch)`,
			);
	}
	const { line } = options;
	if (line !== 1 && line !== 2) throw new Error('--n8n must be 1 or 2');
	return { ...options, line };
}

/**
 * The Chat Trigger node of a workflow.
 * @param {import('./n8n-local').WorkflowJson} workflow
 */
function chatTriggerOf(workflow) {
	const trigger = workflow.nodes.find((node) => node.type.endsWith('.chatTrigger'));
	if (!trigger) throw new Error(`the workflow "${workflow.name}" has no Chat Trigger`);
	return trigger;
}

/** @param {string} [message] */
function say(message = '') {
	process.stdout.write(`${message}\n`);
}

/** @param {string} text */
function shellQuote(text) {
	return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Copies what n8n appends to its log onto this terminal, prefixed; returns the function that stops it.
 * @param {string} logPath
 */
function followLog(logPath) {
	let position = fs.existsSync(logPath) ? fs.statSync(logPath).size : 0;
	const timer = setInterval(() => {
		let size;
		try {
			size = fs.statSync(logPath).size;
		} catch {
			return;
		}
		if (size <= position) return;
		const buffer = Buffer.alloc(size - position);
		const descriptor = fs.openSync(logPath, 'r');
		fs.readSync(descriptor, buffer, 0, buffer.length, position);
		fs.closeSync(descriptor);
		position = size;
		const text = buffer.toString('utf8').replace(/\n$/, '');
		if (text)
			process.stdout.write(
				`${text
					.split('\n')
					.map((line) => `[n8n] ${line}`)
					.join('\n')}\n`,
			);
	}, 500);
	return () => clearInterval(timer);
}

/** @param {unknown} error */
function messageOf(error) {
	return error instanceof Error ? error.message : String(error);
}

async function main() {
	const options = parseArguments(process.argv.slice(2));
	if (options.help) {
		say(
			'npm run dev [-- --n8n 1|2] [-- --port N] [-- --fresh] [-- --watch]   (see the header of scripts/dev.js)',
		);
		return;
	}
	/** @type {Array<() => unknown>} */
	const cleanups = [];
	let stopping = false;
	/** @param {number} exitCode */
	const stopAll = async (exitCode) => {
		if (stopping) return;
		stopping = true;
		say('\nStopping…');
		for (const cleanup of cleanups.reverse()) {
			try {
				await cleanup();
			} catch (error) {
				process.stderr.write(`while stopping: ${messageOf(error)}\n`);
			}
		}
		process.exit(exitCode);
	};
	local.cleanUpOnSignals(false);
	process.on('SIGINT', () => stopAll(0));
	process.on('SIGTERM', () => stopAll(0));

	say(
		`n8n line ${options.line}: checking the cache in ${cacheDir()} (the first run installs n8n: several minutes)`,
	);
	const installation = await ensureN8n(options.line);
	say(
		`n8n ${installation.version} on ${installation.node}${installation.reused ? ' (from the cache)' : ''}`,
	);

	const userFolder = path.join(cacheDir(), 'dev', `n8n-${installation.version}`);
	const nodesFolder = path.join(userFolder, '.n8n', 'nodes');
	const packFolder = path.join(userFolder, 'pack');
	if (options.fresh) fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });

	say('Building and packing the package…');
	const tarball = await local.packPackage(packFolder);
	await local.installPackage(tarball, nodesFolder);
	say(
		`Installed ${path.basename(tarball)} into ${nodesFolder} (as Settings → Community Nodes would)`,
	);

	let modelDescription;
	let credentialData;
	let examplePrompt = 'Which of these numbers are even? {"numbers": [3, 8, 15, 42]}';
	if (process.env.OPENAI_API_KEY) {
		const url = process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1';
		credentialData = { apiKey: process.env.OPENAI_API_KEY, url };
		modelDescription = `OpenAI-compatible API at ${url} with OPENAI_API_KEY (model gpt-4o-mini in the examples)`;
	} else {
		const { startScriptedServer } = require(
			path.join(local.REPO_FOLDER, 'dist', 'src', 'demo', 'scripted-server.js'),
		);
		const { demoModel, DEMO_PROMPT } = require(
			path.join(local.REPO_FOLDER, 'dist', 'src', 'demo', 'demo-model.js'),
		);
		const demoServer = await startScriptedServer({ script: demoModel });
		cleanups.push(() => demoServer.close());
		credentialData = { apiKey: 'demo', url: demoServer.openaiBaseUrl };
		examplePrompt = DEMO_PROMPT;
		modelDescription =
			`NO OPENAI_API_KEY SET: the bundled scripted demo model on ${demoServer.openaiBaseUrl} stands in for a provider.\n` +
			'         It only answers the catalogue question below (one json_transform call, then an answer);\n' +
			'         set OPENAI_API_KEY (and OPENAI_BASE_URL for another compatible endpoint) to use a real model.';
	}
	const credential = {
		id: 'agentCoreDevCred',
		name: 'Agent Core (npm run dev)',
		type: CREDENTIAL_TYPE,
		data: credentialData,
	};
	// n8n's own OpenAI credential on the same model, so a connected OpenAI Chat Model sub-node (Agent Core version
	// 2's default Provider, Connected Chat Model) has a keyless route too (issue #41); the e2e harness imports the same shape.
	const openAiCredential = {
		id: 'agentCoreDevOpenAiCred',
		name: 'OpenAI (npm run dev)',
		type: 'openAiApi',
		data: { apiKey: credentialData.apiKey, url: credentialData.url },
	};
	const workflows = local.readExampleWorkflows(EXAMPLE_FILES).map((workflow, index) => ({
		...local.useCredential(workflow, CREDENTIAL_TYPE, credential),
		id: `agentCoreDevWf${index + 1}`,
	}));

	let port = options.port;
	if (await local.portInUse(port)) {
		if (options.portGiven) throw new Error(`port ${port} is in use`);
		port = await local.freePort();
		say(`Port ${options.port} is in use; using ${port}.`);
	}
	say('Importing the credential and the example workflows, activating them…');
	let n8n = await local.createN8nInstance({
		installation,
		nodesFolder,
		credentials: [credential, openAiCredential],
		workflows,
		userFolder,
		port,
		keepUserFolder: true,
	});
	/** The instances --watch stopped on purpose. @type {Set<N8nInstance>} */
	const replaced = new Set();
	/** Stops everything when the given n8n exits unasked (not when --watch restarts it). @param {N8nInstance} instance */
	const stopWhenExited = (instance) =>
		instance.exited().then(({ code, signal }) => {
			if (stopping || replaced.has(instance)) return;
			process.stderr.write(
				`n8n exited on its own (${signal ?? `exit ${code}`}); see ${instance.logPath}\n`,
			);
			stopAll(1);
		});
	say('Starting n8n…');
	// Cleanups run last-in first-out: n8n stops while its log is still followed (the log path stays the
	// same across --watch restarts).
	cleanups.push(followLog(n8n.logPath));
	cleanups.push(() => n8n.stop({ keepUserFolder: true }));
	await n8n.start({ webhookPaths: WEBHOOK_PATHS });
	stopWhenExited(n8n);

	/**
	 * --watch: build and pack; only when that worked, stop n8n, reinstall the package and start a new n8n
	 * on the same port and user folder (nothing to import: the database keeps workflows and credential).
	 * @param {string[]} changed
	 */
	const rebuildAndRestart = async (changed) => {
		say(
			`\n[watch] ${changed.length} change(s), e.g. ${path.relative(local.REPO_FOLDER, changed[0] ?? '')}: building and packing…`,
		);
		let newTarball;
		try {
			newTarball = await local.packPackage(packFolder);
		} catch (error) {
			process.stderr.write(
				`[watch] the build failed; n8n keeps running the previous build.\n${messageOf(error)}\n`,
			);
			return;
		}
		if (stopping) return;
		say('[watch] stopping n8n, reinstalling the package…');
		const previous = n8n;
		replaced.add(previous);
		await previous.stop({ keepUserFolder: true });
		try {
			await local.installPackage(newTarball, nodesFolder);
		} catch (error) {
			process.stderr.write(
				`[watch] reinstalling failed; n8n starts with what the nodes folder holds now.\n${messageOf(error)}\n`,
			);
		}
		if (stopping) return;
		n8n = await local.createN8nInstance({
			installation,
			nodesFolder,
			userFolder,
			port: previous.port,
			keepUserFolder: true,
		});
		await n8n.start({ webhookPaths: WEBHOOK_PATHS });
		stopWhenExited(n8n);
		say(`[watch] n8n restarted with the new build on ${n8n.baseUrl}/`);
	};
	if (options.watch) {
		cleanups.push(
			watchFolders(WATCHED_FOLDERS, {
				onChange: (changed) =>
					rebuildAndRestart(changed).catch((error) => {
						process.stderr.write(`[watch] restarting n8n failed: ${messageOf(error)}\n`);
						stopAll(1);
					}),
			}),
		);
	}

	const body = JSON.stringify({ prompt: examplePrompt });
	say('');
	say(
		`Ready: n8n ${installation.version} with n8n-nodes-agent-core (node type ${local.NODE_TYPE_PREFIX}agentCore).`,
	);
	say(
		`Editor:  ${n8n.baseUrl}/   (first visit: create the owner account; it is kept in ${userFolder})`,
	);
	say(`Model:   ${modelDescription}`);
	say(
		`         Credentials: "${credential.name}" (Provider: OpenAI) and "${openAiCredential.name}" for an OpenAI Chat Model sub-node (Provider: Connected Chat Model) both use it.`,
	);
	say(
		`Try:     curl -s -X POST ${n8n.webhookUrl('agent-core')} -H 'content-type: application/json' -d ${shellQuote(body)}`,
	);
	say(`Limits:  the same with max_steps 1: ${n8n.webhookUrl('agent-core-strict')}`);
	say(
		`Chat:    open the workflow "Agent Core chat (Chat Trigger, no Redis)" and click Open chat, or ${n8n.webhookUrl(CHAT_PATH)}`,
	);
	if (!process.env.OPENAI_API_KEY) {
		say(
			'         and paste this question (the demo model answers only it, and says what it remembers):',
		);
		say(`Ask:     ${examplePrompt}`);
	}
	say(`Log:     ${n8n.logPath}`);
	if (options.watch)
		say(
			`Watch:   changes under ${WATCHED_FOLDERS.map((folder) => path.relative(local.REPO_FOLDER, folder)).join(', ')} rebuild, reinstall and restart n8n`,
		);
	say('Ctrl-C stops n8n' + (process.env.OPENAI_API_KEY ? '.' : ' and the demo model.'));
	say('');
}

main().catch((error) => {
	process.stderr.write(`npm run dev failed: ${messageOf(error)}\n`);
	process.exit(1);
});
