// @ts-check
/**
 * Queue mode (the instance's env with EXECUTIONS_MODE=queue, the QUEUE_BULL_* Redis and a shared
 * database): `n8n worker` processes beside an instance's main process.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { copyNodesFolder } = require('./package');
const { freePort, waitUntil } = require('./process');
const {
	httpStatus,
	n8nEnvironment,
	portCollided,
	readEncryptionKey,
	readLogSince,
	readLogTail,
	spawnN8n,
} = require('./server');

/** @typedef {import('../n8n-cache').N8nInstallation} N8nInstallation */
/** @typedef {import('./process').Spawned} Spawned */
/** @typedef {import('./process').ExitResult} ExitResult */
/**
 * One `n8n worker` of a queue-mode instance (see `N8nInstance.startWorker`).
 * @typedef {object} N8nWorker
 * @property {string} name
 * @property {string} userFolder  `<instance user folder>/workers/<name>`: its own settings, nodes folder and log
 * @property {string} logPath
 * @property {number} healthPort  QUEUE_HEALTH_CHECK_PORT: /healthz and /healthz/readiness on 127.0.0.1
 * @property {number} brokerPort
 * @property {number | undefined} pid
 * @property {number} copyMs  time spent copying the nodes folder into the worker's folder, before it was spawned
 * @property {(characters?: number) => string} logTail
 * @property {() => string} log  the whole log of this worker
 * @property {() => Promise<ExitResult>} exited
 * @property {() => Promise<ExitResult>} kill  SIGKILL to its process group (the worker and its task runner), as an OOM
 *   kill or a lost machine ends it: no graceful shutdown, its Bull job lock left to expire; resolves once it exited
 */
/** @typedef {N8nWorker & { spawned?: Spawned }} RunningWorker  a worker with its process, for stopping it */
/**
 * What a worker takes from its instance.
 * @typedef {object} WorkerOwner
 * @property {N8nInstallation} installation
 * @property {string} userFolder  the main's user folder: its encryption key, and the parent of the workers' folders
 * @property {string} nodesFolder
 * @property {number} port  the main's port (WEBHOOK_URL)
 * @property {Record<string, string> | undefined} env
 * @property {() => boolean} stopped  true once the instance's stop() ran
 */

/**
 * Starts one `n8n worker` in its own user folder under `<userFolder>/workers/` with its own copy of the
 * nodes folder, the main's encryption key, and its own loopback ports for the health server
 * (QUEUE_HEALTH_CHECK_PORT) and the task broker. The worker joins `workers` at once, so that the
 * instance's stop() also stops one still starting. Resolves once the worker announced itself and its
 * /healthz/readiness answers 200 (database and Redis connected); retries once with new ports when a port
 * was taken meanwhile.
 * @param {WorkerOwner} owner
 * @param {RunningWorker[]} workers
 * @param {{ name: string; concurrency: number; timeoutMs: number }} options
 * @returns {Promise<N8nWorker>}
 */
async function startN8nWorker(owner, workers, { name, concurrency, timeoutMs }) {
	const folder = path.join(owner.userFolder, 'workers', name);
	fs.mkdirSync(folder, { recursive: true });
	const copyStarted = Date.now();
	copyNodesFolder(owner.nodesFolder, folder);
	const copyMs = Date.now() - copyStarted;
	const logPath = path.join(folder, 'n8n.log');
	const encryptionKey = owner.env?.N8N_ENCRYPTION_KEY ?? readEncryptionKey(owner.userFolder);
	/** @type {RunningWorker} */
	const worker = {
		name,
		userFolder: folder,
		logPath,
		healthPort: 0,
		brokerPort: 0,
		copyMs,
		spawned: undefined,
		get pid() {
			return this.spawned?.child.pid;
		},
		logTail: (characters) => readLogTail(logPath, characters),
		log: () => readLogSince(logPath, 0),
		exited: () =>
			worker.spawned?.exited ?? Promise.reject(new Error(`worker ${name} was not started`)),
		kill: () => {
			const { spawned } = worker;
			if (!spawned) return Promise.reject(new Error(`worker ${name} was not started`));
			try {
				if (spawned.child.pid) process.kill(-spawned.child.pid, 'SIGKILL');
			} catch (error) {
				if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ESRCH') throw error; // ESRCH: gone already
			}
			return spawned.exited;
		},
	};
	workers.push(worker);
	for (let attempt = 1; ; attempt++) {
		worker.healthPort = await freePort();
		worker.brokerPort = await freePort();
		// A set-up that outlived its timeout must not start processes after stop() ran.
		if (owner.stopped()) throw new Error('this n8n instance was stopped');
		const env = n8nEnvironment(owner.installation, {
			userFolder: folder,
			port: owner.port,
			brokerPort: worker.brokerPort,
			extra: {
				...owner.env,
				N8N_ENCRYPTION_KEY: encryptionKey,
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(worker.healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			},
		});
		const spawned = spawnN8n(owner.installation, ['worker', `--concurrency=${concurrency}`], {
			cwd: folder,
			env,
			logPath,
		});
		worker.spawned = spawned;
		try {
			await waitUntil(
				spawned,
				timeoutMs,
				`start worker ${name}`,
				async () =>
					spawned.logSince().includes('n8n worker is now ready') &&
					(await httpStatus(worker.healthPort, 'GET', '/healthz/readiness')) === 200,
			);
			return worker;
		} catch (error) {
			if (!portCollided(logPath) || attempt > 1) throw error;
			fs.appendFileSync(
				logPath,
				'\n[agent-core] port taken meanwhile; starting again on new ports\n',
			);
		}
	}
}

module.exports = { startN8nWorker };
