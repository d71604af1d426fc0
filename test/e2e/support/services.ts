import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { runCommand } from '../../../scripts/n8n-local';
import {
	deleteKeysByPrefix,
	getTestRedis,
	openTestClient,
	type TestRedis,
} from '../../support/redis';

/**
 * The services the end-to-end suites need besides n8n: Redis (conversation history, and queue mode's job
 * queue) and PostgreSQL (queue mode's n8n database). Everything one run writes carries a run tag,
 * `agent_core_e2e_<pid>_<random>`: Redis keys start with it and queue mode's database is named by it.
 * It is removed when the suite ends; what a killed run left behind is removed by the next run, which
 * recognises it by the tag's process id no longer being alive.
 */

const TAG_PREFIX = 'agent_core_e2e_';
const TAG = /^agent_core_e2e_(\d+)_[0-9a-f]+/;

/** A fresh run tag: a valid PostgreSQL database name and Redis key prefix. */
export function newRunTag(): string {
	return `${TAG_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
}

function leftBehind(name: string): boolean {
	const pid = Number(TAG.exec(name)?.[1] ?? 0);
	if (!pid || pid === process.pid) return false;
	try {
		process.kill(pid, 0);
		return false;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'ESRCH';
	}
}

/** The Redis of this run, with a client for arranging and reading test data directly. */
export interface E2eRedis {
	url: string;
	host: string;
	port: number;
	db: number;
	password?: string;
	client: Redis;
	/** Removes every key under `prefix` (SCAN + UNLINK); resolves to how many. */
	deleteKeys(prefix: string): Promise<number>;
	/** Closes the client and stops a redis-server this run started. */
	close(): Promise<void>;
}

/**
 * REDIS_URL, else the Redis on 127.0.0.1:6379, else a throwaway `redis-server` from PATH (test/support/redis);
 * without any of them it fails with one line saying how to get one. Removes keys of dead earlier runs.
 */
export async function openE2eRedis(): Promise<E2eRedis> {
	let server: TestRedis;
	try {
		server = await getTestRedis();
	} catch (error) {
		throw new Error(`The end-to-end suites need Redis: ${(error as Error).message}`);
	}
	const url = new URL(server.url);
	const problem = await pingProblem(server.url);
	if (problem) {
		await server.stop();
		throw new Error(
			`The end-to-end suites need Redis, but ${server.url} did not answer (${problem}): start one (Debian: apt-get install -y redis-server), or set REDIS_URL`,
		);
	}
	const client = openTestClient(server.url);
	await sweepRedis(client);
	return {
		url: server.url,
		host: url.hostname,
		port: Number(url.port || 6379),
		db: Number(url.pathname.slice(1) || 0),
		...(url.password ? { password: decodeURIComponent(url.password) } : {}),
		client,
		deleteKeys: (prefix) => deleteKeysByPrefix(client, prefix),
		close: async () => {
			await client.quit().catch(() => client.disconnect());
			await server.stop();
		},
	};
}

/** Why one PING to `url` failed, within a few seconds and without retrying; undefined when it answered. */
async function pingProblem(url: string): Promise<string | undefined> {
	const client = new Redis(url, {
		lazyConnect: true,
		enableOfflineQueue: false,
		maxRetriesPerRequest: 0,
		retryStrategy: () => null,
		connectTimeout: 3000,
		commandTimeout: 3000,
	});
	// ioredis rejects with "Connection is closed."; the 'error' event carries the cause (ECONNREFUSED …).
	let cause: string | undefined;
	client.on('error', (error: Error) => (cause ??= error.message));
	try {
		await client.connect();
		await client.ping();
		return undefined;
	} catch (error) {
		return cause ?? (error as Error).message;
	} finally {
		client.disconnect();
	}
}

async function sweepRedis(client: Redis): Promise<void> {
	const stale = new Set<string>();
	let cursor = '0';
	do {
		const [next, keys] = await client.scan(cursor, 'MATCH', `${TAG_PREFIX}*`, 'COUNT', 1000);
		cursor = next;
		for (const key of keys) if (leftBehind(key)) stale.add(key);
	} while (cursor !== '0');
	if (stale.size) await client.unlink(...stale);
}

/** How the suites reach PostgreSQL: PGHOST/PGPORT/PGUSER/PGPASSWORD, else postgres@127.0.0.1:5432. */
export interface PostgresServer {
	host: string;
	port: number;
	user: string;
	password: string;
}

export function postgresServer(): PostgresServer {
	return {
		host: process.env.PGHOST || '127.0.0.1',
		port: Number(process.env.PGPORT || 5432),
		user: process.env.PGUSER || 'postgres',
		password: process.env.PGPASSWORD ?? '',
	};
}

const POSTGRES_HELP =
	'Debian: apt-get install -y postgresql postgresql-client, start it (pg_ctlcluster <version> main start) and let user postgres in ' +
	'on 127.0.0.1 (trust in pg_hba.conf, or a password in PGPASSWORD); or point PGHOST/PGPORT/PGUSER/PGPASSWORD at another server';

/** Runs one SQL statement with the `psql` client; resolves to its unaligned output. */
async function psql(server: PostgresServer, sql: string): Promise<string> {
	const env = { ...process.env, PGPASSWORD: server.password, PGCONNECT_TIMEOUT: '5' };
	const args = [
		'-h',
		server.host,
		'-p',
		String(server.port),
		'-U',
		server.user,
		'-d',
		'postgres',
		'-X',
		'-A',
		'-t',
		'-q',
		'-v',
		'ON_ERROR_STOP=1',
		'-w',
		'-c',
		sql,
	];
	return runCommand('psql', args, { env, timeoutMs: 60000 });
}

/**
 * Checks that PostgreSQL answers (failing with one line saying how to get it) and drops the databases of
 * dead earlier runs.
 */
export async function checkPostgres(server: PostgresServer): Promise<void> {
	try {
		await psql(server, 'SELECT 1');
	} catch (error) {
		const reason =
			(error as NodeJS.ErrnoException).code === 'ENOENT'
				? 'the psql client is not installed'
				: psqlReason((error as Error).message);
		throw new Error(
			`Queue mode needs PostgreSQL as ${server.user}@${server.host}:${server.port} (${reason}). ${POSTGRES_HELP}.`,
		);
	}
	const names = (
		await psql(server, `SELECT datname FROM pg_database WHERE datname LIKE '${TAG_PREFIX}%'`)
	)
		.split('\n')
		.filter(Boolean);
	for (const name of names.filter(leftBehind)) await dropDatabase(server, name);
}

export async function createDatabase(server: PostgresServer, name: string): Promise<void> {
	await psql(server, `CREATE DATABASE "${name}"`);
}

/** Drops the database, closing connections still open to it (PostgreSQL 13 or newer). */
export async function dropDatabase(server: PostgresServer, name: string): Promise<void> {
	await psql(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/** psql's own complaint ("psql: error: connection to server … failed: Connection refused"), else the last line. */
function psqlReason(text: string): string {
	const lines = text
		.split('\n')
		.map((line) => line.trim())
		.filter((line) => line && !line.startsWith('[killed'));
	const complaint = lines.find((line) => line.startsWith('psql:'));
	return (complaint ?? lines[lines.length - 1] ?? text).replace(/^psql:\s*(error:\s*)?/, '');
}
