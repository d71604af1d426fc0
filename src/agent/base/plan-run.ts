// A plan as a run carries it (issue #51): its steps, how each stands, what each returned; kept in checkpoints and paused states.

/** One step of a plan, as the model (or a person editing it) wrote it. */
export interface PlanStep {
	step: number;
	description: string;
	tool: string;
	args: Record<string, unknown>;
}

/** How a step of the plan stands: not run (yet), ran, or failed (its error in `errors`). */
export type PlanStepStatus = 'pending' | 'done' | 'failed';

/**
 * The plan the run executes: its steps in the groups they run in, the next group, each step's status, error and
 * observation (what references read), and where it stands — `running` its steps, `answering` once every step
 * settled (the model writes the answer), `replanning` after a failed step under on_step_failure `replan`,
 * `awaiting_approval` while a person decides on it, or `rejected` once a person denied it. `planned_at` is the trace step whose reply sent it; `entries`
 * counts the trace steps the plan's groups took in the whole run (they are not model turns: max_steps does not
 * count them); `earlier` keeps the plans a replan replaced, each with how its steps stood.
 */
export interface PlanRun {
	steps: PlanStep[];
	groups: number[][];
	next: number;
	status: Record<number, PlanStepStatus>;
	errors: Record<number, string>;
	observations: Record<number, string>;
	phase: 'awaiting_approval' | 'running' | 'answering' | 'replanning' | 'rejected';
	/** A denied plan: the person's reason. */
	rejection?: string;
	planned_at: number;
	entries: number;
	earlier?: Array<{
		steps: PlanStep[];
		status: Record<number, PlanStepStatus>;
		errors?: Record<number, string>;
	}>;
	/** Who approved the plan and when (approve_plan), or that a person edited it. */
	approval?: { at: string; by?: string; edited?: true; denied?: true };
}

/** Whether the run is planning: in plan mode with no plan yet, or asked for a new one. */
export const planning = (mode: string, plan: PlanRun | undefined) =>
	mode === 'plan' && (plan === undefined || plan.phase === 'replanning');
