// @ts-check
/**
 * One n8n instance set up without the editor: a user folder with this package installed, credentials and
 * workflows imported and active, then `n8n start` (and, in queue mode, `n8n worker`s) until stopped.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { copyNodesFolder } = require('./package');
const { freePort, portInUse, runCommand, stopGroup, waitUntil } = require('./process');
const { httpStatus, n8nEnvironment, portCollided, readLogTail, spawnN8n } = require('./server');
const { startN8nWorker } = require('./worker');
const { activateWorkflows, withIds } = require('./workflow');

/** @typedef {import('../n8n-cache').N8nInstallation} N8nInstallation */
/** @typedef {import('./process').Spawned} Spawned */
/** @typedef {import('./process').ExitResult} ExitResult */
/** @typedef {import('./workflow').CredentialImport} CredentialImport */
/** @typedef {import('./workflow').WorkflowJson} WorkflowJson */
/**
 * @typedef {object} N8nInstanceOptions
 * @property {N8nInstallation} installation  from scripts/n8n-cache.js ensureN8n()
 * @property {string} nodesFolder  from installPackage()
 * @property {CredentialImport[]} [credentials]  n8n credential exports with plain `data`
 * @property {WorkflowJson[]} [workflows]  each gets an id if it has none; all are activated (2.x: published),
 *   except that 1.x leaves sub-workflows (only an Execute Workflow Trigger) inactive
 * @property {string} [userFolder]  defaults to a new temporary folder, removed by stop() unless `keepUserFolder`
 * @property {number} [port]  defaults to a free port, chosen at start
 * @property {Record<string, string>} [env]  extra environment for every n8n process of this instance (CLI, main, workers)
 * @property {boolean} [keepUserFolder]
 */
/** @typedef {import('./worker').N8nWorker} N8nWorker */
/** @typedef {import('./worker').RunningWorker} RunningWorker */
/**
 * @typedef {object} N8nInstance
 * @property {N8nInstallation} installation
 * @property {string} userFolder
 * @property {number} port
 * @property {number} brokerPort
 * @property {number | undefined} pid  the started `n8n start` process's id
 * @property {string} baseUrl  http://127.0.0.1:PORT
 * @property {(path: string) => string} webhookUrl
 * @property {WorkflowJson[]} workflows  the imported workflows, each with its id
 * @property {Record<string, number>} timings  milliseconds per set-up step: import:credentials, import:workflow, activate, start, `start <worker>`, stop
 * @property {string} logPath
 * @property {(characters?: number) => string} logTail
 * @property {(options?: { webhookPaths?: string[]; timeoutMs?: number }) => Promise<void>} start
 *   starts `n8n start` and resolves once n8n listens (ports chosen now) and every given production webhook path is registered
 * @property {(options?: { name?: string; concurrency?: number; timeoutMs?: number }) => Promise<N8nWorker>} startWorker
 *   queue mode: starts one `n8n worker` after `start()`; resolves once its /healthz/readiness answers 200
 * @property {N8nWorker[]} workers  the workers started so far
 * @property {(options?: { graceMs?: number; keepUserFolder?: boolean }) => Promise<void>} stop
 *   stops the process groups of n8n and of every worker, and removes the user folder (unless kept); idempotent
 * @property {() => Promise<boolean>} portsInUse  true while anything still accepts connections on the instance's ports
 * @property {() => Promise<ExitResult>} exited  resolves once the started n8n process exits
 */

/**
 * Prepares one n8n: a fresh user folder with the package installed, credentials and workflows imported
 * and activated (n8n stopped meanwhile, as its CLI wants). Nothing listens until `start()`.
 * @param {N8nInstanceOptions} options
 * @returns {Promise<N8nInstance>}
 */
async function createN8nInstance(options) {
	const { installation } = options;
	const userFolder =
		options.userFolder ??
		fs.mkdtempSync(path.join(os.tmpdir(), `agent-core-n8n-${installation.line}-`));
	const logPath = path.join(userFolder, 'n8n.log');
	/** @type {Record<string, number>} */
	const timings = {};
	// The CLI commands never listen; the ports are chosen right before `n8n start`, so that nobody else
	// has had time to take them.
	const cliEnvironment = n8nEnvironment(installation, {
		userFolder,
		port: 5678,
		brokerPort: 5679,
		extra: options.env,
	});
	/** @param {string[]} args */
	const n8nCli = (args) =>
		runCommand(installation.node, [installation.bin, ...args], {
			cwd: userFolder,
			env: cliEnvironment,
			detached: true,
			timeoutMs: 5 * 60 * 1000,
		});
	/** @type {(name: string, work: () => Promise<unknown>) => Promise<void>} */
	const timed = async (name, work) => {
		const started = Date.now();
		try {
			await work();
		} finally {
			timings[name] = Date.now() - started;
		}
	};

	fs.mkdirSync(userFolder, { recursive: true });
	copyNodesFolder(options.nodesFolder, userFolder);

	const workflows = withIds(options.workflows ?? []);
	if (options.credentials?.length) {
		const file = path.join(userFolder, 'credentials.json');
		fs.writeFileSync(file, JSON.stringify(options.credentials, null, 2));
		await timed('import:credentials', () => n8nCli(['import:credentials', `--input=${file}`]));
	}
	if (workflows.length) {
		const file = path.join(userFolder, 'workflows.json');
		fs.writeFileSync(file, JSON.stringify(workflows, null, 2));
		await timed('import:workflow', () => n8nCli(['import:workflow', `--input=${file}`]));
		await timed('activate', () =>
			activateWorkflows(
				n8nCli,
				installation.line,
				workflows,
				options.env?.DB_TYPE === 'postgresdb' ? 3 : 1,
			),
		);
	}

	let port = options.port ?? 0;
	let brokerPort = 0;
	/** @type {Spawned | undefined} */
	let main;
	/** @type {Promise<void> | undefined} */
	let stopping;
	/** @type {RunningWorker[]} */
	const workers = [];

	/**
	 * Starts `n8n start` and resolves once n8n said it listens on its port and every given production
	 * webhook is registered. When the port was taken meanwhile (n8n exits with EADDRINUSE), it retries
	 * once with new ports, unless the port was given.
	 * @type {N8nInstance['start']}
	 */
	async function start({ webhookPaths = [], timeoutMs = 300000 } = {}) {
		const started = Date.now();
		for (let attempt = 1; ; attempt++) {
			try {
				await startOnce(webhookPaths, timeoutMs);
				break;
			} catch (error) {
				if (!portCollided(logPath) || options.port || attempt > 1) throw error;
				fs.appendFileSync(
					logPath,
					'\n[agent-core] port taken meanwhile; starting again on new ports\n',
				);
			}
		}
		timings.start = Date.now() - started;
	}

	/**
	 * @param {string[]} webhookPaths
	 * @param {number} timeoutMs
	 */
	async function startOnce(webhookPaths, timeoutMs) {
		if (stopping) throw new Error('this n8n instance was stopped');
		port = options.port ?? (await freePort());
		brokerPort = await freePort();
		const env = n8nEnvironment(installation, { userFolder, port, brokerPort, extra: options.env });
		const spawned = spawnN8n(installation, ['start'], { cwd: userFolder, env, logPath });
		main = spawned;
		const listening = `ready on 127.0.0.1, port ${port}`;
		// Only our n8n's own announcement proves that what answers on the port is this process. n8n listens
		// before it activates workflows, and announces the editor once activation is through (commands/start.ts:
		// activeWorkflowManager.init(), then "Editor is now accessible via"); a webhook probed before that throws
		// "The requested webhook … is not registered" uncaught in n8n, which prints its stack into the log.
		const activated = 'Editor is now accessible via';
		await waitUntil(
			spawned,
			timeoutMs,
			`serve ${webhookPaths.join(', ') || '/healthz'}`,
			async () => {
				const log = spawned.logSince();
				return (
					log.includes(listening) &&
					log.includes(activated) &&
					(await registeredInDatabase(webhookPaths)) !== false &&
					(await ready(webhookPaths))
				);
			},
		);
	}

	/**
	 * n8n 2.x announces the editor before its workflow publication service (on by default) has activated the
	 * workflows, so there the announcement proves nothing; its database does: a production webhook is
	 * registered once its row is in webhook_entity. Read with node:sqlite of 2.x's own Node 24, in a child.
	 * Undefined where this cannot tell: 1.x (activated before the announcement; its Node 20 has no
	 * node:sqlite) and PostgreSQL (queue mode, whose main's log nobody follows).
	 * @param {string[]} paths
	 * @returns {Promise<boolean | undefined>}
	 */
	async function registeredInDatabase(paths) {
		if (installation.line !== 2 || options.env?.DB_TYPE === 'postgresdb' || paths.length === 0)
			return undefined;
		const database = path.join(userFolder, '.n8n', 'database.sqlite');
		if (!fs.existsSync(database)) return false;
		const query = "SELECT DISTINCT webhookPath FROM webhook_entity WHERE method = 'POST'";
		const script = `const { DatabaseSync } = require('node:sqlite'); const rows = new DatabaseSync(process.argv[1], { readOnly: true }).prepare(${JSON.stringify(query)}).all(); process.stdout.write(JSON.stringify(rows.map((row) => row.webhookPath)));`;
		try {
			const registered = new Set(
				JSON.parse(
					await runCommand(installation.node, ['--no-warnings', '-e', script, database], {
						timeoutMs: 20000,
					}),
				),
			);
			return paths.every((webhookPath) => registered.has(webhookPath));
		} catch {
			// The table may not exist yet while n8n migrates a new database.
			return false;
		}
	}

	/**
	 * /healthz answers before production webhooks are registered, so each webhook is probed itself with a
	 * CORS preflight (OPTIONS with Origin and Access-Control-Request-Method): n8n answers 404 while the path
	 * is unregistered and 204 once it is, without running the workflow.
	 * @param {string[]} paths
	 */
	async function ready(paths) {
		if ((await httpStatus(port, 'GET', '/healthz')) !== 200) return false;
		for (const webhookPath of paths) {
			const status = await httpStatus(port, 'OPTIONS', `/webhook/${webhookPath}`, {
				origin: `http://127.0.0.1:${port}`,
				'access-control-request-method': 'POST',
			});
			if (status !== 204) return false;
		}
		return true;
	}

	/**
	 * Queue mode: one `n8n worker` beside the main (see worker.js).
	 * @type {N8nInstance['startWorker']}
	 */
	async function startWorker({
		name = `worker-${workers.length + 1}`,
		concurrency = 10,
		timeoutMs = 300000,
	} = {}) {
		if (!main)
			throw new Error(
				'start the main n8n before its workers: they take its address as WEBHOOK_URL',
			);
		const started = Date.now();
		const owner = {
			installation,
			userFolder,
			nodesFolder: options.nodesFolder,
			port,
			env: options.env,
			stopped: () => stopping !== undefined,
		};
		const worker = await startN8nWorker(owner, workers, { name, concurrency, timeoutMs });
		timings[`start ${name}`] = Date.now() - started;
		return worker;
	}

	/**
	 * SIGTERM to the process groups of the main and every worker, SIGKILL after `graceMs`; then removes the
	 * user folder (the workers' folders are inside it). Idempotent.
	 * @type {N8nInstance['stop']}
	 */
	function stop({ graceMs = 15000, keepUserFolder = options.keepUserFolder } = {}) {
		stopping ??= (async () => {
			const started = Date.now();
			const groups = [main, ...workers.map((worker) => worker.spawned)].filter(
				(spawned) => spawned !== undefined,
			);
			await Promise.all(groups.map((spawned) => stopGroup(spawned, graceMs)));
			timings.stop = Date.now() - started;
			if (!keepUserFolder) fs.rmSync(userFolder, { recursive: true, force: true });
		})();
		return stopping;
	}

	/** @type {N8nInstance['portsInUse']} */
	async function portsInUse() {
		const ports = [
			port,
			brokerPort,
			...workers.flatMap((worker) => [worker.healthPort, worker.brokerPort]),
		].filter((candidate) => candidate > 0);
		for (const candidate of ports) if (await portInUse(candidate)) return true;
		return false;
	}

	return {
		installation,
		userFolder,
		get port() {
			return port;
		},
		get brokerPort() {
			return brokerPort;
		},
		get pid() {
			return main?.child.pid;
		},
		get baseUrl() {
			return `http://127.0.0.1:${port}`;
		},
		webhookUrl: (webhookPath) => `http://127.0.0.1:${port}/webhook/${webhookPath}`,
		workflows,
		timings,
		logPath,
		logTail: (characters = 6000) => readLogTail(logPath, characters),
		start,
		startWorker,
		workers,
		stop,
		portsInUse,
		exited: () => main?.exited ?? Promise.reject(new Error('n8n was not started')),
	};
}

module.exports = { createN8nInstance };
