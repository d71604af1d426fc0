#!/usr/bin/env node
'use strict';
/**
 * What installing Agent Core costs every n8n process at start (issue #20): a real n8n 2.x in queue mode
 * (main + one worker, PostgreSQL and Redis on this machine) started with an empty nodes folder and with
 * the packed package installed, alternately, in one run. Per process: the time from spawn until it is
 * ready (main: /healthz; worker: /healthz/readiness) and its resident memory (VmRSS) once ready. Beside it,
 * the same cost measured inside one Node process: requiring the package's nodes and credentials after
 * n8n-workflow (as n8n does), which is what the start-up numbers are made of, without n8n's noise.
 *
 *   node bench/n8n-startup.js [--rounds N] [--no-build]      (npm run bench:startup)
 *
 * Targets (printed, never enforced): at most 50 ms and 5 MB added per process.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { ensureN8n } = require('../scripts/n8n-cache');
const {
	createN8nInstance,
	installPackage,
	packPackage,
	REPO_FOLDER,
} = require('../scripts/n8n-local');

const args = process.argv.slice(2);
const ROUNDS =
	Number(args[args.indexOf('--rounds') + 1]) > 0 && args.includes('--rounds')
		? Number(args[args.indexOf('--rounds') + 1])
		: 3;
const BUILD = !args.includes('--no-build');
const PG = {
	host: process.env.PGHOST || '127.0.0.1',
	port: Number(process.env.PGPORT || 5432),
	user: process.env.PGUSER || 'postgres',
	password: process.env.PGPASSWORD ?? '',
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rssMb = (pid) =>
	Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function admin(sql) {
	const client = new Client({ ...PG, database: 'postgres' });
	await client.connect();
	try {
		await client.query(sql);
	} finally {
		await client.end();
	}
}

/** One n8n (main + worker) on a fresh database: its processes' ready times and memory. */
async function startOnce(installation, nodesFolder, tag) {
	const database = `agent_core_bench_${process.pid}_${tag}`;
	await admin(`CREATE DATABASE ${database}`);
	const env = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: '6379',
		QUEUE_BULL_PREFIX: `agent_core_bench_${tag}`,
		N8N_REDIS_KEY_PREFIX: `agent_core_bench_${tag}_n8n`,
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: PG.host,
		DB_POSTGRESDB_PORT: String(PG.port),
		DB_POSTGRESDB_DATABASE: database,
		DB_POSTGRESDB_USER: PG.user,
		DB_POSTGRESDB_PASSWORD: PG.password,
		N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
	};
	const n8n = await createN8nInstance({ installation, nodesFolder, env });
	try {
		await n8n.start();
		const main = { ms: n8n.timings.start, mb: rssMb(n8n.pid) };
		const worker = await n8n.startWorker({ name: 'worker-1', concurrency: 5 });
		// The harness copies the nodes folder into the worker's own folder first; n8n never does that.
		return {
			main,
			worker: { ms: n8n.timings['start worker-1'] - worker.copyMs, mb: rssMb(worker.pid) },
		};
	} finally {
		await n8n.stop();
		await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
	}
}

/** Requiring the package's nodes and credentials in a fresh Node process that already loaded n8n-workflow. */
function loadCost(packageFolder) {
	const script = `
    require(require.resolve('n8n-workflow', { paths: [${JSON.stringify(REPO_FOLDER)}] }));
    global.gc(); const before = process.memoryUsage().rss; const started = process.hrtime.bigint();
    const pkg = require(${JSON.stringify(packageFolder)} + '/package.json');
    for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) require(${JSON.stringify(packageFolder)} + '/' + file);
    const ms = Number(process.hrtime.bigint() - started) / 1e6; global.gc();
    console.log(JSON.stringify({ ms, mb: (process.memoryUsage().rss - before) / 1048576 }));`;
	// n8n hands its n8n-workflow to community packages through NODE_PATH; here the repository's stands in.
	const env = { ...process.env, NODE_PATH: path.join(REPO_FOLDER, 'node_modules') };
	return JSON.parse(
		execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', env }),
	);
}

async function main() {
	const installation = await ensureN8n(2);
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-startup-'));
	try {
		const tarball = await packPackage(work, { build: BUILD });
		const withPackage = await installPackage(tarball, path.join(work, 'with'));
		const without = path.join(work, 'without');
		fs.mkdirSync(path.join(without, 'node_modules'), { recursive: true });
		fs.writeFileSync(
			path.join(without, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }),
		);

		const loads = Array.from({ length: 7 }, () =>
			loadCost(path.join(withPackage, 'node_modules', 'n8n-nodes-agent-core')),
		);
		const runs = { without: [], with: [] };
		for (let round = 0; round < ROUNDS; round++) {
			// Alternating order, so that a machine getting busier or quieter weighs on both alike.
			for (const variant of round % 2 === 0 ? ['without', 'with'] : ['with', 'without']) {
				const result = await startOnce(
					installation,
					variant === 'with' ? withPackage : without,
					`${variant}_${round}`,
				);
				runs[variant].push(result);
				console.log(
					`round ${round + 1} ${variant.padEnd(7)} main ${result.main.ms} ms ${result.main.mb.toFixed(1)} MB · worker ${result.worker.ms} ms ${result.worker.mb.toFixed(1)} MB`,
				);
			}
		}
		const pick = (variant, process, field) =>
			median(runs[variant].map((run) => run[process][field]));
		console.log(
			`\nn8n ${installation.version} queue mode, median of ${ROUNDS} starts each (same run, alternating):`,
		);
		for (const process of ['main', 'worker']) {
			const ms = [pick('without', process, 'ms'), pick('with', process, 'ms')];
			const mb = [pick('without', process, 'mb'), pick('with', process, 'mb')];
			console.log(
				`  ${process.padEnd(6)} ready in ${ms[0]} ms without, ${ms[1]} ms with the package (${ms[1] - ms[0] >= 0 ? '+' : ''}${ms[1] - ms[0]} ms); RSS ${mb[0].toFixed(1)} → ${mb[1].toFixed(1)} MB (${(mb[1] - mb[0]).toFixed(1)} MB)`,
			);
		}
		const loadMs = median(loads.map((load) => load.ms));
		const loadMb = median(loads.map((load) => load.mb));
		console.log(
			`  loading the package's nodes and credentials in one process (median of ${loads.length}): ${loadMs.toFixed(1)} ms, ${loadMb.toFixed(1)} MB`,
		);
		console.log(
			`  target: ≤ 50 ms and ≤ 5 MB added per process — load ${loadMs <= 50 ? 'meets' : 'misses'} the time and ${loadMb <= 5 ? 'meets' : 'misses'} the memory target`,
		);
		console.log(
			'  (a whole n8n start varies by more than the package adds; the in-process load is the precise figure)',
		);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
