// The settings of which tools a run may call and which wait for a person (whitelist, approval, a paused
// run's age): rows of the settings table (settings.ts spreads them in), declared once here.
import { USED_STATE_MEMORY_DAYS } from '../run-state/signed-state';
import * as check from './setting-checks';
import type { Setting } from './setting-types';

export const TOOL_ACCESS_SETTINGS = {
	/** Tools the model may see and call. */
	allowed_tools: {
		default: [],
		check: check.toolNames,
		meaning: 'the whitelist',
		panel: {
			collection: 'top',
			name: 'allowedTools',
			displayName: 'Allowed Tools',
			type: 'multiOptions',
			builtByNode: true,
		},
	},
	/** Allowed tools whose calls wait for a person: the run pauses (`awaiting_approval`) with a signed run state. */
	approval_required: {
		default: [],
		check: check.toolNames,
		meaning:
			'allowed tools whose calls wait for a person → `awaiting_approval` with `pending_action` and `run_state` (see *Approval of tool calls*)',
		panel: {
			collection: 'top',
			name: 'approvalTools',
			displayName: 'Tools Needing Approval',
			type: 'multiOptions',
			shownWith: 'Require Approval',
			builtByNode: true,
		},
	},
	/** A paused run's state older than this many days is refused on resume (at most 30: used states are remembered 30 days). */
	run_state_max_age_days: {
		default: 7,
		check: check.withMessage(
			check.decimal(0.001, USED_STATE_MEMORY_DAYS),
			(key) =>
				`${key} must be a number of days from 0.001 to ${USED_STATE_MEMORY_DAYS}: a used state is remembered ` +
				`${USED_STATE_MEMORY_DAYS} days, so an older one could be resumed again`,
		),
		meaning:
			"a paused run's `run_state` older than this is refused on resume (exit 2 / `RunStateError` naming " +
			"`run_state`); 0.001 to 30, since a used state is remembered 30 days. The resuming side's config " +
			'decides, and changing it does not invalidate paused runs.',
		panel: {
			collection: 'top',
			name: 'runStateMaxAgeDays',
			displayName: 'Run State Max Age (Days)',
			type: 'number',
			typeOptions: { minValue: 0.001, maxValue: USED_STATE_MEMORY_DAYS, numberPrecision: 3 },
			shownWith: 'Require Approval',
			description:
				'A paused run resumed later than this is refused (its state could have been copied from a log); at most 30 days, as long as a used state is remembered',
		},
	},
} satisfies Record<string, Setting>;
