// The audit tables: their migration, and a run turned into rows and back (strings escaped for PostgreSQL).
import type { TraceStep } from '../trace/types';
import type { AuditRecord } from './record';
import { escapeStoredText, mapStrings, unescapeStoredText } from './stored-text';

/** The audit's two tables: one row per run, one per step. README "Audit and tracing" shows the layout. */
export const RUNS_TABLE = 'agent_core_audit_runs';
export const STEPS_TABLE = 'agent_core_audit_steps';

/**
 * The columns added after the tables were first made, each by the column whose absence says the step is still
 * to run. ALTER runs only when that column is missing, since it needs the table's owner and later writers may
 * have only DML; with every one of them there, the table set is current.
 */
const ADDED_COLUMNS: ReadonlyArray<{ column: string; add: string }> = [
	// The record chain (issue #26): rows from before it keep chain_version 1 and verify as they did.
	{
		column: 'record_digest',
		add: `ADD COLUMN IF NOT EXISTS chain_version integer NOT NULL DEFAULT 1,
        ADD COLUMN IF NOT EXISTS record_hashes jsonb, ADD COLUMN IF NOT EXISTS record_digest text`,
	},
	// The run's cost (chain version 3, issue #29): rows from before it have none and keep their version.
	{ column: 'cost', add: 'ADD COLUMN IF NOT EXISTS cost jsonb' },
	// A fork's origin (chain version 4, issue #33): rows from before it were no forks.
	{ column: 'forked_from', add: 'ADD COLUMN IF NOT EXISTS forked_from jsonb' },
];

/** One added column's step of the migration. */
const addColumn = ({ column, add }: (typeof ADDED_COLUMNS)[number]) => `DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${RUNS_TABLE}'::regclass AND attname = '${column}' AND NOT attisdropped) THEN
      ALTER TABLE ${RUNS_TABLE} ${add};
    END IF;
  END $$`;

/**
 * True when both tables and every added column are there: then no migration runs, so a database user with
 * only INSERT, SELECT and DELETE on the tables (no CREATE on the schema, not their owner) can write.
 */
export const TABLES_READY = `SELECT to_regclass('${RUNS_TABLE}') IS NOT NULL AND to_regclass('${STEPS_TABLE}') IS NOT NULL
  AND (SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('${RUNS_TABLE}') AND attname IN (${ADDED_COLUMNS.map(({ column }) => `'${column}'`).join(', ')}) AND NOT attisdropped) = ${ADDED_COLUMNS.length} AS ready`;

/**
 * Creates the tables when they are missing. `CREATE TABLE IF NOT EXISTS` alone is not safe when several
 * workers start at once (two can both pass the check and one fails on the catalog's unique index), so the
 * statements run under a transaction-scoped advisory lock: the first creates, the others wait and find them.
 */
export const MIGRATION = [
	'BEGIN',
	"SELECT pg_advisory_xact_lock(hashtext('agent_core_audit_migration'))",
	`CREATE TABLE IF NOT EXISTS ${RUNS_TABLE} (
    run_id text PRIMARY KEY,
    created_at timestamptz NOT NULL,
    workflow_id text,
    execution_id text,
    node_name text,
    session_id text,
    model text NOT NULL,
    provider text NOT NULL,
    config jsonb NOT NULL,
    config_hash text NOT NULL,
    tools jsonb NOT NULL,
    chain_base text NOT NULL,
    messages jsonb NOT NULL,
    finish_reason text NOT NULL,
    stop_detail text,
    final_answer text NOT NULL,
    final_output jsonb,
    usage jsonb NOT NULL,
    metrics jsonb NOT NULL,
    elapsed_ms integer NOT NULL,
    trace_digest text NOT NULL
  )`,
	...ADDED_COLUMNS.map(addColumn),
	`CREATE INDEX IF NOT EXISTS ${RUNS_TABLE}_created_at ON ${RUNS_TABLE} (created_at)`,
	`CREATE INDEX IF NOT EXISTS ${RUNS_TABLE}_execution ON ${RUNS_TABLE} (workflow_id, execution_id)`,
	`CREATE TABLE IF NOT EXISTS ${STEPS_TABLE} (
    run_id text NOT NULL REFERENCES ${RUNS_TABLE} (run_id) ON DELETE CASCADE,
    position integer NOT NULL,
    step integer NOT NULL,
    provider text,
    model text,
    reply text,
    action jsonb,
    final jsonb,
    observation text,
    error jsonb,
    repair boolean NOT NULL,
    elapsed_ms integer NOT NULL,
    model_ms integer NOT NULL,
    tool_ms integer,
    usage jsonb,
    extra jsonb NOT NULL,
    link text NOT NULL,
    PRIMARY KEY (run_id, position)
  )`,
	'COMMIT',
];

const RUN_COLUMNS = [
	'run_id',
	'created_at',
	'workflow_id',
	'execution_id',
	'node_name',
	'session_id',
	'model',
	'provider',
	'config',
	'config_hash',
	'tools',
	'chain_base',
	'messages',
	'finish_reason',
	'stop_detail',
	'final_answer',
	'final_output',
	'usage',
	'metrics',
	'elapsed_ms',
	'trace_digest',
	'chain_version',
	'record_hashes',
	'record_digest',
	'cost',
	'forked_from',
] as const;
const JSON_RUN_COLUMNS = new Set([
	'config',
	'tools',
	'messages',
	'final_output',
	'usage',
	'metrics',
	'record_hashes',
	'cost',
	'forked_from',
]);

const STEP_COLUMNS = [
	'run_id',
	'position',
	'step',
	'provider',
	'model',
	'reply',
	'action',
	'final',
	'observation',
	'error',
	'repair',
	'elapsed_ms',
	'model_ms',
	'tool_ms',
	'usage',
	'extra',
	'link',
] as const;
const JSON_STEP_COLUMNS = new Set(['action', 'final', 'error', 'usage', 'extra']);
/** The step fields that have their own column; anything else a step holds goes to `extra`. */
const STEP_FIELDS = [
	'step',
	'provider',
	'model',
	'action',
	'final',
	'observation',
	'error',
	'repair',
	'elapsed_ms',
	'model_ms',
	'tool_ms',
	'usage',
] as const;

type Row = Record<string, unknown>;

/**
 * A value as its column takes it: JSON columns get JSON text (so a string answer stays a JSON string), absent
 * is NULL, and every string has what PostgreSQL cannot hold escaped (see escapeStoredText; undone on reading).
 */
function cell(value: unknown, json: boolean): unknown {
	if (value === undefined) return null;
	if (json) return JSON.stringify(mapStrings(value, escapeStoredText));
	return typeof value === 'string' ? escapeStoredText(value) : value;
}

/** A value read from its column, with escapeStoredText undone. */
function uncell(value: unknown): unknown {
	return mapStrings(value, unescapeStoredText);
}

/** A parameter before it is encoded for its column (see cell). */
interface RawCell {
	value: unknown;
	json: boolean;
}

/** `INSERT` text and the raw parameters for rows of these columns. */
function insert(
	table: string,
	columns: readonly string[],
	jsonColumns: Set<string>,
	rows: Row[],
	suffix = '',
): { text: string; cells: RawCell[] } {
	const cells: RawCell[] = [];
	const tuples = rows.map(
		(row) =>
			`(${columns
				.map((column) => {
					cells.push({ value: row[column], json: jsonColumns.has(column) });
					return `$${cells.length}${jsonColumns.has(column) ? '::jsonb' : ''}`;
				})
				.join(', ')})`,
	);
	return {
		text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}${suffix}`,
		cells,
	};
}

/** Parameters this long are followed by a turn of the event loop, so a run with megabytes of text never holds it long. */
const YIELD_AFTER_CHARACTERS = 64 * 1024;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The parameters encoded, one at a time, letting the event loop run after each large one. */
async function encoded(cells: RawCell[]): Promise<unknown[]> {
	const values: unknown[] = [];
	// A turn first: the record was just hashed, and a large value's encoding should not add to that.
	await nextTurn();
	for (const { value, json } of cells) {
		const large = typeof value === 'string' && value.length > YIELD_AFTER_CHARACTERS;
		if (large) await nextTurn();
		const encodedValue = cell(value, json);
		values.push(encodedValue);
		if (large || (typeof encodedValue === 'string' && encodedValue.length > YIELD_AFTER_CHARACTERS))
			await nextTurn();
	}
	return values;
}

/** The run's row; a retried write of a run already stored inserts nothing (ON CONFLICT DO NOTHING). */
function runInsert(record: AuditRecord): { text: string; cells: RawCell[] } {
	// A record without a chain version (one built by hand, or read from an old row) is version 1.
	const row = { ...record, chain_version: record.chain_version ?? 1 } as unknown as Row;
	return insert(
		RUNS_TABLE,
		RUN_COLUMNS,
		JSON_RUN_COLUMNS,
		[row],
		' ON CONFLICT (run_id) DO NOTHING',
	);
}

/** The run's step rows, in order. */
function stepsInsert(record: AuditRecord): { text: string; cells: RawCell[] } | undefined {
	if (record.steps.length === 0) return undefined;
	const rows = record.steps.map(({ step, reply, link }, position) => {
		const extra: Row = { ...step };
		for (const field of STEP_FIELDS) delete extra[field];
		return { ...step, run_id: record.run_id, position, reply, link, extra };
	});
	return insert(STEPS_TABLE, STEP_COLUMNS, JSON_STEP_COLUMNS, rows);
}

/** One run's statements, built once: a retry sends the same text again, and the size bounds the pending queue. */
export interface PreparedWrite {
	runId: string;
	run: { text: string; values: unknown[] };
	steps?: { text: string; values: unknown[] };
	/** UTF-8 bytes of the statements' parameters: what keeping this write for a retry costs. */
	bytes: number;
}

/** The run's statements; rejects for a record that cannot be put into SQL parameters at all (e.g. a BigInt). */
export async function prepareWrite(record: AuditRecord): Promise<PreparedWrite> {
	const runRow = runInsert(record);
	const stepRows = stepsInsert(record);
	const run = { text: runRow.text, values: await encoded(runRow.cells) };
	const steps = stepRows && { text: stepRows.text, values: await encoded(stepRows.cells) };
	let bytes = 0;
	for (const value of [...run.values, ...(steps?.values ?? [])])
		bytes += typeof value === 'string' ? Buffer.byteLength(value) : 8;
	return { runId: record.run_id, run, ...(steps ? { steps } : {}), bytes };
}

/** Drops NULL columns, as the record leaves absent fields out, and undoes the escaping, a turn of the event loop after each large value. */
async function present(row: Row, columns: readonly string[]): Promise<Row> {
	const kept: Row = {};
	for (const column of columns) {
		const value = row[column];
		if (value === null || value === undefined) continue;
		const large = typeof value === 'string' && value.length > YIELD_AFTER_CHARACTERS;
		if (large) await nextTurn();
		kept[column] = uncell(value);
		if (large) await nextTurn();
	}
	return kept;
}

/** A stored run, read back: the same record that was written. */
export async function recordFromRows(run: Row, steps: Row[]): Promise<AuditRecord> {
	const record = (await present(run, RUN_COLUMNS)) as unknown as AuditRecord;
	record.steps = [];
	for (const row of steps) {
		const {
			extra,
			reply,
			link,
			run_id: _runId,
			position: _position,
			...columns
		} = await present(row, STEP_COLUMNS);
		const step = { ...(extra as Row), ...columns } as unknown as TraceStep;
		record.steps.push({
			step,
			link: link as string,
			...(reply !== undefined ? { reply: reply as string } : {}),
		});
	}
	return record;
}
