// The plan's steps at execution (issue #51): the next group's references resolved and checked, its calls through the
// one call path, each step's status, and what a failed step does (on_step_failure).
import type { TraceStep } from '../../trace/types';
import type { StepOutcome } from '../base/step-outcome';
import type { PlanRun } from '../base/plan-run';
import { checkToolCall, refusalBeforeRun } from '../calls/execute-tool';
import { newBatch, stepCalls, type BatchDecisions, type BatchState, type CallsRun } from '../calls';
import { answerOnlySystem, batchObservationMessage } from '../protocol/prompt';
import { resolveArgs } from './resolve-args';
import { referencesIn } from './references';
import { stepLabel } from './plan-reply';

/** What a group that paused (a person's decision, a durable run's checkpoint) goes on with. */
export interface ResumedGroup {
	batch: BatchState;
	decisions?: BatchDecisions;
}

/**
 * Runs the plan's next group as the trace step `entry` (no model call): each step's args with its references
 * resolved from the observations of the steps before it, checked again (whitelist, schema, egress) — a step that
 * fails here fails alone, as does one that reads a failed or skipped step — then the steps that pass through the
 * one call path, together when they only read. A limit, a timeout, a guardrail or a pause there ends the step as
 * it ends any step. Then each step's status; a failed step stops the run (`plan_step_failed`), is passed over, or
 * asks for a new plan, as on_step_failure says. After the last group the model gets every step's result and is
 * asked for the answer.
 */
export async function runPlanGroup(
	run: CallsRun,
	entry: TraceStep,
	stateSecret: string | undefined,
	resumed?: ResumedGroup,
): Promise<StepOutcome> {
	const plan = run.ledger.plan!;
	const group = plan.groups[plan.next];
	entry.plan_steps = [...group];
	const batch = resumed?.batch ?? readyBatch(run, plan, group);
	if (batch) {
		// One step reads as one action does: its call in the trace's `action`.
		if (batch.form === 'action' && !resumed) entry.action = { ...batch.calls[0] };
		const outcome = await stepCalls(run, entry, batch, stateSecret, resumed?.decisions);
		if (outcome.next === 'finish') return outcome;
		settleSteps(plan, batch);
	}
	plan.next++;
	return afterGroup(run, entry, plan, group);
}

/** The group's steps that may run, as a batch (one step: the `action` form); undefined when none may. */
function readyBatch(
	run: CallsRun,
	plan: PlanRun,
	group: readonly number[],
): BatchState | undefined {
	const { context } = run;
	const ready: Array<{ step: number; tool: string; args: Record<string, unknown> }> = [];
	for (const number of group) {
		const { tool, args } = plan.steps[number - 1];
		const failedRead = readsFailed(plan, args);
		const resolved = failedRead ? { problem: failedRead } : resolveArgs(args, plan.observations);
		if ('problem' in resolved) {
			fail(plan, number, resolved.problem);
			continue;
		}
		const checked = checkToolCall(context.tools, tool, resolved.args);
		const refused =
			'tool' in checked
				? refusalBeforeRun(context, checked.tool, tool, resolved.args)
				: checked.error.message;
		if (refused !== undefined) {
			fail(plan, number, refused);
			continue;
		}
		ready.push({ step: number, tool, args: resolved.args });
	}
	if (ready.length === 0) return undefined;
	const batch = newBatch(ready, ready.length === 1 ? 'action' : undefined);
	batch.plan = ready.map(({ step }) => step);
	// A person approved the plan: its steps' calls need no second approval (approval_required).
	if (plan.approval) batch.approved = true;
	return batch;
}

/** A step that reads a step that failed fails too (on_step_failure `skip`), naming it. */
function readsFailed(plan: PlanRun, args: Record<string, unknown>): string | undefined {
	const found = referencesIn(args);
	if ('problem' in found) return found.problem;
	const failed = found.references.find(({ step }) => plan.status[step] === 'failed');
	return failed && `it reads ${stepLabel(failed.step)}, which failed`;
}

/** Each step of the batch as it settled: its observation (what later references read), or its error. */
function settleSteps(plan: PlanRun, batch: BatchState): void {
	const steps = batch.plan ?? [];
	const texts: string[] = [];
	for (const [index, number] of steps.entries()) {
		const settled = batch.settled[index];
		if (settled === undefined) continue;
		if (settled.kind === 'same') {
			const as = steps[settled.as];
			plan.status[number] = plan.status[as];
			if (plan.status[as] === 'done') plan.observations[number] = texts[settled.as];
			else plan.errors[number] = plan.errors[as];
			texts.push(texts[settled.as]);
			continue;
		}
		texts.push(settled.text);
		if (settled.kind === 'ran' && settled.error) fail(plan, number, settled.error.message);
		else if (settled.kind === 'denied' || settled.kind === 'limit')
			fail(plan, number, settled.text);
		else {
			plan.status[number] = 'done';
			plan.observations[number] = settled.text;
		}
	}
}

function fail(plan: PlanRun, step: number, message: string): void {
	plan.status[step] = 'failed';
	plan.errors[step] = message;
}

/**
 * After a group: a failed step under `stop` ends the run; under `replan` the model gets every result so far and
 * is asked for a new plan; otherwise the next group runs, or, after the last, the model gets every result and
 * is asked for the answer.
 */
function afterGroup(
	run: CallsRun,
	entry: TraceStep,
	plan: PlanRun,
	group: readonly number[],
): StepOutcome {
	const { on_step_failure } = run.context.config;
	const failed = group.filter((number) => plan.status[number] === 'failed');
	const first = failed[0];
	if (first !== undefined && on_step_failure === 'stop') {
		const { tool } = plan.steps[first - 1];
		const detail = `${stepLabel(first)} of the plan (${tool}) failed: ${plan.errors[first]}`;
		entry.error ??= { type: 'tool_error', message: detail };
		return { next: 'finish', reason: 'plan_step_failed', detail };
	}
	if (first !== undefined && on_step_failure === 'replan') {
		plan.phase = 'replanning';
		const { tool } = plan.steps[first - 1];
		tellModel(
			run,
			plan,
			`${capital(stepLabel(first))} (${tool}) failed. Send a new plan, {"type":"plan","steps":[…]}, for the ` +
				'work that is left: number its steps from 1 (references read only its own steps; take values from the ' +
				'results above as they are), or send the final answer.',
		);
		return { next: 'continue' };
	}
	if (plan.next < plan.groups.length) return { next: 'continue' };
	plan.phase = 'answering';
	// The answer call needs neither the tools nor the plan form: its system message says only the answer's form.
	const [system] = run.ledger.conversation;
	if (system?.role === 'system')
		system.content = answerOnlySystem(system.content, run.context.config.output_schema);
	tellModel(
		run,
		plan,
		'Those are the results of the plan (call n is step n). Reply with the final answer, {"type":"final","answer":…}.',
	);
	return { next: 'continue' };
}

/**
 * One message with every step's result, in step order (so `call n` is step n, as batchObservationMessage heads
 * them; a step that did not run says why), then what to reply: the model's next turn is its first since the plan.
 */
function tellModel(run: CallsRun, plan: PlanRun, then: string): void {
	const results = plan.steps.map(({ step, tool }) => ({
		tool,
		text:
			plan.status[step] === 'done'
				? plan.observations[step]
				: plan.status[step] === 'failed'
					? `Error: ${plan.errors[step]}`
					: 'not run',
	}));
	const { observation_max_len } = run.context.config;
	const message = `${batchObservationMessage(results, observation_max_len)} ${then}`;
	run.ledger.conversation.push({ role: 'user', content: message });
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
