// What a write to the audit database reports: the error of a run not stored, and the notices beside a stored one.
import { AgentCoreError } from '../core/agent-core-error';

/**
 * A write that was not stored: `retried` says whether this process tries it again (see PostgresAuditSink.write).
 * `field` is `audit.postgres`, the run option naming the database.
 */
export class AuditWriteError extends AgentCoreError {
	override readonly name = 'AuditWriteError';
	constructor(
		message: string,
		readonly retried: boolean,
	) {
		super(message, {
			field: 'audit.postgres',
			fix: retried
				? 'Check that the audit.postgres database is reachable; this process stores the row once it answers.'
				: 'Check the audit.postgres database for the reason given; this process does not try the row again.',
		});
	}
}

/** What a stored write reports beside success: earlier pending rows that were set aside or given up meanwhile. */
export interface AuditWriteReport {
	notices: string[];
}
