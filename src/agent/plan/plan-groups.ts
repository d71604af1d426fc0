// A plan's steps in the groups they run in: read-only steps together, as a batch runs them; every other step alone.
import type { Tool } from '../../tools/tool';
import { hasSideEffects } from '../base/streaks';
import type { Plan } from './plan-reply';

/**
 * The plan's step numbers in running order, grouped: consecutive steps without side effects (as batches decide,
 * hasSideEffects) run together, unless a step reads a step of its own group (then it opens the next group); a step
 * with side effects runs alone. A step whose args hold a reference, of a tool that decides its side effects from
 * its args, counts as having them: what it does is known only once the references are resolved. An unknown tool
 * (checkPlan refuses it first) counts as having them too.
 */
export function groupSteps(plan: Plan, tools: ReadonlyMap<string, Tool>): number[][] {
	const groups: number[][] = [];
	let open: number[] | undefined;
	for (const { step, tool: name, args } of plan.steps) {
		const references = plan.references.get(step) ?? [];
		if (!readOnly(tools.get(name), args, references.length > 0)) {
			groups.push([step]);
			open = undefined;
			continue;
		}
		const readsOwnGroup =
			open !== undefined && references.some((reference) => open!.includes(reference.step));
		if (open === undefined || readsOwnGroup) {
			open = [step];
			groups.push(open);
		} else open.push(step);
	}
	return groups;
}

function readOnly(
	tool: Tool | undefined,
	args: Record<string, unknown>,
	hasReferences: boolean,
): boolean {
	if (tool === undefined) return false;
	if (typeof tool.sideEffects === 'function' && hasReferences) return false;
	return !changesThings(tool, args);
}

/**
 * Whether a call changes things, as plan mode reads it (hasSideEffects): args a tool's own side-effects function
 * cannot read (it throws) count as changing things, for planning and for grouping alike.
 */
export function changesThings(tool: Tool, args: Record<string, unknown>): boolean {
	try {
		return hasSideEffects(tool, args);
	} catch {
		return true;
	}
}
