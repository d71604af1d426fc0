// The audit tables' names and their migration: created when missing, columns added since, run under a lock.

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
	// A planned run's plan and its approval (chain version 5, issue #51): rows from before it ran no plan.
	{ column: 'plan', add: 'ADD COLUMN IF NOT EXISTS plan jsonb' },
	// A sub-agent's run names the run and call it ran under (chain version 6, issue #52): rows from before it ran under none.
	{ column: 'parent_run', add: 'ADD COLUMN IF NOT EXISTS parent_run jsonb' },
];

/** One added column's step of the migration. */
const addColumn = ({ column, add }: (typeof ADDED_COLUMNS)[number]) => `DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${RUNS_TABLE}'::regclass AND attname = '${column}' AND NOT attisdropped) THEN
      ALTER TABLE ${RUNS_TABLE} ${add};
    END IF;
  END $$`;

/** The added columns' names as SQL strings, for TABLES_READY's `IN (...)`. */
const ADDED_COLUMN_NAMES = ADDED_COLUMNS.map(({ column }) => `'${column}'`).join(', ');

/**
 * True when both tables and every added column are there: then no migration runs, so a database user with
 * only INSERT, SELECT and DELETE on the tables (no CREATE on the schema, not their owner) can write.
 */
export const TABLES_READY =
	`SELECT to_regclass('${RUNS_TABLE}') IS NOT NULL AND to_regclass('${STEPS_TABLE}') IS NOT NULL
  AND (SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('${RUNS_TABLE}') ` +
	`AND attname IN (${ADDED_COLUMN_NAMES}) AND NOT attisdropped) = ${ADDED_COLUMNS.length} AS ready`;

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
