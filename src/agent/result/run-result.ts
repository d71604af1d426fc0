import type { ChatMessage } from '../../core/messages';
import type { RunAnswer } from '../base/step-outcome';
export type { RunAnswer } from '../base/step-outcome';
import { fileRefs } from '../setup/input-files';
import type { TokenUsage } from '../../core/usage';
import type { Redactor } from '../../trace/redact';
import { readableStep } from '../../trace/readable-step';
import type {
	AgentResult,
	FinishReason,
	RunMemoryReport,
	RunMetrics,
	ToolUsage,
	TraceStep,
} from '../../trace/types';
import { CATALOGUE_NAME, roundedCost } from '../../budget/model-catalogue';
import { runCost, unpricedNotice } from '../model/shared-budget';
import { chainBase, configHash, traceDigest, type ChainBase } from '../../trace/digest';
import type { Tool } from '../../tools/tool';
import type { AgentConfig } from '../../settings/config';
import { runToolResults, type RunMemory } from '../memory/run-memory';
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
 * with an answer, the answer with the turn's tool results (see run-memory.ts).
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
