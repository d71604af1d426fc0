// Issue #51 in OpenTelemetry: a planned run has a `plan` span per plan, after the call that sent it, holding the
// `execute_tool` span of each of its steps with the plan step it ran; how a person decided on it, never who.
import type { HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { resumeAgent } from '../../src/agent/resume';
import { runAgent } from '../../src/agent/run-agent';
import { final, modelFor, useScriptedServer } from '../support/agent';
import { memoryTracing } from '../support/memory-tracing';
import {
	PLAN_SECRET,
	REFUND_PLAN,
	planReply,
	plannedConfig,
	shopTools,
} from '../audit/planned-run';

const ms = (time: HrTime) => time[0] * 1e3 + time[1] / 1e6;
const named = (spans: ReadableSpan[], prefix: string) =>
	spans.filter((span) => span.name.startsWith(prefix));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('a planned run as spans', () => {
	const server = useScriptedServer();

	it('has one plan span after the planning call, holding an execute_tool span per step with its plan step', async () => {
		// Steps 1 and 2 only read and run together (one trace step, two calls); step 3 runs alone.
		server().setScript([
			planReply(
				['find_order', { customer: 'ann' }],
				['find_order', { customer: 'bob' }],
				['refund', { order_id: { $step: 1, pointer: '/order/id' } }],
			),
			final('Refunded o-ann.'),
		]);
		const memory = memoryTracing();
		const result = await runAgent({
			model: modelFor(server()),
			config: plannedConfig(),
			extraTools: shopTools().tools,
			prompt: 'refund ann',
			tracer: memory.tracer,
		});
		expect(result.trace.map((step) => step.plan_steps ?? null)).toEqual([null, [1, 2], [3], null]);
		const spans = await memory.finish();
		const [run] = named(spans, 'invoke_agent');
		const [plan] = named(spans, 'plan');
		const [planning, answer] = named(spans, 'chat ');
		expect(plan.attributes).toEqual({
			'agent_core.step': 1,
			'agent_core.plan.steps': 3,
			'agent_core.plan.steps_done': 3,
			'agent_core.plan.steps_failed': 0,
		});
		expect(parentOf(plan)).toBe(run.spanContext().spanId);
		expect(ms(plan.startTime)).toBeGreaterThanOrEqual(ms(planning.endTime));
		expect(ms(plan.endTime)).toBeLessThanOrEqual(ms(answer.startTime));
		const tools = named(spans, 'execute_tool');
		expect(
			tools.map((span) => [
				span.attributes['gen_ai.tool.name'],
				span.attributes['agent_core.step'],
				span.attributes['agent_core.call'],
				span.attributes['agent_core.plan_step'],
				parentOf(span) === plan.spanContext().spanId,
			]),
		).toEqual([
			['find_order', 2, 1, 1, true],
			['find_order', 2, 2, 2, true],
			['refund', 3, undefined, 3, true],
		]);
	});

	it('says how a person decided on the plan (approve_plan), never who', async () => {
		const { tools } = shopTools();
		const common = {
			model: modelFor(server()),
			config: plannedConfig({ approve_plan: true }),
			extraTools: tools,
			stateSecret: PLAN_SECRET,
		};
		server().setScript([REFUND_PLAN]);
		const paused = await runAgent({ ...common, prompt: 'refund ann' });
		server().setScript([final('Refunded o-ann.')]);
		const memory = memoryTracing();
		await resumeAgent({
			...common,
			runState: paused.run_state,
			decision: { approve: true, by: 'ann@shop' } as never,
			tracer: memory.tracer,
		});
		const spans = await memory.finish();
		const [plan] = named(spans, 'plan');
		expect(plan.attributes['agent_core.plan.approval']).toBe('approved');
		expect(JSON.stringify(spans.map((span) => [span.name, span.attributes]))).not.toContain(
			'ann@shop',
		);
		expect(
			named(spans, 'execute_tool').map((span) => span.attributes['agent_core.plan_step']),
		).toEqual([1, 2]);
	});
});
