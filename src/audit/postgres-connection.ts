// PostgreSQL connections for the audit: settings, one checked-out client at a time, and the credential's ping.
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { InputError } from '../core/input-error';
import { checkKnownOptions, type OptionNames } from '../core/known-options';
import { describeError } from './pending-writes';

/** Where the audit is kept: a `postgres://` URL, or the fields of n8n's credential. */
export type PostgresTarget =
	| string
	| {
			host: string;
			port?: number;
			database: string;
			user: string;
			password?: string;
			ssl?: boolean | { rejectUnauthorized: boolean };
	  };

type TargetFields = Exclude<PostgresTarget, string>;
const TARGET_FIELDS = {
	host: true,
	port: true,
	database: true,
	user: true,
	password: true,
	ssl: true,
} satisfies OptionNames<TargetFields>;
const SSL_FIELDS = {
	rejectUnauthorized: true,
} satisfies OptionNames<Exclude<TargetFields['ssl'], boolean | undefined>>;

/**
 * Refuses a target object with a field it does not know (`pasword`, `dbname`, pg's own `connectionString`, an
 * `ssl.rejectUnauthorised`), before anything connects: poolConfig hands the object to pg as it is, and pg
 * ignores a misspelt field (or takes a pool setting). A URL is pg's to read.
 */
export function checkPostgresTarget(where: string, target: unknown): void {
	if (typeof target === 'string') return;
	if (typeof target !== 'object' || target === null || Array.isArray(target)) {
		const given = target === null ? 'null' : Array.isArray(target) ? 'an array' : typeof target;
		const fields = Object.keys(TARGET_FIELDS).join(', ');
		throw new InputError(
			'postgres',
			`${where} takes a postgres:// URL or an object of ${fields}, not ${given}`,
			`Give ${where} the audit database's URL or its connection fields.`,
		);
	}
	checkKnownOptions(where, target, TARGET_FIELDS);
	const { ssl } = target as { ssl?: unknown };
	if (typeof ssl === 'object' && ssl !== null) checkKnownOptions(`${where} ssl`, ssl, SSL_FIELDS);
}

/** The target's connection settings, with timeouts that keep a dead database from holding anything up. */
export function poolConfig(target: PostgresTarget): PoolConfig {
	const base: PoolConfig = {
		max: 4,
		connectionTimeoutMillis: 5_000,
		idleTimeoutMillis: 10_000,
		allowExitOnIdle: true,
		application_name: 'agent-core-audit',
		// A connection that goes silent (no reset, no answer) fails the write after this instead of holding it.
		query_timeout: 30_000,
		keepAlive: true,
	};
	return typeof target === 'string'
		? { ...base, connectionString: target }
		: { ...base, ...target };
}

/**
 * Work on one checked-out client. pg emits 'error' on a checked-out client whose connection dies (a
 * server restart, a fail-over, a network cut): with no listener that event crashes the process, so one
 * listens while the client is out; the query in flight rejects with the same error. Only an error the
 * server itself answered (it has a SQLSTATE) leaves the connection usable: then the transaction is rolled
 * back and the client goes back to the pool; after any other (lost, timed out) the pool discards it.
 * `active` holds the clients checked out meanwhile (see destroyConnection).
 */
export async function withClient<T>(
	pool: Pool,
	work: (client: PoolClient) => Promise<T>,
	active?: Set<PoolClient>,
): Promise<T> {
	const client = await pool.connect();
	active?.add(client);
	let broken: Error | undefined;
	const onError = (error: Error) => {
		broken ??= error;
	};
	client.on('error', onError);
	try {
		return await work(client);
	} catch (error) {
		const answeredByServer = /^[0-9A-Z]{5}$/.test(
			String((error as { code?: unknown } | null)?.code ?? ''),
		);
		if (!broken && answeredByServer) await client.query('ROLLBACK').catch(() => undefined);
		else broken ??= error as Error;
		throw error;
	} finally {
		active?.delete(client);
		client.removeListener('error', onError);
		client.release(broken);
	}
}

/**
 * Cuts a checked-out client's socket: a query stuck on a silent connection then fails at once (pg's
 * `connection.stream` is the socket; the client's error listener above is still in place).
 */
export function destroyConnection(client: PoolClient): void {
	(
		client as unknown as { connection?: { stream?: { destroy(): void } } }
	).connection?.stream?.destroy();
}

/** Connects, runs SELECT 1 and closes: the credential test, failing within the connection timeout. */
export async function pingAuditDatabase(
	target: PostgresTarget,
): Promise<{ ok: true; latencyMs: number } | { ok: false; message: string }> {
	checkPostgresTarget('pingAuditDatabase', target);
	const { Client } = await import('pg');
	const client = new Client(poolConfig(target));
	// A connection that dies mid-test emits 'error' as well as failing the query: never a crash.
	client.on('error', () => undefined);
	const started = performance.now();
	try {
		await client.connect();
		await client.query('SELECT 1');
		return { ok: true, latencyMs: Math.round(performance.now() - started) };
	} catch (error) {
		return { ok: false, message: `cannot reach the audit database: ${describeError(error)}` };
	} finally {
		await client.end().catch(() => undefined);
	}
}
