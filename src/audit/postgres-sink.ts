// The PostgreSQL audit sink: one pool per database, writes that never crash or block, and reading a run back.
import type { Pool, PoolClient } from 'pg';
import {
	checkPostgresTarget,
	destroyConnection,
	poolConfig,
	withClient,
	type PostgresTarget,
} from './postgres-connection';
import {
	PendingWrites,
	MAX_PENDING,
	MAX_PENDING_BYTES,
	MAX_SET_ASIDE,
	describeError,
	refusedForContent,
} from './pending-writes';
import { readRun, storedRunIds } from './postgres-read';
import { MIGRATION, RUNS_TABLE, TABLES_READY } from './postgres-schema';
import { prepareWrite, type PreparedWrite } from './postgres-tables';
import type { AuditRecord } from './record';
import { AuditWriteError, type AuditWriteReport } from './write-outcome';

export { pingAuditDatabase, type PostgresTarget } from './postgres-connection';
export { AuditWriteError, type AuditWriteReport } from './write-outcome';

/** Waits before the next try of pending writes: a database that is down for minutes is waited out. */
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000];
/** Old runs are deleted at most this often per process, after a write. */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
/** How long close waits for writes under way before it cuts their connections. */
const CLOSE_WAIT_MS = 1_000;
/** Notices kept for the next write to report; a flood is summed up rather than kept. */
const MAX_NOTICES = 20;

/**
 * The audit table set in one PostgreSQL database (issue #19), one per target and process (see
 * auditSinkFor). The tables are created on first use. A write that fails for its connection is kept in
 * this process and tried again with growing pauses, and after each later write; one the database refuses
 * for its content is set aside (see refusedForContent), so it never blocks the writes behind it. Pending
 * writes live only in the process that ran the run: one that ends before its retry loses them (each was
 * reported as not stored).
 */
export class PostgresAuditSink {
	private pool?: Promise<Pool>;
	private migrated?: Promise<void>;
	private readonly pending = new PendingWrites();
	/** Clients checked out by a write now (see close). */
	private readonly active = new Set<PoolClient>();
	private flushing?: Promise<number>;
	private retryTimer?: NodeJS.Timeout;
	private retries = 0;
	private lastCleanup = 0;
	private closed = false;
	private notices: string[] = [];
	/** Runs given up because the pending queue was full (in rows or bytes). */
	dropped = 0;
	/** Runs the database refused for their content (the latest MAX_SET_ASIDE): never tried again. */
	readonly setAside: { run_id: string; reason: string }[] = [];

	constructor(private readonly target: PostgresTarget) {
		checkPostgresTarget('PostgresAuditSink', target);
	}

	/**
	 * Stores one run. Rejects with AuditWriteError when it could not: `retried` when it is pending and tried
	 * again later, not when the database refused its content (set aside). With `retentionDays`, runs older
	 * than that are deleted (at most hourly per process).
	 */
	async write(record: AuditRecord, retentionDays?: number): Promise<AuditWriteReport> {
		let prepared: PreparedWrite;
		try {
			prepared = await prepareWrite(record);
		} catch (error) {
			throw new AuditWriteError(this.setAsideNotice(record.run_id, error, true), false);
		}
		try {
			await this.store(prepared);
		} catch (error) {
			if (refusedForContent(error))
				throw new AuditWriteError(this.setAsideNotice(record.run_id, error, true), false);
			const kept = this.keepForRetry(prepared);
			const why = `the audit row of run ${record.run_id} was not stored (${describeError(error)})`;
			const what = kept
				? `${why}; it is tried again later by this process`
				: `${why}; it is too large to keep for a retry (${prepared.bytes} bytes, more than the ${MAX_PENDING_BYTES} the pending queue holds)`;
			throw new AuditWriteError([what, ...this.takeNotices()].join('; '), kept);
		}
		await this.flushPending();
		if (retentionDays !== undefined && retentionDays > 0)
			await this.cleanUp(retentionDays).catch(() => undefined);
		return { notices: this.takeNotices() };
	}

	/** Tries the pending writes now, oldest first; resolves to how many are still pending. One flush at a time. */
	flushPending(): Promise<number> {
		this.flushing ??= this.flush().finally(() => {
			this.flushing = undefined;
		});
		return this.flushing;
	}

	private async flush(): Promise<number> {
		for (let write = this.pending.head(); write; write = this.pending.head()) {
			try {
				await this.store(write);
			} catch (error) {
				if (!refusedForContent(error)) {
					this.scheduleRetry();
					return this.pending.length;
				}
				// Refused for what it holds: it would be refused forever and hold back every write behind it.
				this.setAsideNotice(write.runId, error, false);
			}
			this.pending.shift();
			this.retries = 0;
		}
		return 0;
	}

	/** A stored run, or undefined when there is none with this id (or no audit table at all: reading creates nothing). */
	async read(runId: string): Promise<AuditRecord | undefined> {
		return readRun(await this.connected(), runId);
	}

	/**
	 * The ids of runs created at or after `since`, oldest first, of one workflow when given, at most `limit`
	 * (what `audit replay --since` replays); none when nothing was ever audited here (reading creates nothing).
	 */
	async runIds(filter: { since: Date; workflowId?: string; limit?: number }): Promise<string[]> {
		return storedRunIds(await this.connected(), filter);
	}

	/** Closes the connections for good: pending writes are not tried again (see the class comment). */
	async close(): Promise<void> {
		this.closed = true;
		if (this.retryTimer) clearTimeout(this.retryTimer);
		const pool = this.pool;
		this.pool = undefined;
		this.migrated = undefined;
		const ended = (await pool?.catch(() => undefined))?.end();
		if (!ended) return;
		// A write stuck on a silent connection would hold close — and a CLI process — until its query timeout.
		let timer: NodeJS.Timeout | undefined;
		const waited = await Promise.race([
			ended.then(() => true),
			new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_WAIT_MS))),
		]);
		clearTimeout(timer);
		if (!waited) for (const client of this.active) destroyConnection(client);
		await ended.catch(() => undefined);
	}

	get pendingCount(): number {
		return this.pending.length;
	}

	/** UTF-8 bytes of the pending writes' parameters (bounded by MAX_PENDING_BYTES). */
	get pendingBytes(): number {
		return this.pending.bytes;
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
		this.migrated ??= migrate(pool, this.active).catch((error: unknown) => {
			this.migrated = undefined;
			throw error;
		});
		await this.migrated;
		return pool;
	}

	/** One run's rows in one transaction: all of them or none. */
	private async store(write: PreparedWrite): Promise<void> {
		await withClient(
			await this.ready(),
			async (client) => {
				await client.query('BEGIN');
				const inserted = await client.query(write.run.text, write.run.values);
				// A retry of a run that was stored after all (its answer was lost) adds nothing.
				if (inserted.rowCount === 1 && write.steps)
					await client.query(write.steps.text, write.steps.values);
				await client.query('COMMIT');
			},
			this.active,
		);
	}

	/** Keeps a write for a retry; false when it is larger than the whole queue may hold. */
	private keepForRetry(write: PreparedWrite): boolean {
		const { kept, givenUp } = this.pending.add(write);
		if (givenUp.length > 0) {
			this.dropped += givenUp.length;
			this.notice(
				`${givenUp.length} earlier audit row(s) waiting for a retry were given up, the pending queue being full ` +
					`(at most ${MAX_PENDING} rows and ${MAX_PENDING_BYTES} bytes): run ${givenUp.join(', ')}`,
			);
		}
		if (kept) this.scheduleRetry();
		return kept;
	}

	/** Sets a run aside as refused for its content; returns (and, when not `now`, keeps) the notice saying so. */
	private setAsideNotice(runId: string, error: unknown, now: boolean): string {
		const reason = describeError(error, true);
		this.setAside.push({ run_id: runId, reason });
		if (this.setAside.length > MAX_SET_ASIDE) this.setAside.shift();
		const text = `the audit row of run ${runId} was refused by the database for its content (${reason}); it is set aside and not tried again`;
		if (!now) this.notice(text);
		return text;
	}

	private notice(text: string): void {
		if (this.notices.length < MAX_NOTICES) this.notices.push(text);
		else this.notices[MAX_NOTICES - 1] = 'more audit notices were left out';
	}

	private takeNotices(): string[] {
		const taken = this.notices;
		this.notices = [];
		return taken;
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
		await pool.query(
			`DELETE FROM ${RUNS_TABLE} WHERE created_at < now() - make_interval(days => $1)`,
			[retentionDays],
		);
	}
}

/** Runs the migration unless the tables are already current (see TABLES_READY). */
async function migrate(pool: Pool, active: Set<PoolClient>): Promise<void> {
	await withClient(
		pool,
		async (client) => {
			if ((await client.query<{ ready: boolean }>(TABLES_READY)).rows[0]?.ready) return;
			for (const statement of MIGRATION) await client.query(statement);
		},
		active,
	);
}

const sinks = new Map<string, PostgresAuditSink>();

/** The process's sink for this target: one pool per database, shared by every run that writes there. */
export function auditSinkFor(target: PostgresTarget): PostgresAuditSink {
	checkPostgresTarget('auditSinkFor', target);
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
