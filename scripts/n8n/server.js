// @ts-check
/**
 * One n8n server process (`n8n start` or `n8n worker`): its environment, its process group, its log file,
 * how it answers HTTP, and the encryption key it keeps in its user folder.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { track } = require('./process');

/** @typedef {import('../n8n-cache').N8nInstallation} N8nInstallation */
/** @typedef {import('./process').Spawned} Spawned */
/** @typedef {import('./process').ExitResult} ExitResult */

const INHERITED_PREFIXES =
	/^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|GENERIC_TIMEZONE$|NODE_ENV$|NODE_OPTIONS$|NODE_PATH$|JEST_|npm_)/;

/**
 * The environment of one n8n process: this process's environment without anything that configures n8n or
 * marks a test run (jest sets NODE_ENV=test, which n8n reads as "inside n8n's own unit tests"), plus a
 * private user folder, loopback ports and no calls home.
 * @param {N8nInstallation} installation
 * @param {{ userFolder: string; port: number; brokerPort: number; extra?: Record<string, string> }} options
 * @returns {NodeJS.ProcessEnv}
 */
function n8nEnvironment(installation, { userFolder, port, brokerPort, extra = {} }) {
	/** @type {NodeJS.ProcessEnv} */
	const env = {};
	for (const [name, value] of Object.entries(process.env))
		if (!INHERITED_PREFIXES.test(name)) env[name] = value;
	return {
		...env,
		PATH: `${installation.pathPrefix}${path.delimiter}${process.env.PATH ?? ''}`,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		// The vetted community node list (api.n8n.io/api/community-nodes), fetched when the editor opens the node
		// creator: offline, each failure logged "Failed to fetch community node types" with an ENOTFOUND trace.
		// Installed community packages, this one included, load all the same.
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_SECURE_COOKIE: 'false',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		DB_SQLITE_POOL_SIZE: '2',
		N8N_LOG_LEVEL: 'info',
		// 2.x refreshes a list of MCP servers from api.n8n.io at start: nothing to fetch on a loopback-only machine.
		...(installation.line === 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		...installation.env,
		...extra,
	};
}

/**
 * Spawns one n8n command (`start`, `worker`) in its own process group, its output appended to `logPath`.
 * @param {N8nInstallation} installation
 * @param {string[]} args
 * @param {{ cwd: string; env: NodeJS.ProcessEnv; logPath: string }} options
 * @returns {Spawned}
 */
function spawnN8n(installation, args, { cwd, env, logPath }) {
	const logStart = fs.existsSync(logPath) ? fs.statSync(logPath).size : 0;
	const log = fs.openSync(logPath, 'a');
	const child = spawn(installation.node, [installation.bin, ...args], {
		cwd,
		env,
		stdio: ['ignore', log, log],
		detached: true,
	});
	fs.closeSync(log);
	track(child);
	/** @type {Spawned} */
	const spawned = {
		child,
		logPath,
		result: undefined,
		exited: new Promise((resolve) =>
			child.once('exit', (code, signal) => resolve({ code, signal })),
		),
		logSince: () => readLogSince(logPath, logStart),
		logTail: () => readLogTail(logPath),
	};
	spawned.exited.then((result) => {
		spawned.result = result;
	});
	return spawned;
}

/**
 * The status of one request to 127.0.0.1:port, or 0 when nothing answered within 2 s.
 * @param {number} port
 * @param {string} method
 * @param {string} urlPath
 * @param {Record<string, string>} [headers]
 * @returns {Promise<number>}
 */
function httpStatus(port, method, urlPath, headers = {}) {
	return new Promise((resolve) => {
		const request = http.request(
			{ host: '127.0.0.1', port, method, path: urlPath, headers, timeout: 2000 },
			(response) => {
				response.resume();
				resolve(response.statusCode ?? 0);
			},
		);
		request.once('timeout', () => request.destroy());
		request.once('error', () => resolve(0));
		request.end();
	});
}

/**
 * What was appended to a log file after `offset` bytes; '' when there is no log.
 * @param {string} logPath
 * @param {number} offset
 */
function readLogSince(logPath, offset) {
	try {
		const descriptor = fs.openSync(logPath, 'r');
		try {
			const size = fs.fstatSync(descriptor).size;
			const buffer = Buffer.alloc(Math.max(0, size - offset));
			fs.readSync(descriptor, buffer, 0, buffer.length, offset);
			return buffer.toString('utf8');
		} finally {
			fs.closeSync(descriptor);
		}
	} catch {
		return '';
	}
}

/**
 * The last `characters` of a log file, for error messages.
 * @param {string} logPath
 * @param {number} [characters]
 */
function readLogTail(logPath, characters = 6000) {
	try {
		return fs.readFileSync(logPath, 'utf8').slice(-characters);
	} catch {
		return '(no log)';
	}
}

/**
 * True when the log says n8n found a port taken (someone else bound it between freePort() and n8n's start).
 * @param {string} logPath
 */
function portCollided(logPath) {
	return /EADDRINUSE|port \d+ is already in use/i.test(readLogTail(logPath, 20000));
}

/**
 * The encryption key n8n generated in a user folder (`.n8n/config`), which its workers must share.
 * @param {string} userFolder
 * @returns {string}
 */
function readEncryptionKey(userFolder) {
	const configPath = path.join(userFolder, '.n8n', 'config');
	try {
		const { encryptionKey } = JSON.parse(fs.readFileSync(configPath, 'utf8'));
		if (encryptionKey) return encryptionKey;
	} catch {
		// Reported below.
	}
	throw new Error(
		`no encryption key in ${configPath}: set N8N_ENCRYPTION_KEY in options.env, or import something first`,
	);
}

module.exports = {
	n8nEnvironment,
	spawnN8n,
	httpStatus,
	readLogSince,
	readLogTail,
	portCollided,
	readEncryptionKey,
};
