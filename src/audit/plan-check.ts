// A planned run's trace held against its recorded plan (issue #51): every call a plan's steps made is a step of that plan.
import { PERSON_EDITED_NOTICE } from '../trace/notices';
import { isWellFormedReference } from '../trace/plan-reference';
import type { RunPlan, TraceStep } from '../trace/types';
import { canonicalJson } from '../validation/canonical-json';
import type { AuditRecord } from './record';

type Mismatch = { part: string; detail: string } | undefined;
type Call = { tool: string; args: unknown };
type PlannedStep = { step: number; tool: string; args: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** The hook points whose `modify` or `redact` changed a call's args before it ran (the trace keeps what ran). */
const CHANGED_ARGS = new Set(['modify', 'redact']);

/**
 * The first trace step that ran a call its plan does not hold, or that ran a plan nobody approved: each trace step
 * with `plan_steps` is held against the plan it ran — the record's `plan.replaced` in order, then `plan`, one for
 * each trace step that sent a plan — and each of its calls must be, in order, the tool of one of those plan steps
 * with the same args, as the trace records them (redacted). A reference in the plan (`{"$step", "pointer"}`) stands
 * for the value it read (the earlier step's observation, covered by the trace chain), and args a hook, a guardrail
 * or a person changed before the call ran (the step's `guardrails` or notice says so) are not compared. With
 * `approve_plan` in the recorded config, the last plan's steps ran only with an approval that is not a denial.
 */
export function planMismatch(record: AuditRecord): Mismatch {
	const trace = record.steps.map((entry) => entry.step);
	const executed = trace.filter((step) => step.plan_steps !== undefined);
	if (executed.length === 0) return undefined;
	const plan = record.plan as RunPlan | undefined;
	if (!isObject(plan) || !Array.isArray(plan.steps))
		return atStep(executed[0], 'ran steps of a plan, but the record holds no plan');
	const plans = [...(Array.isArray(plan.replaced) ? plan.replaced : []), plan];
	let index = -1;
	for (const step of trace) {
		if (step.plan !== undefined) index++;
		if (step.plan_steps === undefined) continue;
		const current = plans[index];
		if (!isObject(current) || !Array.isArray(current.steps))
			return atStep(step, `ran steps of plan ${index + 1}, which the record does not hold`);
		if (current === plan && record.config?.approve_plan === true) {
			const approval = plan.approval;
			if (!isObject(approval) || approval.denied)
				return atStep(
					step,
					`ran steps of a plan ${approval?.denied ? 'a person denied' : 'no person approved'}, and the run's config asks for approval (approve_plan)`,
				);
		}
		const problem = callsProblem(step, current.steps as unknown[]);
		if (problem) return atStep(step, problem);
	}
	return undefined;
}

const atStep = (step: TraceStep, why: string): Mismatch => ({
	part: `step ${step.step}`,
	detail: `step ${step.step} ${why}: the trace or the plan was changed after the run`,
});

/** Why the step's calls are not its plan steps', or undefined. */
function callsProblem(step: TraceStep, planSteps: readonly unknown[]): string | undefined {
	const numbers = Array.isArray(step.plan_steps) ? step.plan_steps : [];
	const planned: PlannedStep[] = [];
	for (const number of numbers) {
		const found = planSteps.find(
			(candidate): candidate is PlannedStep => isObject(candidate) && candidate.step === number,
		);
		if (!found)
			return `ran plan step ${JSON.stringify(number)}, which the recorded plan (steps 1 to ${planSteps.length}) does not contain`;
		planned.push(found);
	}
	const calls: Call[] = step.action ? [step.action] : (step.calls ?? []);
	// Each call, in order, is one of the step's plan steps, in order (a step that failed before running has no call).
	let next = 0;
	for (const [index, call] of calls.entries()) {
		const free = argsChanged(step, index, calls.length);
		while (next < planned.length && !sameCall(planned[next], call, free)) next++;
		if (next === planned.length)
			return (
				`ran ${String(call.tool)} ${canonicalJson(call.args ?? null).slice(0, 300)} as plan step ` +
				`${numbers.join(', ')}, which the recorded plan does not contain (${planned
					.map(
						({ step: number, tool, args }) =>
							`step ${number}: ${tool} ${canonicalJson(args ?? null).slice(0, 200)}`,
					)
					.join('; ')})`
			);
		next++;
	}
	return undefined;
}

/** Whether a hook, a guardrail or a person changed the args of the step's call `index` before it ran. */
function argsChanged(step: TraceStep, index: number, calls: number): boolean {
	if (step.notices?.some((notice) => String(notice).startsWith(PERSON_EDITED_NOTICE))) return true;
	return (step.guardrails ?? []).some(
		(decision) =>
			decision.point === 'before_tool' &&
			CHANGED_ARGS.has(decision.decision) &&
			(calls === 1 || decision.call === index + 1),
	);
}

const sameCall = (planned: PlannedStep, call: Call, anyArgs: boolean): boolean =>
	planned.tool === call.tool && (anyArgs || sameValue(planned.args, call.args));

/** A plan's value against the value the call ran with: a reference matches any value, anything else itself. */
function sameValue(planned: unknown, ran: unknown): boolean {
	if (isWellFormedReference(planned)) return true;
	if (Array.isArray(planned))
		return (
			Array.isArray(ran) &&
			ran.length === planned.length &&
			planned.every((item, index) => sameValue(item, ran[index]))
		);
	if (isObject(planned)) {
		if (!isObject(ran)) return false;
		const keys = Object.keys(planned);
		return (
			keys.length === Object.keys(ran).length &&
			keys.every((key) => key in ran && sameValue(planned[key], ran[key]))
		);
	}
	return canonicalJson(planned ?? null) === canonicalJson(ran ?? null);
}
