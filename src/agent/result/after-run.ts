// After the answer: the run's spans, and its audit row written (waited for at most audit.waitMs).
import { auditSinkFor } from '../../audit/postgres-sink';
import { auditRecord } from '../../audit/new-record';
import type { AuditRecord, AuditTool } from '../../audit/record';
import { parentRunOf } from '../../audit/parent-run';
import { recordRunSpans } from '../../telemetry/run-spans';
import type { Tool } from '../../tools/tool';
import { schemaHash, traceChain } from '../../trace/digest';
import type { Redactor } from '../../trace/redact';
import type { AgentResult, AuditOutcome } from '../../trace/types';
import type { AgentConfig } from '../../settings/config';
import type { RunAgentOptions } from '../base/run-options';
import type { RunChain } from './run-result';

/** How long a run waits for its audit row by default before it answers anyway (the write goes on). */
export const DEFAULT_AUDIT_WAIT_MS = 1_000;

/** What the audit and the spans need of a finished run beside its result. */
export interface FinishedRun {
	config: AgentConfig;
	tools: ReadonlyMap<string, Tool>;
	/** The model's replies by step, as they came (redacted here before they are kept). */
	replies: ReadonlyMap<number, string>;
	redactor: Redactor;
	/** Where the run's hash chain starts, as the output's trace digest took it. */
	chain: RunChain;
	/** The run's id, decided when it started: its audit row's, and what its sub-agents' rows name. */
	runId: string;
}

/**
 * What happens once the answer is ready (issue #19): the run's spans go to the tracer, and its audit row
 * is written. The result waits for the row at most `audit.waitMs`; a write that failed or is still going is
 * a notice in `audit`, never a failed run, and the sink tries it again later.
 */
export async function afterRun(
	result: AgentResult,
	run: FinishedRun,
	options: RunAgentOptions,
): Promise<AgentResult> {
	const { redactor } = run;
	const startedAt = Date.now() - result.elapsed_ms;
	if (options.tracer) {
		recordRunSpans(options.tracer, {
			result,
			requestModel: run.config.model,
			sessionId: options.sessionId,
			startedAt,
			redact: (text) => redactor.text(text),
		});
	}
	if (!options.audit) return result;
	const { base, config } = run.chain;
	// Decided when the run started: a sub-agent's row may have named it already.
	const { runId } = run;
	let record: AuditRecord;
	try {
		record = auditRecord({
			runId,
			result,
			config,
			origin: options.audit.origin,
			sessionId: options.sessionId,
			createdAt: new Date(startedAt),
			configHash: base.configHash,
			tools: [...run.tools.values()].map(auditTool),
			links: traceChain(base, result.trace),
			replies: new Map([...run.replies].map(([step, reply]) => [step, redactor.text(reply)])),
			forkedFrom: options.audit.forkedFrom,
			parentRun: parentRunOf(options),
		});
	} catch (error) {
		// A run whose record cannot even be hashed (nothing the engine makes today) still answers.
		return {
			...result,
			audit: {
				run_id: runId,
				stored: false,
				notice: redactor.text(
					`the audit row of run ${runId} could not be made (${(error as Error).message})`,
				),
			},
		};
	}
	const waitMs = options.audit.waitMs ?? DEFAULT_AUDIT_WAIT_MS;
	const digest = { record_digest: record.record_digest };
	// Whatever the database does (refuses, drops the connection mid-write), this settles: never a throw.
	const write = auditSinkFor(options.audit.postgres)
		.write(record, options.audit.retentionDays)
		.then(
			({ notices }): AuditOutcome => ({
				run_id: runId,
				stored: true,
				...(notices.length > 0 ? { notice: redactor.text(notices.join('; ')) } : {}),
				...digest,
			}),
			(error: Error): AuditOutcome => ({
				run_id: runId,
				stored: false,
				notice: redactor.text(error.message),
				...digest,
			}),
		);
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<AuditOutcome>((resolve) => {
		timer = setTimeout(
			() =>
				resolve({
					run_id: runId,
					stored: false,
					notice: `the audit row was not written within ${waitMs} ms; it is written when the database answers`,
					...digest,
				}),
			waitMs,
		);
	});
	try {
		return { ...result, audit: await Promise.race([write, late]) };
	} finally {
		clearTimeout(timer);
	}
}

function auditTool(tool: Tool): AuditTool {
	const sideEffects =
		typeof tool.sideEffects === 'function' ? 'by_args' : (tool.sideEffects ?? true);
	return {
		name: tool.name,
		schema: tool.parameters,
		schema_hash: schemaHash(tool.parameters),
		side_effects: sideEffects,
	};
}
