import type { Pool, PoolConfig } from 'pg';
import { MIGRATION, RUNS_TABLE, STEPS_TABLE, recordFromRows, runInsert, stepsInsert } from './postgres-tables';
import type { AuditRecord } from './record';

/** Where the audit is kept: a `postgres://` URL, or the fields of n8n's credential. */
export type PostgresTarget =
  | string
  | { host: string; port?: number; database: string; user: string; password?: string; ssl?: boolean | { rejectUnauthorized: boolean } };

/** A write that could not be made now; it is tried again later (see PostgresAuditSink.write). */
export class AuditWriteError extends Error {
  override readonly name = 'AuditWriteError';
}

/** Pending writes kept per process for a later try; beyond this the oldest is given up (and said so). */
const MAX_PENDING = 1000;
/** Waits before the next try of pending writes: a database that is down for minutes is waited out. */
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000];
/** Old runs are deleted at most this often per process, after a write. */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** The target's connection settings, with timeouts that keep a dead database from holding anything up. */
function poolConfig(target: PostgresTarget): PoolConfig {
  const base: PoolConfig = { max: 4, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 10_000, allowExitOnIdle: true, application_name: 'agent-core-audit' };
  return typeof target === 'string' ? { ...base, connectionString: target } : { ...base, ...target };
}

/**
 * The audit table set in one PostgreSQL database (issue #19), one per target and process (see
 * auditSinkFor). The tables are created on first use. A write that fails is kept in this process and tried
 * again with growing pauses, and after each later write: pending writes live only in the process that ran
 * the run, so a process that ends before its retry loses them (each was reported as not stored).
 */
export class PostgresAuditSink {
  private pool?: Promise<Pool>;
  private migrated?: Promise<void>;
  private readonly pending: AuditRecord[] = [];
  private retryTimer?: NodeJS.Timeout;
  private retries = 0;
  private lastCleanup = 0;
  private closed = false;
  /** Runs given up because the pending list was full. */
  dropped = 0;

  constructor(private readonly target: PostgresTarget) {}

  /**
   * Stores one run. Rejects with AuditWriteError when it could not; the run is then pending and tried again
   * later. With `retentionDays`, runs older than that are deleted (at most hourly per process).
   */
  async write(record: AuditRecord, retentionDays?: number): Promise<void> {
    try {
      await this.store(record);
    } catch (error) {
      this.keepForRetry(record);
      throw new AuditWriteError(`the audit row of run ${record.run_id} was not stored (${describe(error)}); it is tried again later by this process`);
    }
    await this.flushPending();
    if (retentionDays !== undefined && retentionDays > 0) await this.cleanUp(retentionDays).catch(() => undefined);
  }

  /** Tries the pending writes now; resolves to how many are still pending. */
  async flushPending(): Promise<number> {
    while (this.pending.length > 0) {
      try {
        await this.store(this.pending[0]);
      } catch {
        this.scheduleRetry();
        return this.pending.length;
      }
      this.pending.shift();
      this.retries = 0;
    }
    return 0;
  }

  /** A stored run, or undefined when there is none with this id (or no audit table at all: reading creates nothing). */
  async read(runId: string): Promise<AuditRecord | undefined> {
    const pool = await this.connected();
    const run = await pool.query(`SELECT * FROM ${RUNS_TABLE} WHERE run_id = $1`, [runId]).catch((error: { code?: string }) => {
      // 42P01 undefined_table: nothing was ever audited in this database.
      if (error.code === '42P01') return { rowCount: 0, rows: [] };
      throw error;
    });
    if (run.rowCount === 0) return undefined;
    const steps = await pool.query(`SELECT * FROM ${STEPS_TABLE} WHERE run_id = $1 ORDER BY position`, [runId]);
    return recordFromRows(run.rows[0], steps.rows);
  }

  /** Closes the connections for good: pending writes are not tried again (see the class comment). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const pool = this.pool;
    this.pool = undefined;
    this.migrated = undefined;
    if (pool) await (await pool.catch(() => undefined))?.end();
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  private connected(): Promise<Pool> {
    if (this.closed) return Promise.reject(new Error('the audit sink was closed'));
    this.pool ??= import('pg').then(({ Pool }) => {
      const pool = new Pool(poolConfig(this.target));
      // An idle client whose server went away emits here; without a listener the process would crash.
      pool.on('error', () => undefined);
      return pool;
    });
    return this.pool;
  }

  /** The pool, with the tables in place. A failed migration is tried again on the next use. */
  private async ready(): Promise<Pool> {
    const pool = await this.connected();
    this.migrated ??= migrate(pool).catch((error: unknown) => {
      this.migrated = undefined;
      throw error;
    });
    await this.migrated;
    return pool;
  }

  /** One run's rows in one transaction: all of them or none. */
  private async store(record: AuditRecord): Promise<void> {
    const client = await (await this.ready()).connect();
    try {
      await client.query('BEGIN');
      const run = runInsert(record);
      const inserted = await client.query(run.text, run.values);
      const steps = stepsInsert(record);
      // A retry of a run that was stored after all (its answer was lost) adds nothing.
      if (inserted.rowCount === 1 && steps) await client.query(steps.text, steps.values);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private keepForRetry(record: AuditRecord): void {
    if (this.pending.length >= MAX_PENDING) {
      this.pending.shift();
      this.dropped++;
    }
    this.pending.push(record);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    const delay = RETRY_DELAYS_MS[Math.min(this.retries, RETRY_DELAYS_MS.length - 1)];
    this.retries++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flushPending();
    }, delay);
    // A retry never keeps a process alive on its own.
    this.retryTimer.unref();
  }

  private async cleanUp(retentionDays: number): Promise<void> {
    if (Date.now() - this.lastCleanup < RETENTION_INTERVAL_MS) return;
    this.lastCleanup = Date.now();
    const pool = await this.ready();
    await pool.query(`DELETE FROM ${RUNS_TABLE} WHERE created_at < now() - make_interval(days => $1)`, [retentionDays]);
  }
}

async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    for (const statement of MIGRATION) await client.query(statement);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // pg's AggregateError (every address refused) has an empty message; its code says what happened.
  return message || String((error as { code?: unknown } | null)?.code ?? 'connection failed');
}

/** Connects, runs SELECT 1 and closes: the credential test, failing within the connection timeout. */
export async function pingAuditDatabase(target: PostgresTarget): Promise<{ ok: true; latencyMs: number } | { ok: false; message: string }> {
  const { Client } = await import('pg');
  const client = new Client(poolConfig(target));
  const started = performance.now();
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, message: `cannot reach the audit database: ${describe(error)}` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

const sinks = new Map<string, PostgresAuditSink>();

/** The process's sink for this target: one pool per database, shared by every run that writes there. */
export function auditSinkFor(target: PostgresTarget): PostgresAuditSink {
  const key = JSON.stringify(target);
  let sink = sinks.get(key);
  if (!sink) {
    sink = new PostgresAuditSink(target);
    sinks.set(key, sink);
  }
  return sink;
}

/** Closes every sink of this process (tests, and a process that shuts down). */
export async function closeAuditSinks(): Promise<void> {
  const all = [...sinks.values()];
  sinks.clear();
  await Promise.all(all.map((sink) => sink.close()));
}
