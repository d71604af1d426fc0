// A plan checked before any of it runs (issue #51): the calls left, each tool, each step's args, what a tool refuses.
import type { Tool } from '../../tools/tool';
import { placedProblems, type PlacedProblem } from '../../validation/validate';
import { checkToolCall, refusalBeforeRun, type ToolCallContext } from '../calls/execute-tool';
import { encodeToken } from './json-pointer';
import { stepLabel, type Plan } from './plan-reply';
import type { StepReference } from './references';

/** What a plan is checked against: the run's tools, its config and trusted text (egress), and the calls it has left. */
export interface PlanCheckContext
	extends Pick<ToolCallContext, 'tools' | 'config' | 'trustedText'> {
	/** max_tool_calls less the calls the run has made so far. */
	callsLeft: number;
}

/**
 * The first problem of a read plan (see readPlan), as a repair message naming the step and the fix; undefined when
 * the plan may run. Checked, in order: the plan's calls within the calls left, then step by step: the tool is one of
 * the run's, its args are valid against the tool's schema with each reference standing for any value (see
 * validWithReferences), and, for a step whose args hold no reference, what the tool refuses before running (egress).
 * A step with a reference is checked for egress when it runs, with its resolved args, by the one call path.
 */
export function checkPlan(plan: Plan, context: PlanCheckContext): string | undefined {
	const { steps } = plan;
	if (steps.length > context.callsLeft)
		return (
			`Your plan has ${steps.length} steps, but the run has ${context.callsLeft} tool calls left of max_tool_calls ` +
			`(${context.config.max_tool_calls}). Send a plan of at most ${context.callsLeft} steps. Nothing ran.`
		);
	for (const { step, tool: name, args } of steps) {
		const label = `${capital(stepLabel(step))} (${name})`;
		const references = plan.references.get(step) ?? [];
		const checked = checkToolCall(context.tools, name, args);
		let tool: Tool | undefined;
		if ('tool' in checked) tool = checked.tool;
		else if (checked.error.type === 'invalid_args' && references.length > 0) {
			tool = context.tools.get(name)!;
			const problem = problemBesideReferences(tool, args, references);
			if (problem !== undefined)
				return `${label}: ${name} args are invalid: ${problem}. Nothing ran; send the plan again with this step fixed.`;
		} else
			return `${label}: ${checked.error.message.replace(/\.$/, '')}. Nothing ran; send the plan again with this step fixed.`;
		if (references.length > 0) continue;
		const refused = refusalBeforeRun(context, tool, name, args);
		if (refused !== undefined)
			return `${label}: ${refused}. Nothing ran; send the plan again without this step, or with it fixed.`;
	}
	return undefined;
}

/**
 * Keywords whose failure at an object or array is decided by the values inside it: when one fails at a place that
 * holds a reference, some value of that reference might make it pass, and the errors of its branches elsewhere in
 * the value are then not the value's fault either. Such args are let through here and checked again when the step
 * runs, with the references resolved.
 */
const DECIDED_BY_VALUES = new Set([
	'anyOf',
	'oneOf',
	'not',
	'if',
	'contains',
	'uniqueItems',
	'enum',
	'const',
	'discriminator',
	'dependentSchemas',
	'dependencies',
	'unevaluatedProperties',
	'unevaluatedItems',
]);

/**
 * The schema's problems with `args` that no value of the references could remove, as `path: problem` lines; undefined
 * when there is none. The args are validated as written (each reference in its place, an object); a problem at or
 * below a reference is the reference's stand-in and dropped. A problem at a place above a reference is kept when its
 * keyword judges the place by its own shape (type, required, the names of its keys, its length), which the reference
 * cannot change; when its keyword judges the values inside (DECIDED_BY_VALUES), no problem is reported (lenient: the
 * resolved args are validated again before the step runs). A large value gets its first problem only (see placedProblems):
 * when that one is at a reference, the args are let through the same way.
 */
function problemBesideReferences(
	tool: Tool,
	args: Record<string, unknown>,
	references: readonly StepReference[],
): string | undefined {
	const checked = placedProblems(tool.parameters, args);
	if (checked.ok) return undefined;
	if (checked.problems.length === 0) return checked.issues.join('; ');
	const places = references.map(({ path }) =>
		path.map((key) => `/${encodeToken(String(key))}`).join(''),
	);
	const atOrBelow = (problem: PlacedProblem) =>
		places.some(
			(place) => problem.instancePath === place || problem.instancePath.startsWith(`${place}/`),
		);
	const above = (problem: PlacedProblem) =>
		places.some((place) => place.startsWith(`${problem.instancePath}/`));
	if (checked.problems.some((problem) => above(problem) && DECIDED_BY_VALUES.has(problem.keyword)))
		return undefined;
	const kept = checked.problems.filter((problem) => !atOrBelow(problem));
	if (kept.length === 0) return undefined;
	return [...new Set(kept.map((problem) => problem.line))].slice(0, 10).join('; ');
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
