// A run's result: its output (the answer, how the run went, cost, the trace and its digest), then its spans and audit row.
import type { ChatMessage } from '../../core/messages';
import type { RunAnswer } from '../base/step-outcome';
export type { RunAnswer } from '../base/step-outcome';
import { fileRefs } from '../setup/input-files';
import type { TokenUsage } from '../../core/usage';
import type { Redactor } from '../../trace/redact';
import { auditSinkFor } from '../../audit/postgres-sink';
import { auditRecord } from '../../audit/new-record';
import type { AuditRecord, AuditTool } from '../../audit/record';
import { parentRunOf } from '../../audit/parent-run';
import { recordRunSpans } from '../../telemetry/run-spans';
import type { RunAgentOptions } from '../base/run-options';
import { readableStep } from '../../trace/readable-step';
import type {
	AgentResult,
	AuditOutcome,
	FinishReason,
	RunMemoryReport,
	RunMetrics,
	ToolUsage,
	TraceStep,
} from '../../trace/types';
import { CATALOGUE_NAME, roundedCost } from '../../budget/model-catalogue';
import { runCost, unpricedNotice } from '../model/shared-budget';
import {
	chainBase,
	configHash,
	schemaHash,
	traceChain,
	traceDigest,
	type ChainBase,
} from '../../trace/digest';
import type { Tool } from '../../tools/tool';
import type { AgentConfig } from '../../settings/config';
import type { RunMemory } from '../memory/compaction';
import { runToolResults } from '../memory/memory';
import type { PlanRun } from '../base/plan-run';
import { planOutput } from '../plan';

/** What the run did, as the result reports it. */
export interface RunRecord {
	trace: readonly TraceStep[];
	usedTools: Record<string, ToolUsage>;
	usage: TokenUsage;
	newUserMessage: ChatMessage;
	/** `performance.now()` when the run started. */
	started: number;
	model: string;
	provider: string;
	/** Where the trace's hash chain starts (see traceChain), made once per run (see runChainBase). */
	chain: RunChain;
	/** How the history was fitted (issue #31), when the run had one. */
	memory?: RunMemory;
	/** Plan mode (issue #51): the plan the run executed. */
	plan?: PlanRun;
}

/**
 * The run's output. Everything in it goes through the redactor; the model saw the real values where calls
 * needed them. `messages` holds, for a context store, a summary the run wrote, the user message answered and,
 * with an answer, the answer with the turn's tool results (see memory/memory.ts).
 */
export function runResult(
	ending: { finishReason: FinishReason; stopDetail?: string; answer?: RunAnswer },
	record: RunRecord,
	redactor: Redactor,
	/** A paused run's `pending_action` and `run_state`, already redacted and signed: added as they are. */
	paused?: Record<string, unknown>,
): AgentResult {
	const { finishReason, stopDetail, answer } = ending;
	const summary = record.memory?.summary;
	const toolResults = answer ? runToolResults(record.trace) : [];
	// For a context store: the summary this run wrote, the question, and the answer with the turn's tool results.
	const files = record.newUserMessage.files?.length
		? fileRefs(record.newUserMessage.files)
		: undefined;
	const messages: ChatMessage[] = [
		...(summary ? [summary] : []),
		{
			role: record.newUserMessage.role,
			content: record.newUserMessage.content,
			...(files ? { files } : {}),
		},
	];
	if (answer)
		messages.push({
			role: 'assistant',
			content: answer.text,
			...(toolResults.length ? { tool_results: toolResults } : {}),
		});
	const result = redactor.value({
		// What a reader looks at first comes first (issue #41): the answer and how the run went, then the step by step.
		final_answer: answer?.text ?? '',
		...(answer && 'value' in answer ? { final_output: answer.value } : {}),
		finish_reason: finishReason,
		...(stopDetail ? { stop_detail: stopDetail } : {}),
		...(record.plan ? { plan: planOutput(record.plan) } : {}),
		used_tools: record.usedTools,
		metrics: metricsOf(record.trace),
		usage: record.usage,
		...costFields(record.trace),
		elapsed_ms: Math.round(performance.now() - record.started),
		model: record.model,
		provider: record.provider,
		...(record.memory ? { memory: memoryReport(record.memory) } : {}),
		trace: record.trace.map(readableStep),
		messages,
	});
	// The chain covers the trace as the output holds it, redacted.
	const digested = { ...result, trace_digest: traceDigest(record.chain.base, result.trace) };
	return paused ? { ...digested, ...paused } : digested;
}

/** A run's chain base and the redacted config it hashes: the output's trace digest and the audit row both start from it. */
export interface RunChain {
	base: ChainBase;
	config: Record<string, unknown>;
}

/** A run's chain base: the redacted config's hash (so a stored config recomputes it) and the tools' schema hashes. */
export function runChainBase(
	config: AgentConfig,
	tools: Iterable<Tool>,
	redactor: Redactor,
): RunChain {
	const redacted = redactor.value(config) as unknown as Record<string, unknown>;
	return { base: chainBase(configHash(redacted), tools), config: redacted };
}

/** The run's figures, from its trace. */
export function metricsOf(trace: readonly TraceStep[]): RunMetrics {
	const failed = trace.filter((step) => step.error !== undefined).length;
	return {
		model_calls: trace.filter((step) => step.provider !== undefined).length,
		repairs: trace.filter((step) => step.repair).length,
		failed_steps: failed,
		failure_rate: trace.length ? Math.round((failed / trace.length) * 1000) / 1000 : 0,
	};
}

/** The run's `cost` and `cost_details`, from its steps' costs (null when a call's model had no price). */
function costFields(
	trace: readonly TraceStep[],
): Pick<AgentResult, 'cost' | 'cost_details' | 'cost_notice'> {
	const cost = runCost(trace);
	if (!cost) return { cost: null, cost_details: null, cost_notice: unpricedNotice(trace) };
	const rounded = roundedCost(cost);
	return {
		cost: rounded.total,
		cost_details: { ...rounded, currency: 'USD', catalogue: CATALOGUE_NAME },
	};
}

/** The output's `memory`: the fitting as it went, the summary by its metadata (its text is the first of `messages`). */
function memoryReport({ summary, ...report }: RunMemory): RunMemoryReport {
	return { ...report, ...(summary?.summary ? { summary: summary.summary } : {}) };
}

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
