// The audit tables' rows: a run turned into rows and back (strings escaped for PostgreSQL).
import type { TraceStep } from '../trace/types';
import { RUNS_TABLE, STEPS_TABLE } from './postgres-schema';
import type { AuditRecord } from './record';
import { escapeStoredText, mapStrings, unescapeStoredText } from './stored-text';

export { MIGRATION, RUNS_TABLE, STEPS_TABLE, TABLES_READY } from './postgres-schema';

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
	'plan',
	'parent_run',
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
	'plan',
	'parent_run',
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
