// A person's decisions on a paused batch (issue #42), by call: read from the resume request and checked before the state is used.
import type { Tool } from '../../tools/tool';
import { PERSON_EDITED_NOTICE } from '../../trace/notices';
import type { TraceStep } from '../../trace/types';
import { InputError } from '../../core/input-error';
import { checkToolCall } from './execute-tool';
import type { ApprovalDecision, CallDecision } from '../pause/decision';
import type { BatchDecisions, BatchState } from '../pause/calls-state';

/**
 * The decisions by call index: a single decision is the waiting call's; `calls` decides several by number. A
 * durable run's checkpoint inside a step's calls goes on without any.
 */
export function batchDecisions(
	batch: BatchState,
	decision: ApprovalDecision | undefined,
): BatchDecisions {
	const decisions: BatchDecisions = new Map();
	if (decision === undefined) return decisions;
	if (!('calls' in decision)) {
		if (batch.waiting !== undefined) decisions.set(batch.waiting, decision);
		return decisions;
	}
	for (const [number, one] of Object.entries(decision.calls))
		decisions.set(Number(number) - 1, one);
	return decisions;
}

/**
 * A resumed step's decisions, noted on its entry: an edit says so, and one call that runs is shown exactly as
 * it runs (the trace's copy was redacted in the state).
 */
export function resumedDecisions(
	entry: TraceStep,
	batch: BatchState,
	decision: ApprovalDecision | undefined,
): BatchDecisions {
	const decisions = batchDecisions(batch, decision);
	const single = batch.form === 'action';
	if ([...decisions.values()].some((one) => 'edit' in one))
		(entry.notices ??= []).push(
			`${PERSON_EDITED_NOTICE} ${single ? 'before the call' : 'of a call before it'} ran`,
		);
	if (single && !('deny' in (decisions.get(0) ?? {}))) entry.action = { ...batch.calls[0] };
	return decisions;
}

/**
 * Refuses, naming the field, a decision a paused batch cannot take: a call number that is not a call of the
 * batch, one that already ran or was settled, one before the call the run waits at, one whose tool needs no
 * approval (a person may not change a call nobody asked them about), no decision for the waiting call, or
 * edited arguments the tool's schema refuses. Edits replace the model's arguments in `batch`.
 */
export function checkBatchDecision(
	batch: BatchState,
	decision: ApprovalDecision,
	tools: ReadonlyMap<string, Tool>,
	approvalRequired: readonly string[],
): void {
	const waiting = batch.waiting ?? 0;
	const named = 'calls' in decision ? decision.calls : { [String(waiting + 1)]: decision };
	if (!(String(waiting + 1) in named))
		throw new InputError(
			'decision.calls',
			`the run waits at call ${waiting + 1} (${batch.calls[waiting].tool}): give its decision`,
		);
	for (const [number, one] of Object.entries(named)) {
		const field = 'calls' in decision ? `decision.calls.${number}` : 'decision';
		const index = Number(number) - 1;
		if (!/^[1-9][0-9]*$/.test(number) || index >= batch.calls.length)
			throw new InputError(
				field,
				`the paused batch has calls 1 to ${batch.calls.length}; "${number}" is not one of them`,
			);
		if (batch.settled[index] !== undefined || index < waiting)
			throw new InputError(
				field,
				`call ${number} of the paused batch was already settled before the pause; decide only calls from ${waiting + 1} on`,
			);
		// Only what a person is asked about: the waiting call, and calls whose tool needs approval.
		if (
			index !== waiting &&
			!batch.children?.[index] &&
			!approvalRequired.includes(batch.calls[index].tool)
		)
			throw new InputError(
				field,
				`call ${number} (${batch.calls[index].tool}) does not need approval: it runs as the model ` +
					'asked; decide only the calls pending_action.batch marks needs_approval',
			);
		checkCallDecision(field, one);
		// A sub-agent's pause (issue #52): the edit is for the call inside it, which the sub-agent checks as it resumes.
		if ('edit' in one && !batch.children?.[index]) {
			const checked = checkToolCall(tools, batch.calls[index].tool, one.edit);
			if ('error' in checked)
				throw new InputError(
					`${field}.edit`,
					`the edited arguments are refused: ${checked.error.message}`,
				);
		}
	}
	for (const [index, one] of batchDecisions(batch, decision))
		if ('edit' in one && !batch.children?.[index])
			batch.calls[index] = { ...batch.calls[index], args: one.edit };
}

/** Refuses anything but one of the three decisions, naming `field`; returns the decision alone. */
export function checkCallDecision(field: string, value: unknown): CallDecision {
	const given = (value ?? {}) as Record<string, unknown>;
	if (given.approve === true && !('deny' in given) && !('edit' in given)) return { approve: true };
	if (typeof given.deny === 'string' && !('edit' in given)) return { deny: given.deny };
	const { edit } = given;
	if (typeof edit === 'object' && edit !== null && !Array.isArray(edit) && !('deny' in given))
		return { edit: edit as Record<string, unknown> };
	throw new InputError(
		field,
		`${field} must be one of {"approve": true}, {"deny": "<reason>"} or {"edit": {<new arguments>}}`,
	);
}
