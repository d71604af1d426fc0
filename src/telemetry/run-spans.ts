import type { Attributes, AttributeValue, Context, Span, Tracer } from '@opentelemetry/api';
import { loadOnce } from '../core/load-once';
import { callRan, stepFinishReason } from '../trace/readable-step';
import type { AgentResult, TraceCall, TraceStep } from '../trace/types';
import { planStepsOfCalls, startPlanSpan, type OpenPlan } from './plan-spans';

/** The OpenTelemetry API, loaded with the first run that has a tracer (see loadOnce). */
export const otelApi = loadOnce(
	() => require('@opentelemetry/api') as typeof import('@opentelemetry/api'),
);

/** What a finished run's spans are made of. */
export interface RunSpanFacts {
	/** The run's output, already redacted. */
	result: AgentResult;
	/** The model the config asked for (config.model). */
	requestModel: string;
	sessionId?: string;
	/** Epoch ms when the run began. */
	startedAt: number;
	/** The run's redactor: every string attribute value (and every span name) passes through it. */
	redact: (text: string) => string;
	/** The parent: by default the active context, so n8n's own span (when it has one) holds the run's. */
	parent?: Context;
}

/** Finish reasons that are a run going as planned; any other marks the run span as an error. */
const EXPECTED_ENDINGS = new Set<string>(['final', 'awaiting_approval']);
/** Step errors that mean the model call itself failed: no reply, so no finish reason. */
const CALL_FAILURES = new Set<string>(['llm_error', 'timeout']);
/** Step errors that mean the tool ran and failed (a refused call never ran and has no tool span). */
const TOOL_FAILURES = new Set<string>(['tool_error', 'tool_timeout']);

type Clean = (attributes: Record<string, AttributeValue | undefined>) => Attributes;

/**
 * The run's spans, made after it from its result: one `invoke_agent` span, a `chat` span per model call
 * and an `execute_tool` span per tool that ran, both as children of the run's, with the gen_ai.* semantic
 * conventions; in plan mode a `plan` span per plan (see plan-spans.ts) holds its steps' `execute_tool` spans, and
 * the `execute_tool` span of a sub-agent's call holds the spans of the sub-agent's steps, made from its `sub_run`
 * (issue #52), each marked `agent_core.sub_agent` and `agent_core.agent_depth`.
 * Steps ran one after another, so their times are laid end to end from `startedAt`.
 * No prompt, answer, argument or observation goes into a span, and every string passes the redactor.
 * Never throws: tracing must not change a run.
 */
export function recordRunSpans(tracer: Tracer, facts: RunSpanFacts): void {
	try {
		const { result, redact } = facts;
		const clean: Clean = (attributes) => {
			const out: Attributes = {};
			for (const [key, value] of Object.entries(attributes)) {
				if (value !== undefined) out[key] = redactValue(value, redact);
			}
			return out;
		};
		const { context, trace, SpanKind, SpanStatusCode } = otelApi();
		const parent = facts.parent ?? context.active();
		const runSpan = tracer.startSpan(
			redact('invoke_agent Agent Core'),
			{
				kind: SpanKind.INTERNAL,
				startTime: at(facts.startedAt),
				attributes: clean({
					'gen_ai.operation.name': 'invoke_agent',
					'gen_ai.agent.name': 'Agent Core',
					'gen_ai.request.model': facts.requestModel,
					'gen_ai.provider.name': result.provider,
					'gen_ai.response.model': result.model,
					'gen_ai.usage.input_tokens': result.usage?.prompt_tokens,
					'gen_ai.usage.output_tokens': result.usage?.completion_tokens,
					'gen_ai.usage.cache_read.input_tokens': result.usage?.cached_tokens,
					'gen_ai.usage.cache_creation.input_tokens': result.usage?.cache_write_tokens,
					// No semantic convention names cost yet: USD, absent when a call's model had no price.
					'agent_core.cost_usd': result.cost ?? undefined,
					'gen_ai.conversation.id': facts.sessionId,
					'session.id': facts.sessionId,
					'agent_core.finish_reason': result.finish_reason,
					'agent_core.trace_digest': result.trace_digest,
					'agent_core.steps': result.trace.length,
					'agent_core.model_calls': result.metrics?.model_calls,
					// With hooks or guardrails: the decisions other than allow (each is an event on its step's span).
					'agent_core.guardrails_tripped': result.guardrails_tripped,
				}),
			},
			parent,
		);
		if (!EXPECTED_ENDINGS.has(result.finish_reason))
			runSpan.setStatus({ code: SpanStatusCode.ERROR, message: result.finish_reason });
		const inRun = trace.setSpan(parent, runSpan);
		const steps = { tracer, runModel: result.model, clean, redact };
		stepSpans(steps, inRun, runSpan, result.trace, facts.startedAt, result);
		runSpan.end(at(facts.startedAt + result.elapsed_ms));
	} catch {
		// Ignored on purpose (see above): a span that was not ended is simply never exported.
	}
}

/** What every step's spans are made with: the tracer, the model named when a step names none, the cleaners. */
interface StepSpanTools {
	tracer: Tracer;
	runModel: string;
	clean: Clean;
	redact: (text: string) => string;
}

/** A sub-agent's run under a call (issue #52): its name and depth, on each of its spans. */
interface SubAgentMark {
	agent: string;
	depth: number;
}

/**
 * The spans of a run's steps, laid end to end from `startedAt` under `parent`: a `chat` span per model call, an
 * `execute_tool` span per tool that ran (in plan mode under its plan's span), and under the `execute_tool` span of a
 * sub-agent's call its run's own step spans (see SubAgentMark). `result` holds the plan the run kept; a sub-agent's
 * run has none recorded (undefined).
 */
function stepSpans(
	tools: StepSpanTools,
	parent: Context,
	holder: Span,
	steps: readonly TraceStep[],
	startedAt: number,
	result: Pick<AgentResult, 'plan'> | undefined,
	sub?: SubAgentMark,
): void {
	const { tracer, runModel, clean: runClean, redact } = tools;
	const mark = sub
		? { 'agent_core.sub_agent': sub.agent, 'agent_core.agent_depth': sub.depth }
		: {};
	const clean: Clean = (attributes) => runClean({ ...mark, ...attributes });
	let stepStart = startedAt;
	// Plan mode: the plan being run, whose span holds its steps' tool spans until the next model call.
	let plan: OpenPlan | undefined;
	const otel = otelApi();
	for (const step of steps) {
		if (plan && step.plan_steps === undefined) {
			plan.span.end(at(stepStart));
			plan = undefined;
		}
		if (step.provider !== undefined)
			chatSpan(tracer, parent, step, stepStart, runModel, clean, redact);
		// A step with no model call (none answered it) has no span of its own: the run's holds its decisions.
		else guardrailEvents(holder, step, stepStart, clean);
		if (step.plan)
			plan = startPlanSpan(tracer, parent, step, stepStart + step.model_ms, result, clean, otel);
		const inPlan = plan && step.plan_steps ? plan.context : parent;
		const planSteps = planStepsOfCalls(step, plan?.tools);
		const toolStart = stepStart + step.model_ms;
		const calls = step.action
			? step.tool_ms !== undefined
				? [{ ...step, ...step.action, elapsed_ms: step.tool_ms, index: 0, call: undefined }]
				: []
			: (step.calls ?? []).flatMap((call, index) =>
					callRan(step, call) ? [{ ...call, index, call: index + 1 }] : [],
				);
		// A batch: one span per call that ran, each from the step's tool phase on (the trace keeps no call's start).
		for (const call of calls) {
			const child = call.sub_run;
			const called = child ? { agent: child.agent, depth: child.depth } : undefined;
			const span = toolSpan(tracer, inPlan, step, call.tool, toolStart, call.error, clean, redact, {
				call: call.call,
				planStep: planSteps?.[call.index],
				called,
			});
			if (child && Array.isArray(child.steps)) {
				const inCall = otel.trace.setSpan(inPlan, span);
				stepSpans(tools, inCall, span, child.steps, toolStart, undefined, called);
			}
			span.end(at(toolStart + call.elapsed_ms));
		}
		stepStart += step.elapsed_ms;
	}
	plan?.span.end(at(stepStart));
}

function chatSpan(
	tracer: Tracer,
	parent: Context,
	step: TraceStep,
	start: number,
	runModel: string,
	clean: Clean,
	redact: (text: string) => string,
): void {
	const failure = step.error && CALL_FAILURES.has(step.error.type) ? step.error.type : undefined;
	const model = step.model ?? runModel;
	const span = tracer.startSpan(
		redact(`chat ${model}`),
		{
			kind: otelApi().SpanKind.CLIENT,
			startTime: at(start),
			attributes: clean({
				'gen_ai.operation.name': 'chat',
				'gen_ai.request.model': model,
				'gen_ai.provider.name': step.provider,
				'gen_ai.usage.input_tokens': step.usage?.prompt_tokens,
				'gen_ai.usage.output_tokens': step.usage?.completion_tokens,
				'gen_ai.usage.cache_read.input_tokens': step.usage?.cached_tokens,
				'gen_ai.usage.cache_creation.input_tokens': step.usage?.cache_write_tokens,
				'agent_core.cost_usd': step.cost?.total,
				'gen_ai.response.finish_reasons': failure ? undefined : [stepFinishReason(step)],
				'error.type': failure,
				'agent_core.step': step.step,
				'agent_core.repair': step.repair,
			}),
		},
		parent,
	);
	if (failure) span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: failure });
	guardrailEvents(span, step, start, clean);
	span.end(at(start + step.model_ms));
}

/** The points met before the step's model call; the others come after its reply. */
const BEFORE_THE_CALL = new Set<string>(['before_run', 'before_model']);

/**
 * One `agent_core.guardrail` event per decision the step lists (issue #50): which guardrail or hook, at which
 * point, what it decided, and the call it concerned. Never its reason (a hook's own words) or what it found.
 */
function guardrailEvents(span: Span, step: TraceStep, start: number, clean: Clean): void {
	for (const decision of step.guardrails ?? [])
		span.addEvent(
			'agent_core.guardrail',
			clean({
				'agent_core.guardrail.name': decision.name,
				'agent_core.guardrail.by': decision.by,
				'agent_core.guardrail.point': decision.point,
				'agent_core.guardrail.decision': decision.decision,
				'gen_ai.tool.name': decision.tool,
				'agent_core.call': decision.call,
				'agent_core.step': step.step,
			}),
			at(BEFORE_THE_CALL.has(decision.point) ? start : start + step.model_ms),
		);
}

function toolSpan(
	tracer: Tracer,
	parent: Context,
	step: TraceStep,
	tool: string,
	start: number,
	error: TraceCall['error'],
	clean: Clean,
	redact: (text: string) => string,
	/** Which call of an "actions" step (1-based), the plan step it ran (plan mode), the sub-agent it ran (issue #52). */
	{ call, planStep, called }: { call?: number; planStep?: number; called?: SubAgentMark } = {},
): Span {
	const failure = error && TOOL_FAILURES.has(error.type) ? error.type : undefined;
	const span = tracer.startSpan(
		redact(`execute_tool ${tool}`),
		{
			kind: otelApi().SpanKind.INTERNAL,
			startTime: at(start),
			attributes: clean({
				'gen_ai.operation.name': 'execute_tool',
				'gen_ai.tool.name': tool,
				'error.type': failure,
				'agent_core.step': step.step,
				// Which call of an "actions" step (1-based), absent for a single action.
				'agent_core.call': call,
				// Plan mode (issue #51): the plan's step this call ran.
				'agent_core.plan_step': planStep,
				// A sub-agent's call: the sub-agent it ran and how deep, whose spans this span holds.
				...(called
					? { 'agent_core.sub_agent': called.agent, 'agent_core.agent_depth': called.depth }
					: {}),
			}),
		},
		parent,
	);
	if (failure) span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: failure });
	return span;
}

/**
 * A Date, not a number: SDKs read a small number as time since the process started, and a Date means
 * the same to any tracer n8n may have set up.
 */
function at(epochMs: number): Date {
	return new Date(epochMs);
}

function redactValue(value: AttributeValue, redact: (text: string) => string): AttributeValue {
	if (typeof value === 'string') return redact(value);
	if (Array.isArray(value))
		return value.map((item) => (typeof item === 'string' ? redact(item) : item)) as AttributeValue;
	return value;
}
