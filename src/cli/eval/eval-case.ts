// One `agent-core eval` case run and judged: its line of the results file, also when the run itself failed.
import type { AgentResult } from '../../trace/types';
import type { EvalCase } from './eval-dataset';
import { judgeGates, stepCount, toolErrors, type GateResults } from './eval-gates';
import type { GateSpec } from './eval-spec';

/** A case's line of the results file (JSONL). */
export interface CaseRecord {
	id: string;
	/** The case's line in the dataset. */
	line: number;
	/** Every gate held. */
	passed: boolean;
	/** Each gate's verdict and why; `run` alone when the run failed before it produced an output. */
	gates: GateResults;
	finish_reason: string | null;
	stop_detail?: string;
	steps: number;
	/** usage.total_tokens. */
	tokens: number;
	/** USD, as the run's output says; null when a model had no price (or the run failed). */
	cost: number | null;
	tool_errors: number;
	/** Tools that ran, and how often. */
	tools_called: Record<string, number>;
	elapsed_ms: number;
	/** final_answer, as the run printed it (redacted). */
	answer: string;
	final_output?: unknown;
	/** Why the run failed, when it did not produce an output (e.g. a dependency it needed failed). */
	error?: string;
}

/** Runs the case with `run` and judges it; a run that throws is a failed case carrying its error, never a crash of the set. */
export async function runCase(
	evalCase: EvalCase,
	spec: GateSpec,
	run: () => Promise<AgentResult>,
): Promise<CaseRecord> {
	const started = performance.now();
	let result: AgentResult;
	try {
		result = await run();
	} catch (error) {
		const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
		return {
			id: evalCase.id,
			line: evalCase.line,
			passed: false,
			gates: { run: { passed: false, reason: `the run failed: ${message}` } },
			finish_reason: null,
			steps: 0,
			tokens: 0,
			cost: null,
			tool_errors: 0,
			tools_called: {},
			elapsed_ms: Math.round(performance.now() - started),
			answer: '',
			error: message,
		};
	}
	const gates = judgeGates(spec, result);
	return {
		id: evalCase.id,
		line: evalCase.line,
		passed: Object.values(gates).every((gate) => gate.passed),
		gates,
		finish_reason: result.finish_reason,
		...(result.stop_detail ? { stop_detail: result.stop_detail } : {}),
		steps: stepCount(result),
		tokens: result.usage.total_tokens,
		cost: result.cost,
		tool_errors: toolErrors(result).length,
		tools_called: Object.fromEntries(
			Object.entries(result.used_tools).map(([name, usage]) => [name, usage.count]),
		),
		elapsed_ms: result.elapsed_ms,
		answer: result.final_answer,
		...(result.final_output !== undefined ? { final_output: result.final_output } : {}),
	};
}
