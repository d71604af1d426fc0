// `agent-core audit replay --guardrails FILE` (issue #50): guardrails tried on past audited runs, reported for people or as JSON.
import { ConfigError } from '../../core/config-error';
import { AgentCoreError } from '../../core/agent-core-error';
import {
	replayGuardrails,
	type GuardrailReplayReport,
	type ReplayedDecision,
	type RunGuardrailsReport,
	type WouldEnd,
} from '../../replay/guardrails';
import { shownFileName } from '../../trace/shown-file-name';
import { UsageError, readJsonFile } from '../flags';
import { NOT_VERIFIED } from './audit-refusal';

/** The flags a guardrail replay cannot take: it asks no model and runs no tool. */
export const NOT_WITH_GUARDRAILS = ['files', 'unverified', 'run-read-only'] as const;

/** Runs the command; its exit status: 0, or NOT_VERIFIED when a selected row does not verify (nothing checked). */
export async function guardrailsReplayCommand(
	values: Record<string, string | undefined>,
	limit: number | undefined,
	json: boolean,
): Promise<number> {
	const file = values.guardrails!;
	const guardrails = readJsonFile(file, '--guardrails');
	let report: GuardrailReplayReport;
	try {
		report = await replayGuardrails({
			postgres: values.postgres!,
			guardrails,
			...(values.run !== undefined ? { run: values.run } : { since: values.since! }),
			...(values.workflow !== undefined ? { workflow: values.workflow } : {}),
			...(limit !== undefined ? { limit } : {}),
		});
	} catch (error) {
		throw flagged(error, file);
	}
	process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : readable(report));
	if (report.unverified.length === 0) return 0;
	const named = report.unverified
		.map((run) => `run ${plain(run.run_id)} (${plain(run.first_mismatch.part)})`)
		.join(', ');
	const one = report.unverified.length === 1;
	process.stderr.write(
		`agent-core: audit replay --guardrails: ${named} ${one ? 'does' : 'do'} not verify, so no run was checked. ` +
			'Look at the change with agent-core audit verify --run ID.\n',
	);
	return NOT_VERIFIED;
}

/** The library's errors under the CLI's names: the guardrails file's entry and field, `--run`, `--postgres`. */
function flagged(error: unknown, file: string): unknown {
	if (error instanceof ConfigError && error.key.startsWith('guardrails'))
		return new AgentCoreError(
			`--guardrails: ${shownFileName(file)}: ${error.key.replace(/^guardrails/, 'entry ')}: ${error.message}`,
			{ field: error.key, fix: error.fix, fixInMessage: error.messageSaysFix },
		);
	if (error instanceof AgentCoreError && ['run', 'postgres', 'since'].includes(error.field))
		return new UsageError(`--${error.field}: ${error.message}`);
	return error;
}

/** Stored text as a terminal shows it: printable ASCII, anything else escaped (a forged id cannot steer the terminal). */
const plain = (text: string) =>
	text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const where = (one: { step: number; tool?: string; call?: number }) =>
	`step ${one.step}${one.tool !== undefined ? ` (${plain(one.tool)}${one.call !== undefined ? `, call ${one.call}` : ''})` : ''}`;
const who = (one: { by: string; name: string }) =>
	one.by === 'guardrail' ? `guardrail "${plain(one.name)}"` : `hook "${plain(one.name)}"`;
const VERB = {
	block: 'would block',
	deny: 'would deny',
	redact: 'would redact',
	modify: 'would modify',
};

function decisionLine(one: ReplayedDecision): string {
	const after = one.after_divergence ? ' (after the run would already have gone otherwise)' : '';
	const why = one.reason !== undefined ? `: "${plain(one.reason)}"` : '';
	return `    ${where(one)}, ${one.point}: ${who(one)} ${VERB[one.decision]}${why}${after}\n`;
}

function endLine(end: WouldEnd): string {
	const what =
		end.how === 'blocked'
			? `would have ended "guardrail": ${who(end)} blocks at ${end.point}`
			: `would have gone otherwise: ${who(end)} denies the call at ${end.point}`;
	return `  ENDS DIFFERENTLY — ${what}, ${where(end)}\n`;
}

function runLines(run: RunGuardrailsReport): string {
	const origin = run.workflow_id !== undefined ? `workflow ${plain(run.workflow_id)}, ` : '';
	const steps = `${run.recorded.steps} step${run.recorded.steps === 1 ? '' : 's'}`;
	const head = `run ${plain(run.run_id)} (${origin}${run.created_at}): recorded "${run.recorded.finish_reason}" after ${steps}\n`;
	const { checked } = run;
	const seen =
		`  checked: ${checked.input ? 'the input, ' : ''}${checked.tool_calls} call(s), ` +
		`${checked.observations} observation(s), ${checked.answers} answer(s)\n`;
	if (run.decisions.length === 0)
		return `${head}${seen}  nothing tripped: the run would have gone as recorded\n`;
	return `${head}${seen}${run.would_end ? endLine(run.would_end) : ''}${run.decisions.map(decisionLine).join('')}`;
}

/** The report for people: one paragraph per run, then the totals. Never a matched text: names, points and places. */
function readable(report: GuardrailReplayReport): string {
	if (report.unverified.length > 0)
		return `${report.unverified.length} selected run(s) do not verify, so no run was checked:\n${report.unverified
			.map(
				(run) => `  run ${run.run_id}: ${run.first_mismatch.part}: ${run.first_mismatch.detail}\n`,
			)
			.join('')}`;
	const { total } = report;
	const runs = report.runs.map(runLines).join('\n');
	const differ = total.ends_differently.length;
	return (
		`${runs}${runs ? '\n' : ''}` +
		`${total.runs} run(s) checked against ${report.tried.guardrails} guardrail(s), no model or tool called: ` +
		`${total.tripped} tripped (${total.decisions} decision(s)), ${differ} would have ended differently` +
		`${differ ? ` (${plain(total.ends_differently.join(', '))})` : ''}\n`
	);
}
