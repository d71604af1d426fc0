// Reading the audit database: one stored run back as its record, and the ids of runs since a date. Reading creates nothing.
import type { Pool } from 'pg';
import { RUNS_TABLE, STEPS_TABLE } from './postgres-schema';
import { recordFromRows } from './postgres-tables';
import type { AuditRecord } from './record';
import { escapeStoredText, unescapeStoredText } from './stored-text';

/** A stored run, or undefined when there is none with this id (or no audit table at all: reading creates nothing). */
export async function readRun(pool: Pool, runId: string): Promise<AuditRecord | undefined> {
	const run = await pool
		.query(`SELECT * FROM ${RUNS_TABLE} WHERE run_id = $1`, [runId])
		.catch((error: { code?: string }) => {
			// 42P01 undefined_table: nothing was ever audited in this database.
			if (error.code === '42P01') return { rowCount: 0, rows: [] };
			throw error;
		});
	if (run.rowCount === 0) return undefined;
	const steps = await pool.query(
		`SELECT * FROM ${STEPS_TABLE} WHERE run_id = $1 ORDER BY position`,
		[runId],
	);
	return recordFromRows(run.rows[0], steps.rows);
}

/**
 * The ids of runs created at or after `since`, oldest first, of one workflow when given, at most `limit`
 * (what `audit replay --since` replays); none when nothing was ever audited here (reading creates nothing).
 */
export async function storedRunIds(
	pool: Pool,
	filter: { since: Date; workflowId?: string; limit?: number },
): Promise<string[]> {
	const values: unknown[] = [filter.since];
	if (filter.workflowId !== undefined) values.push(escapeStoredText(filter.workflowId));
	const workflow = filter.workflowId !== undefined ? ' AND workflow_id = $2' : '';
	const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : '';
	const found = await pool
		.query<{
			run_id: string;
		}>(
			`SELECT run_id FROM ${RUNS_TABLE} WHERE created_at >= $1${workflow} ORDER BY created_at, run_id${limit}`,
			values,
		)
		.catch((error: { code?: string }) => {
			if (error.code === '42P01') return { rows: [] as { run_id: string }[] };
			throw error;
		});
	return found.rows.map((row) => unescapeStoredText(row.run_id));
}
