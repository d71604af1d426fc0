// `audit replay` and `audit fork` refuse rows that do not verify (issue #38): what they print, and the exit status.
import { recordMismatch, type RecordMismatch } from '../../replay';
import type { AuditRecord } from '../../audit/record';

/** Exit status of a replay or fork refused because a row does not verify, as `audit verify` exits on a change. */
export const NOT_VERIFIED = 3;

/** The CLI's fix for a refused row: the option is `--unverified` here. */
export const UNVERIFIED_FLAG_FIX =
	'Look at the change with agent-core audit verify --run ID; to use the row anyway, pass --unverified, which marks the result as unverified.';

/** One refused row: the run, and the part verify names. */
export interface RefusedRun {
	run_id: string;
	verified: false;
	first_mismatch: RecordMismatch;
}

/**
 * Prints a refusal: on stdout a JSON report naming each refused run and its part (as verify names them),
 * on stderr one line saying so; the caller exits NOT_VERIFIED with nothing asked, run or written.
 */
export function printRefusal(
	action: 'replay' | 'fork',
	runs: readonly RefusedRun[],
	selected: number,
	fix: string,
): void {
	const nothing = `nothing was ${action === 'fork' ? 'forked' : 'replayed'}`;
	const summary = `${runs.length} of ${selected} selected run${selected === 1 ? '' : 's'} ${runs.length === 1 ? 'does' : 'do'} not verify: ${nothing}`;
	process.stdout.write(`${JSON.stringify({ refused: summary, runs, fix }, null, 2)}\n`);
	const named = runs.map((run) => `run ${run.run_id} (${run.first_mismatch.part})`).join(', ');
	process.stderr.write(
		`agent-core: audit ${action}: ${named} ${runs.length === 1 ? 'does' : 'do'} not verify, so ${nothing}. ${fix}\n`,
	);
}

/**
 * Verifies every selected row before any is used (one bad row stops them all, each bad one named): true,
 * with the refusal printed, when any does not verify.
 */
export function refusedUnverified(
	action: 'replay' | 'fork',
	records: readonly AuditRecord[],
): boolean {
	const refused = records.flatMap((record): RefusedRun[] => {
		const mismatch = recordMismatch(record);
		return mismatch
			? [{ run_id: String(record.run_id), verified: false, first_mismatch: mismatch }]
			: [];
	});
	if (refused.length > 0) printRefusal(action, refused, records.length, UNVERIFIED_FLAG_FIX);
	return refused.length > 0;
}
