// PostgreSQL connections for the audit: settings, one checked-out client at a time, and the credential's ping.
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { describeError } from './pending-writes';

/** Where the audit is kept: a `postgres://` URL, or the fields of n8n's credential. */
export type PostgresTarget =
  | string
  | { host: string; port?: number; database: string; user: string; password?: string; ssl?: boolean | { rejectUnauthorized: boolean } };

/** The target's connection settings, with timeouts that keep a dead database from holding anything up. */
export function poolConfig(target: PostgresTarget): PoolConfig {
  const base: PoolConfig = {
    max: 4, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 10_000, allowExitOnIdle: true, application_name: 'agent-core-audit',
    // A connection that goes silent (no reset, no answer) fails the write after this instead of holding it.
    query_timeout: 30_000, keepAlive: true,
  };
  return typeof target === 'string' ? { ...base, connectionString: target } : { ...base, ...target };
}

/**
 * Work on one checked-out client. pg emits 'error' on a checked-out client whose connection dies (a
 * server restart, a fail-over, a network cut): with no listener that event crashes the process, so one
 * listens while the client is out; the query in flight rejects with the same error. A client whose
 * connection failed is handed back with that error, so the pool discards it rather than reusing it.
 */
export async function withClient<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } catch (error) {
    if (!lost) await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

/** Connects, runs SELECT 1 and closes: the credential test, failing within the connection timeout. */
export async function pingAuditDatabase(target: PostgresTarget): Promise<{ ok: true; latencyMs: number } | { ok: false; message: string }> {
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
