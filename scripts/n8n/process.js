// @ts-check
/**
 * Child processes of the scripts: the one command runner, process groups, and the hooks that stop what is
 * still running when this process exits or is interrupted.
 *
 * Every n8n runs in its own process group (so that stopping it also stops its task runner), which also
 * means a Ctrl-C in the terminal does not reach it: the hooks here stop what is still running, and remove
 * registered temporary folders, when this process exits or is interrupted.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */
/** @typedef {{ code: number | null; signal: NodeJS.Signals | null }} ExitResult */
/**
 * A long-running process in its own group whose output goes to a log file (an n8n main or worker).
 * @typedef {object} Spawned
 * @property {ChildProcess} child
 * @property {string} logPath
 * @property {ExitResult | undefined} result  set once the process exited
 * @property {Promise<ExitResult>} exited
 * @property {() => string} logSince  what this process wrote to the log so far
 * @property {() => string} logTail  the end of the log, for error messages
 */

/** @type {Set<ChildProcess>} */
const running = new Set();
/** @type {Set<string>} */
const temporaryFolders = new Set();
/** @type {NodeJS.Signals[]} */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let handleSignals = true;
let hooksInstalled = false;

/**
 * When set, every process group started here is also recorded as a file `<folder>/<pid>`, so that another
 * copy of this module in the same process can stop it: jest gives each test file its own module registry
 * and a `process` object whose signal listeners never fire, so the suites' n8n processes are stopped on
 * Ctrl-C by the copy loaded in jest's global set-up, which sets this variable.
 */
const PID_FOLDER_VARIABLE = 'AGENT_CORE_N8N_PID_FOLDER';

/** The process groups other copies of this module recorded in the PID folder. */
function recordedGroups() {
	const folder = process.env[PID_FOLDER_VARIABLE];
	if (!folder) return [];
	try {
		return fs
			.readdirSync(folder)
			.map(Number)
			.filter((pid) => pid > 0);
	} catch {
		return [];
	}
}

/** Kills every group still running and removes the registered temporary folders (the exit hook). */
function cleanUpNow() {
	for (const child of running) killGroup(child.pid, 'SIGKILL');
	running.clear();
	for (const pid of recordedGroups()) killGroup(pid, 'SIGKILL');
	for (const folder of temporaryFolders) fs.rmSync(folder, { recursive: true, force: true });
	temporaryFolders.clear();
}

/** @param {NodeJS.Signals} signal */
function onSignal(signal) {
	cleanUpNow();
	for (const name of SIGNALS) process.removeListener(name, onSignal);
	// Die of the signal as if nobody had listened (unless another listener takes it from here).
	process.kill(process.pid, signal);
}

/** Installs the exit hook (and the signal hooks unless turned off) once, on first need. */
function installHooks() {
	if (hooksInstalled) return;
	hooksInstalled = true;
	process.once('exit', cleanUpNow);
	if (handleSignals) for (const name of SIGNALS) process.on(name, onSignal);
}

/**
 * Registers a process group for the exit hooks until its leader's output closes (in the PID folder until
 * the leader exits).
 * @param {ChildProcess} child
 */
function track(child) {
	running.add(child);
	child.once('close', () => running.delete(child));
	installHooks();
	const folder = process.env[PID_FOLDER_VARIABLE];
	if (!folder || !child.pid) return;
	const record = path.join(folder, String(child.pid));
	fs.mkdirSync(folder, { recursive: true });
	fs.writeFileSync(record, '');
	child.once('exit', () => fs.rmSync(record, { force: true }));
}

/**
 * Removes `folder` when this process exits or is interrupted; the returned function cancels that.
 * @param {string} folder
 * @returns {() => void}
 */
function removeOnExit(folder) {
	temporaryFolders.add(folder);
	installHooks();
	return () => temporaryFolders.delete(folder);
}

/**
 * `npm run dev` handles Ctrl-C itself (a graceful stop); call with false before starting anything to leave
 * SIGINT/SIGTERM/SIGHUP alone. The 'exit' hook stays.
 * @param {boolean} enabled
 */
function cleanUpOnSignals(enabled) {
	handleSignals = enabled;
	if (hooksInstalled && !enabled)
		for (const name of SIGNALS) process.removeListener(name, onSignal);
}

/**
 * Sends `signal` to the process group led by `pid`, if it still exists.
 * @param {number | undefined} pid
 * @param {NodeJS.Signals} signal
 */
function killGroup(pid, signal) {
	if (!pid) return;
	try {
		process.kill(-pid, signal);
	} catch {
		// Already gone.
	}
}

/**
 * The one way the scripts run a command to completion: collects its output (and echoes it to stderr with
 * `echo`), resolves with the output, rejects with its tail on failure or after `timeoutMs`. `detached`
 * runs it in its own process group, stopped by the exit hooks (an n8n CLI command and its task runner).
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; detached?: boolean; echo?: boolean }} [options]
 * @returns {Promise<string>}
 */
function runCommand(
	command,
	args,
	{ cwd, env, timeoutMs = 10 * 60 * 1000, detached = false, echo = false } = {},
) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached });
		if (detached) track(child);
		let output = '';
		/** @param {Buffer} chunk */
		const collect = (chunk) => {
			output = (output + chunk.toString()).slice(-20000);
			if (echo) process.stderr.write(chunk);
		};
		child.stdout.on('data', collect);
		child.stderr.on('data', collect);
		const timer = setTimeout(() => {
			output += `\n[killed after ${timeoutMs} ms]`;
			if (detached) killGroup(child.pid, 'SIGKILL');
			else child.kill('SIGKILL');
		}, timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			running.delete(child);
			reject(error);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			if (code === 0) resolve(output);
			else
				reject(
					new Error(
						`${path.basename(command)} ${args.join(' ')} failed (${signal ?? `exit ${code}`}) in ${cwd ?? process.cwd()}:\n${output.slice(-6000)}`,
					),
				);
		});
	});
}

/**
 * A port nobody listens on right now, on 127.0.0.1.
 * @returns {Promise<number>}
 */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
			server.close(() => resolve(port));
		});
	});
}

/**
 * Resolves true when something accepts connections on 127.0.0.1:port.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function portInUse(port) {
	return new Promise((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port });
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/**
 * Polls `condition` every 500 ms; fails when the process exits first or `timeoutMs` passes (then kills it).
 * @param {Spawned} spawned
 * @param {number} timeoutMs
 * @param {string} what  completes "n8n did not …"
 * @param {() => Promise<boolean>} condition
 */
async function waitUntil(spawned, timeoutMs, what, condition) {
	const started = Date.now();
	for (;;) {
		if (spawned.result) {
			const { code, signal } = spawned.result;
			throw new Error(
				`n8n exited before it could ${what} (${signal ?? `exit ${code}`}); log ${spawned.logPath}:\n${spawned.logTail()}`,
			);
		}
		if (Date.now() - started > timeoutMs) {
			killGroup(spawned.child.pid, 'SIGKILL');
			throw new Error(
				`n8n did not ${what} within ${timeoutMs / 1000} s; log ${spawned.logPath}:\n${spawned.logTail()}`,
			);
		}
		if (await condition()) return;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/**
 * SIGTERM to the process group, SIGKILL after `graceMs`, then SIGKILL for what outlives n8n (its task runner).
 * @param {Spawned} spawned
 * @param {number} graceMs
 */
async function stopGroup(spawned, graceMs) {
	const { child } = spawned;
	if (!spawned.result && child.exitCode === null && child.signalCode === null) {
		killGroup(child.pid, 'SIGTERM');
		const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), graceMs);
		await spawned.exited;
		clearTimeout(timer);
	}
	killGroup(child.pid, 'SIGKILL');
}

module.exports = {
	PID_FOLDER_VARIABLE,
	track,
	removeOnExit,
	cleanUpOnSignals,
	runCommand,
	freePort,
	portInUse,
	waitUntil,
	stopGroup,
};
