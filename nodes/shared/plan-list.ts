// A plan as a chat shows it (issue #51): one numbered line per step, what it does and with which tool.

/** One step of a plan as a list shows it: its number, its tool, and what it does. */
export interface PlanLine {
	step: number;
	tool: string;
	text: string;
}

/** "1. Find the customer (find_customer)", one line per step in order, each kept on one line whatever its text holds. */
export function planList(steps: readonly PlanLine[]): string {
	return steps
		.map(({ step, tool, text }) => `${step}. ${text.replace(/\s+/g, ' ').trim()} (${tool})`)
		.join('\n');
}

/** The steps of the plan a paused run waits on (`pending_plan`), or undefined when it waits on a call or did not pause. */
export function pendingPlanLines(result: object): PlanLine[] | undefined {
	const pending = (result as { pending_plan?: { steps?: unknown } }).pending_plan;
	if (!Array.isArray(pending?.steps)) return undefined;
	return (pending.steps as Array<{ step: number; tool: string; description: string }>).map(
		({ step, tool, description }) => ({ step, tool, text: description }),
	);
}
