// A planned run's spans (issue #51): one `plan` span per plan the run executed, holding the tool spans of its steps.
import type { Attributes, AttributeValue, Context, Span, Tracer } from '@opentelemetry/api';
import type { AgentResult, TraceStep } from '../trace/types';

type Clean = (attributes: Record<string, AttributeValue | undefined>) => Attributes;

/** The plan being traced: its span, the context its steps' tool spans are children of, its steps' tools by number. */
export interface OpenPlan {
	span: Span;
	context: Context;
	tools: Map<number, string>;
}

/**
 * The `plan` span of a step whose reply sent a plan, from the end of its model call: how many steps the plan has,
 * and for the plan the run kept (the output's `plan`) how its steps stood and how a person decided on it
 * (`approved`, `edited`, `denied`; absent without approve_plan) — never who, nor a step's args. A plan a replan
 * replaced says so (in a sub-agent's run, whose kept plan is not recorded, neither is said).
 */
export function startPlanSpan(
	tracer: Tracer,
	parent: Context,
	step: TraceStep,
	start: number,
	/** The run's output, for the plan it kept; undefined for a sub-agent's run, whose kept plan is not recorded. */
	result: Pick<AgentResult, 'plan'> | undefined,
	clean: Clean,
	otel: typeof import('@opentelemetry/api'),
): OpenPlan {
	const kept = result?.plan?.planned_at === step.step ? result.plan : undefined;
	const count = (status: string) => kept?.steps.filter((one) => one.status === status).length;
	const approval = kept?.approval;
	const span = tracer.startSpan(
		'plan',
		{
			kind: otel.SpanKind.INTERNAL,
			startTime: new Date(start),
			attributes: clean({
				'agent_core.step': step.step,
				'agent_core.plan.steps': step.plan?.length,
				'agent_core.plan.steps_done': count('done'),
				'agent_core.plan.steps_failed': count('failed'),
				'agent_core.plan.approval': approval
					? approval.denied
						? 'denied'
						: approval.edited
							? 'edited'
							: 'approved'
					: undefined,
				'agent_core.plan.replaced': kept || !result ? undefined : true,
			}),
		},
		parent,
	);
	if (count('failed'))
		span.setStatus({ code: otel.SpanStatusCode.ERROR, message: 'plan_step_failed' });
	// The plan as it ran: a person's edit (the kept plan) over the model's (the step's).
	const steps = kept?.steps ?? step.plan ?? [];
	const tools = new Map(steps.map(({ step: number, tool }) => [number, tool]));
	return { span, context: otel.trace.setSpan(parent, span), tools };
}

/**
 * The plan step number of each call of a step that ran a plan's steps, by call index: its calls are its
 * `plan_steps` in order, less the steps that failed before running (matched by tool); undefined for any other step.
 */
export function planStepsOfCalls(
	step: TraceStep,
	tools: ReadonlyMap<number, string> | undefined,
): Array<number | undefined> | undefined {
	const numbers = step.plan_steps;
	if (!numbers) return undefined;
	const calls = step.action ? [step.action] : (step.calls ?? []);
	if (calls.length === numbers.length) return [...numbers];
	let next = 0;
	return calls.map(({ tool }) => {
		while (next < numbers.length && tools?.get(numbers[next]) !== tool) next++;
		return next < numbers.length ? numbers[next++] : undefined;
	});
}
