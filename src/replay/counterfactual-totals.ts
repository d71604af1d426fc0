// The counterfactual replay of many runs summed up: how many matched the record, and each side's tokens, cost and time.
import type { CounterfactualRunReport, RunFigures } from './counterfactual';

/** The runs together: how many matched, and the figures summed on each side. */
export interface CounterfactualTotals {
	runs: number;
	same_answer: number;
	same_actions: number;
	differing: string[];
	refused_calls: number;
	ran_read_only: number;
	recorded: { tokens: number; cost: number | null; elapsed_ms: number };
	candidate: { tokens: number; cost: number | null; elapsed_ms: number };
}

const sumCost = (costs: (number | null)[]) =>
	costs.some((cost) => cost === null)
		? null
		: Math.round(costs.reduce<number>((sum, cost) => sum + cost!, 0) * 1e6) / 1e6;

export function counterfactualTotals(
	reports: readonly CounterfactualRunReport[],
): CounterfactualTotals {
	const side = (pick: (report: CounterfactualRunReport) => RunFigures) => ({
		tokens: reports.reduce((sum, report) => sum + pick(report).tokens, 0),
		cost: sumCost(reports.map((report) => pick(report).cost)),
		elapsed_ms: reports.reduce((sum, report) => sum + pick(report).elapsed_ms, 0),
	});
	return {
		runs: reports.length,
		same_answer: reports.filter((report) => report.same_answer).length,
		same_actions: reports.filter((report) => report.same_actions).length,
		differing: reports
			.filter((report) => !report.same_answer || !report.same_actions)
			.map((report) => report.run_id),
		refused_calls: reports.reduce((sum, report) => sum + report.refused_calls.length, 0),
		ran_read_only: reports.reduce((sum, report) => sum + report.ran_read_only.length, 0),
		recorded: side((report) => report.recorded),
		candidate: side((report) => report.candidate),
	};
}
