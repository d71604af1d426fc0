// `agent-core audit verify|replay`: a stored run checked against its hash chains, or re-run offline from its record.
import { parseArgs } from 'node:util';
import { ConfigError } from '../agent/config';
import { replayRecord } from '../agent/replay';
import { auditSinkFor } from '../audit/postgres-sink';
import { malformedPart } from '../audit/record-shape';
import { verifyRecord } from '../audit/verify';
import { SchemaError } from '../validation/schema-error';
import { UsageError } from './flags';

export const AUDIT_USAGE = `usage: agent-core audit verify --postgres URL --run ID [--digest HEX]
       agent-core audit replay --postgres URL --run ID`;

/**
 * A replay, or why the stored run cannot be replayed: a config or tool schema that today's checks refuse
 * (a schema over the limits, a pattern RE2 cannot run) is named as the part, exit 3, never a crash.
 */
async function replayOrRefusal(record: Parameters<typeof replayRecord>[0]): Promise<Awaited<ReturnType<typeof replayRecord>> | { run_id: string; same: false; first_mismatch: { part: string; detail: string } }> {
  try {
    return await replayRecord(record);
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof SchemaError)) throw error;
    const part = error instanceof ConfigError ? `config ${error.key}` : error.field;
    return { run_id: record.run_id, same: false, first_mismatch: { part, detail: `the stored run cannot be replayed: ${error.message}` } };
  }
}

/** Exit status of a verify that found a change, or a replay that came out differently. */
const DIFFERS = 3;

/**
 * `agent-core audit verify|replay`: a stored run's hash chain recomputed (the first changed part named),
 * or its loop re-run offline from the stored replies and observations. Prints a JSON report.
 */
export async function auditCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'verify' && action !== 'replay') throw new UsageError(`audit needs verify or replay${action ? `, not "${action}"` : ''}\n${AUDIT_USAGE}`);
  let values: { postgres?: string; run?: string; digest?: string };
  try {
    values = parseArgs({ args: rest, options: { postgres: { type: 'string' }, run: { type: 'string' }, digest: { type: 'string' } }, strict: true }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${AUDIT_USAGE}`);
  }
  if (!values.postgres || !values.run) throw new UsageError(`audit ${action} needs --postgres URL and --run ID\n${AUDIT_USAGE}`);
  if (values.digest !== undefined && action !== 'verify') throw new UsageError('--digest belongs to audit verify');
  if (values.digest !== undefined && !/^[0-9a-fA-F]{64}$/.test(values.digest)) {
    throw new UsageError(`--digest must be 64 hex digits (the output's audit.record_digest or trace_digest), not "${values.digest}"`);
  }
  const sink = auditSinkFor(values.postgres);
  try {
    const record = await sink.read(values.run).catch((error: Error) => {
      throw new UsageError(`--postgres: cannot read the audit database (${error.message || String((error as { code?: string }).code)})`);
    });
    if (!record) throw new UsageError(`--run: no run ${values.run} in the audit database`);
    // A malformed row cannot be replayed: it is reported as verify reports it (exit 3, the part named).
    const malformed = action === 'replay' ? malformedPart(record) : undefined;
    const report = action === 'verify' ? verifyRecord(record, values.digest?.toLowerCase()) : malformed ? { run_id: record.run_id, same: false, first_mismatch: malformed } : await replayOrRefusal(record);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return ('ok' in report ? report.ok : report.same) ? 0 : DIFFERS;
  } finally {
    await sink.close();
  }
}
