// Replay and fork trust nothing they read (issue #38): a stored run's record chain is verified before it is used.
import type { AuditRecord } from '../audit/record';
import { malformedPart } from '../audit/record-shape';
import { verifyRecord } from '../audit/verify';
import { AgentCoreError } from '../core/agent-core-error';
import type { OptionNames } from '../core/known-options';

/** The first part of a stored run that did not verify, as `audit verify` names it. */
export interface RecordMismatch {
	part: string;
	detail: string;
}

/** How a replay or fork treats its stored run: `unverified` lets a run that does not verify be used, its result marked. */
export interface RecordTrustOptions {
	/** Use a stored run whose record chain does not verify (`--unverified`); the result names the part that failed. */
	unverified?: boolean;
}

/** replayRecord's option names (counterfactualReplay and forkAuditedRun take `unverified` among theirs). */
export const RECORD_TRUST_OPTIONS = { unverified: true } satisfies OptionNames<RecordTrustOptions>;

/** The fix an unverified row's refusal gives: the option is named `unverified`, as the library takes it (the CLI's `--unverified`). */
const UNVERIFIED_FIX =
	'Look at the change with agent-core audit verify; to use the row anyway, pass unverified, which marks the result as unverified.';

/** A malformed row cannot be read as a run at all, so `unverified` does not let it through. */
const MALFORMED_FIX =
	'A malformed row cannot be replayed or forked, not even with unverified: look at it with agent-core audit verify.';

/**
 * A stored run that does not verify was given to replay or fork without `unverified`: nothing was asked
 * or run. `runId` and `mismatch` say which run and which part, as `audit verify` names it.
 */
export class UnverifiedRecordError extends AgentCoreError {
	override readonly name = 'UnverifiedRecordError';
	readonly runId: string;
	readonly mismatch: RecordMismatch;

	constructor(runId: string, mismatch: RecordMismatch, malformed = false) {
		super(`run ${runId} does not verify (${mismatch.part}): ${mismatch.detail}`, {
			field: 'unverified',
			fix: malformed ? MALFORMED_FIX : UNVERIFIED_FIX,
		});
		this.runId = runId;
		this.mismatch = mismatch;
	}
}

/** The first part of the run that does not verify (verifyRecord, the check `audit verify` makes), or undefined when it verifies. */
export function recordMismatch(record: AuditRecord): RecordMismatch | undefined {
	const report = verifyRecord(record);
	return report.ok ? undefined : report.first_mismatch;
}

/**
 * Verifies a stored run before replay or fork uses it. A run that verifies: undefined. One that does not:
 * throws UnverifiedRecordError, or with `unverified` returns the mismatch, for the result to carry. A
 * malformed row (verify names its part) is refused even with `unverified`: it is not a run to replay.
 */
export function trustRecord(
	record: AuditRecord,
	unverified: boolean | undefined,
): RecordMismatch | undefined {
	const mismatch = recordMismatch(record);
	if (!mismatch) return undefined;
	const malformed = malformedPart(record) !== undefined;
	if (unverified !== true || malformed)
		throw new UnverifiedRecordError(String(record.run_id), mismatch, malformed);
	return mismatch;
}
