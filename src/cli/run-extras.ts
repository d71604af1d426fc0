import type { RunAgentOptions } from '../agent/base/run-options';
import { auditSinkFor } from '../audit/postgres-sink';
import { FLUSH_BOUND_MS, tracingFromEnvironment } from '../telemetry/otlp';
import type { AgentResult } from '../trace/types';
import { readJsonFile, UsageError } from './flags';
import { readFileFlags } from './file-flags';

/** The CLI waits this long for its audit row: a command line has no one else to hand the write to. */
const CLI_AUDIT_WAIT_MS = 10_000;

/** What `run` and `resume` add around a run: the audit database and OpenTelemetry export, when asked for. */
export interface RunExtras {
	options: Pick<RunAgentOptions, 'audit' | 'tracer' | 'files'>;
	/** After the output is printed: says on stderr what became of the audit row, flushes spans, closes connections. */
	finish(output: AgentResult | undefined): Promise<void>;
}

/** `retentionDays` is `--audit-retention-days`, already read (and its range checked) by integerFlags. */
export function runExtras(
	values: Record<string, string | undefined>,
	retentionDays: number | undefined,
	filePaths?: readonly string[],
): RunExtras {
	const config = values.config ? readJsonFile(values.config, '--config') : undefined;
	const files = readFileFlags(filePaths, config);
	const postgres = values['audit-postgres'];
	if (retentionDays !== undefined && !postgres)
		throw new UsageError('--audit-retention-days needs --audit-postgres URL');
	if (postgres !== undefined && !/^postgres(ql)?:\/\//.test(postgres))
		throw new UsageError(
			'--audit-postgres must be a postgres:// URL, e.g. postgres://user@127.0.0.1:5432/audit',
		);
	// Each export gives up within the flush bound: a collector that refuses, hangs or trickles never holds the command.
	const tracing = tracingFromEnvironment(process.env, { exportTimeoutMs: FLUSH_BOUND_MS });
	return {
		options: {
			...(postgres ? { audit: { postgres, retentionDays, waitMs: CLI_AUDIT_WAIT_MS } } : {}),
			...(tracing ? { tracer: tracing.tracer } : {}),
			...(files.length ? { files } : {}),
		},
		async finish(output) {
			if (output?.audit && !output.audit.stored) {
				process.stderr.write(
					`agent-core: audit: ${output.audit.notice}; this process ends, so the row of run ${output.audit.run_id} is not stored\n`,
				);
			}
			await Promise.all([
				postgres ? auditSinkFor(postgres).close() : undefined,
				tracing?.shutdown(),
			]);
		},
	};
}
