// `audit verify` of a run with sub-agents (issue #52): each linked sub-agent row read, its link both ways and its chains checked.
import type { SubRun, TraceStep } from '../trace/types';
import type { AuditRecord } from './record';
import { verifyRecord, type VerifyReport } from './verify';

/** How verify reads a linked run: the stored run, or undefined when there is none with this id. */
export type ReadRun = (runId: string) => Promise<AuditRecord | undefined>;

type Mismatch = { part: string; detail: string } | undefined;

/** A sub-agent's call of a stored run: its step, its number in the step's batch (absent for one action), its run. */
export interface SubRunPlace {
	step: number;
	call?: number;
	sub: SubRun;
}

/** The sub-agent calls of a stored run's steps, in order, with their place. */
export function subRunsOf(steps: readonly TraceStep[]): SubRunPlace[] {
	return steps.flatMap((step) => [
		...(step.sub_run ? [{ step: step.step, sub: step.sub_run }] : []),
		...(step.calls ?? []).flatMap((call, index) =>
			call.sub_run ? [{ step: step.step, call: index + 1, sub: call.sub_run }] : [],
		),
	]);
}

const placeOf = ({ step, call }: { step: unknown; call?: unknown }) =>
	`step ${String(step)}${call !== undefined ? ` call ${String(call)}` : ''}`;

/**
 * The first sub-agent call of `record` whose linked run does not hold: the row its `sub_run.run_id` names is missing,
 * its trace_digest is not the one the parent's step recorded, it names another run or call as its parent, it does not
 * verify itself, or one of its own sub-agents' runs does not hold (checked the same way, each run once). The part
 * names the parent's step (`step 2 sub_run`, `step 3 call 2 sub_run`). A sub_run without a run_id (a parent that was
 * not audited when it ran) links nothing; the parent's trace chain covers the sub_run, run_id and digest included.
 */
export async function subRunMismatch(
	record: AuditRecord,
	read: ReadRun,
	seen: Set<string> = new Set([record.run_id]),
): Promise<Mismatch> {
	for (const place of subRunsOf(record.steps.map((entry) => entry.step))) {
		const { sub } = place;
		if (typeof sub.run_id !== 'string') continue;
		const part = `${placeOf(place)} sub_run`;
		const about = `the sub-agent ${String(sub.agent)}'s run ${sub.run_id}`;
		const fail = (why: string): Mismatch => ({ part, detail: `${about} ${why}` });
		if (seen.has(sub.run_id))
			return fail('is linked twice: a run is the sub-agent run of one call');
		seen.add(sub.run_id);
		const child = await read(sub.run_id);
		if (!child) return fail('is not in the audit database: its row was deleted, or never stored');
		if (child.trace_digest !== sub.trace_digest)
			return fail(
				`has trace_digest ${String(child.trace_digest)}, not the ${String(sub.trace_digest)} this step recorded: it is another run, or it was changed`,
			);
		const parent = child.parent_run;
		if (
			parent?.run_id !== record.run_id ||
			parent.step !== place.step ||
			parent.call !== place.call
		)
			return fail(
				`names ${parent ? `run ${String(parent.run_id)} ${placeOf(parent)}` : 'no run'} as the call it ran under, not run ${record.run_id} ${placeOf(place)}`,
			);
		const own = verifyRecord(child).first_mismatch;
		if (own) return fail(`does not verify: ${own.part}: ${own.detail}`);
		const nested = await subRunMismatch(child, read, seen);
		if (nested) return fail(`does not hold: ${nested.part}: ${nested.detail}`);
	}
	return undefined;
}

/**
 * `audit verify` of a stored run (see verifyRecord) and, when its chains hold, of the sub-agents' runs its steps
 * link to (see subRunMismatch): `linked_runs` counts those checked. A linked run that does not hold fails the
 * parent, naming its step.
 */
export async function verifyStoredRun(
	record: AuditRecord,
	read: ReadRun,
	expectedDigest?: string,
): Promise<VerifyReport> {
	const report = verifyRecord(record, expectedDigest);
	if (!report.ok) return report;
	const seen = new Set([record.run_id]);
	const mismatch = await subRunMismatch(record, read, seen);
	const linked = seen.size - 1;
	if (!mismatch) return linked > 0 ? { ...report, linked_runs: linked } : report;
	const { digest_covers: _covers, ...rest } = report;
	return { ...rest, ok: false, first_mismatch: mismatch };
}
