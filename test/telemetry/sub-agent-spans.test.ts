// Issue #52 in OpenTelemetry: the spans of a sub-agent's run (its model calls, its tool calls) nest under the
// parent's `execute_tool` span of the call that ran it, each marked with the sub-agent's name and depth.
import type { HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { runAgent } from '../../src/agent/run-agent';
import { final, modelFor, useScriptedServer } from '../support/agent';
import { countingTool } from '../support/durable';
import { memoryTracing } from '../support/memory-tracing';
import { ONE_CALL, TWO_CALLS, ask, subAgentConfig } from '../audit/sub-agent-run';

const ms = (time: HrTime) => time[0] * 1e3 + time[1] / 1e6;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe("a sub-agent's run as spans", () => {
	const server = useScriptedServer();

	async function traced(script: string[], config = subAgentConfig(), sideEffects = false) {
		server().setScript(script);
		const memory = memoryTracing();
		const result = await runAgent({
			model: modelFor(server()),
			config,
			extraTools: [countingTool('lookup', sideEffects).tool],
			prompt: 'what is the value?',
			tracer: memory.tracer,
		});
		return { result, spans: await memory.finish() };
	}

	it("nests the child's chat and execute_tool spans under the parent's execute_tool span of the call, marked with its name and depth", async () => {
		const { result, spans } = await traced(ONE_CALL);
		expect(result.final_answer).toBe('Researcher says 7.');
		const [run] = spans.filter((span) => span.name.startsWith('invoke_agent'));
		const call = spans.find((span) => span.name === 'execute_tool researcher')!;
		expect(parentOf(call)).toBe(idOf(run));
		expect(call.attributes).toMatchObject({
			'gen_ai.tool.name': 'researcher',
			'agent_core.step': 1,
			'agent_core.sub_agent': 'researcher',
			'agent_core.agent_depth': 1,
		});
		const inside = spans.filter((span) => parentOf(span) === idOf(call));
		expect(
			inside.map((span) => [
				span.name,
				span.attributes['agent_core.step'],
				span.attributes['agent_core.sub_agent'],
				span.attributes['agent_core.agent_depth'],
			]),
		).toEqual([
			['chat gpt-4o-mini', 1, 'researcher', 1],
			['execute_tool lookup', 1, 'researcher', 1],
			['chat gpt-4o-mini', 2, 'researcher', 1],
		]);
		// The parent's own spans carry no mark: only the call's and the child's do.
		const own = spans.filter((span) => parentOf(span) === idOf(run));
		expect(own.map((span) => span.name)).toEqual([
			'chat gpt-4o-mini',
			'execute_tool researcher',
			'chat gpt-4o-mini',
		]);
		expect(own[0].attributes).not.toHaveProperty('agent_core.sub_agent');
		// The child's spans lie within its call's: laid end to end from the call's start.
		for (const span of inside)
			expect(ms(span.startTime)).toBeGreaterThanOrEqual(ms(call.startTime));
		// Its tokens are the child's own: the nested chat spans add up to the sub_run's usage.
		const nestedTokens = inside.reduce(
			(sum, span) =>
				sum +
				Number(span.attributes['gen_ai.usage.input_tokens'] ?? 0) +
				Number(span.attributes['gen_ai.usage.output_tokens'] ?? 0),
			0,
		);
		expect(nestedTokens).toBe(result.trace[0].sub_run!.usage.total_tokens);
	});

	it("a batch's sub-agent calls each hold their own child's spans, with their call number", async () => {
		const { spans } = await traced(TWO_CALLS, subAgentConfig({ max_parallel_calls: 2 }), true);
		const calls = spans.filter((span) => span.name === 'execute_tool researcher');
		expect(calls.map((span) => span.attributes['agent_core.call'])).toEqual([1, 2]);
		const lookups = calls.map((call) =>
			spans
				.filter((span) => parentOf(span) === idOf(call) && span.name === 'execute_tool lookup')
				.map((span) => span.attributes['agent_core.sub_agent']),
		);
		expect(lookups).toEqual([['researcher'], ['researcher']]);
	});

	it("a sub-agent's sub-agent nests one level deeper, at depth 2", async () => {
		const { spans } = await traced(
			[ask('level 1'), ask('level 2'), final('two'), final('one'), final('top')],
			subAgentConfig({}, { allowed_tools: ['researcher'] }),
		);
		// Spans come out as they end: the inner call's before the outer's.
		const calls = spans.filter((span) => span.name === 'execute_tool researcher');
		expect(calls.map((span) => span.attributes['agent_core.agent_depth']).sort()).toEqual([1, 2]);
		const [outer, inner] = [1, 2].map(
			(depth) => calls.find((span) => span.attributes['agent_core.agent_depth'] === depth)!,
		);
		expect(parentOf(inner)).toBe(idOf(outer));
		const deepest = spans.filter((span) => parentOf(span) === idOf(inner));
		expect(deepest.map((span) => [span.name, span.attributes['agent_core.agent_depth']])).toEqual([
			['chat gpt-4o-mini', 2],
		]);
	});
});
