// `agent-core eval`'s verdict over the set: the thresholds judged on every case's record, and the table printed on stdout.
import type { CaseRecord } from './eval-case';
import { GATE_NAMES, type Thresholds } from './eval-spec';

/** One threshold's verdict over the set. */
export interface ThresholdResult {
	name: keyof Thresholds | 'every case passes';
	limit: string;
	actual: string;
	holds: boolean;
}

/** The set in figures, and whether it holds. */
export interface EvalSummary {
	cases: number;
	passed: number;
	failed: number;
	/** Per gate: how many cases it held for, and how many it failed. */
	gates: Array<{ gate: string; passed: number; failed: number }>;
	thresholds: ThresholdResult[];
	totals: {
		steps: number;
		tokens: number;
		cost: number;
		unpriced: number;
		tool_errors: number;
		run_errors: number;
	};
	/** Every threshold holds (exit 0); otherwise exit 3. */
	holds: boolean;
}

const round = (value: number, places: number): number => Number(value.toFixed(places));

/** The thresholds judged on the records; without pass_rate or max_failed, every case must pass. */
export function summarise(records: readonly CaseRecord[], thresholds: Thresholds): EvalSummary {
	const passed = records.filter((record) => record.passed).length;
	const failed = records.length - passed;
	const totals = {
		steps: records.reduce((sum, record) => sum + record.steps, 0),
		tokens: records.reduce((sum, record) => sum + record.tokens, 0),
		cost: round(
			records.reduce((sum, record) => sum + (record.cost ?? 0), 0),
			6,
		),
		unpriced: records.filter((record) => record.cost === null).length,
		tool_errors: records.reduce((sum, record) => sum + record.tool_errors, 0),
		run_errors: records.filter((record) => record.error !== undefined).length,
	};
	const judged: ThresholdResult[] = [];
	if (thresholds.pass_rate === undefined && thresholds.max_failed === undefined) {
		judged.push({
			name: 'every case passes',
			limit: `${records.length}`,
			actual: `${passed}`,
			holds: failed === 0,
		});
	}
	const rate = records.length === 0 ? 0 : passed / records.length;
	if (thresholds.pass_rate !== undefined)
		judged.push({
			name: 'pass_rate',
			limit: `≥ ${thresholds.pass_rate}`,
			actual: `${round(rate, 4)}`,
			holds: rate >= thresholds.pass_rate,
		});
	if (thresholds.max_failed !== undefined)
		judged.push({
			name: 'max_failed',
			limit: `≤ ${thresholds.max_failed}`,
			actual: `${failed}`,
			holds: failed <= thresholds.max_failed,
		});
	if (thresholds.max_total_cost !== undefined) {
		// An unknown price is no zero: the total cannot be shown to stay under the limit.
		const unpriced =
			totals.unpriced > 0
				? ` (${totals.unpriced} case${totals.unpriced === 1 ? '' : 's'} without a known cost)`
				: '';
		judged.push({
			name: 'max_total_cost',
			limit: `≤ ${thresholds.max_total_cost} USD`,
			actual: `${totals.cost} USD${unpriced}`,
			holds: totals.unpriced === 0 && totals.cost <= thresholds.max_total_cost,
		});
	}
	if (thresholds.max_total_tokens !== undefined)
		judged.push({
			name: 'max_total_tokens',
			limit: `≤ ${thresholds.max_total_tokens}`,
			actual: `${totals.tokens}`,
			holds: totals.tokens <= thresholds.max_total_tokens,
		});
	if (thresholds.max_tool_errors !== undefined)
		judged.push({
			name: 'max_tool_errors',
			limit: `≤ ${thresholds.max_tool_errors}`,
			actual: `${totals.tool_errors}`,
			holds: totals.tool_errors <= thresholds.max_tool_errors,
		});
	const gates = [...GATE_NAMES, 'run' as const].flatMap((gate) => {
		const verdicts = records.flatMap((record) => (record.gates[gate] ? [record.gates[gate]!] : []));
		return verdicts.length === 0
			? []
			: [
					{
						gate,
						passed: verdicts.filter((verdict) => verdict.passed).length,
						failed: verdicts.filter((verdict) => !verdict.passed).length,
					},
				];
	});
	return {
		cases: records.length,
		passed,
		failed,
		gates,
		thresholds: judged,
		totals,
		holds: judged.every((threshold) => threshold.holds),
	};
}

/** Rows as columns padded to their widest cell. */
function table(rows: string[][]): string {
	const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
	return rows
		.map((row) =>
			row
				.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column])))
				.join('  ')
				.trimEnd(),
		)
		.join('\n');
}

const cut = (text: string, length = 160): string =>
	text.length > length ? `${text.slice(0, length)}…` : text;

/** The summary for people: gates, thresholds, totals, each failed case with its failed gates, and the verdict. */
export function summaryTable(summary: EvalSummary, records: readonly CaseRecord[]): string {
	const lines = [
		`agent-core eval: ${summary.cases} case${summary.cases === 1 ? '' : 's'}, ${summary.passed} passed, ${summary.failed} failed`,
		'',
	];
	lines.push(
		table([
			['gate', 'passed', 'failed'],
			...summary.gates.map((gate) => [gate.gate, `${gate.passed}`, `${gate.failed}`]),
		]),
		'',
	);
	lines.push(
		table([
			['threshold', 'limit', 'actual', 'holds'],
			...summary.thresholds.map((threshold) => [
				threshold.name,
				threshold.limit,
				threshold.actual,
				threshold.holds ? 'yes' : 'NO',
			]),
		]),
		'',
	);
	const { totals } = summary;
	lines.push(
		`totals: ${totals.steps} steps, ${totals.tokens} tokens, ${totals.cost} USD` +
			(totals.unpriced
				? ` (+ ${totals.unpriced} case${totals.unpriced === 1 ? '' : 's'} without a known cost)`
				: '') +
			', ' +
			`${totals.tool_errors} tool error${totals.tool_errors === 1 ? '' : 's'}, ${totals.run_errors} failed run${totals.run_errors === 1 ? '' : 's'}`,
	);
	const failedCases = records.filter((record) => !record.passed);
	if (failedCases.length > 0) {
		lines.push('', 'failed cases:');
		for (const record of failedCases) {
			for (const [gate, verdict] of Object.entries(record.gates)) {
				if (!verdict.passed)
					lines.push(`  ${record.id} (line ${record.line}) ${gate}: ${cut(verdict.reason)}`);
			}
		}
	}
	lines.push(
		'',
		summary.holds
			? 'PASS: every threshold holds (exit 0)'
			: 'FAIL: a threshold does not hold (exit 3)',
	);
	return lines.join('\n');
}
