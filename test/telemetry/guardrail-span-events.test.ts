// Issue #50 in OpenTelemetry: one `agent_core.guardrail` event per decision on its step's span, and the run
// span's count, naming who decided what at which point, never the reason or the text that was found.
import type { HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { AgentHook } from '../../src/agent/base/hook-types';
import { runAgent } from '../../src/agent/run-agent';
import { recordRunSpans } from '../../src/telemetry/run-spans';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { memoryTracing } from '../support/memory-tracing';

const CARD = '4111 1111 1111 1111'; // passes Luhn
const EMAIL = 'mia@example.com';
const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

const noCards = {
	name: 'no-cards',
	check: 'pii',
	kinds: ['credit_card'],
	on: ['tool_call'],
	action: 'deny_call',
};
const hideEmails = {
	name: 'hide-emails',
	check: 'pii',
	kinds: ['email'],
	on: ['answer'],
	action: 'redact',
};

const ms = (time: HrTime) => time[0] * 1e3 + time[1] / 1e6;
const chats = (spans: ReadableSpan[]) => spans.filter((span) => span.name.startsWith('chat '));
const runSpan = (spans: ReadableSpan[]) => spans.find((span) => span.name.startsWith('invoke'))!;

describe('guardrail decisions as span events', () => {
	const server = useScriptedServer();

	async function runWithSpans(
		script: string[],
		config: Record<string, unknown>,
		options: { hooks?: AgentHook[]; redact?: (text: string) => string } = {},
	) {
		server().setScript(script);
		const memory = memoryTracing();
		const startedAt = Date.now();
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['json_transform'], ...config } as never,
			prompt: 'Pay the order',
			hooks: options.hooks,
		});
		recordRunSpans(memory.tracer, {
			result,
			requestModel: 'm',
			startedAt,
			redact: options.redact ?? ((text) => text),
		});
		return { result, spans: await memory.finish() };
	}

	it('puts a denied call on step 1’s span and a redacted answer on step 2’s, and counts both on the run span', async () => {
		const { result, spans } = await runWithSpans(
			[
				action('json_transform', { data: { card: CARD }, expression: 'card' }),
				final(`Done, receipt sent to ${EMAIL}`),
			],
			{ guardrails: [noCards, hideEmails] },
		);
		expect(result.finish_reason).toBe('final');
		expect(result.guardrails_tripped).toBe(2);
		expect(runSpan(spans).attributes['agent_core.guardrails_tripped']).toBe(2);
		const [first, second] = chats(spans);
		expect(first.events.map((event) => [event.name, event.attributes])).toEqual([
			[
				'agent_core.guardrail',
				{
					'agent_core.guardrail.name': 'no-cards',
					'agent_core.guardrail.by': 'guardrail',
					'agent_core.guardrail.point': 'before_tool',
					'agent_core.guardrail.decision': 'deny',
					'gen_ai.tool.name': 'json_transform',
					'agent_core.step': 1,
				},
			],
		]);
		expect(second.events.map((event) => event.attributes)).toEqual([
			{
				'agent_core.guardrail.name': 'hide-emails',
				'agent_core.guardrail.by': 'guardrail',
				'agent_core.guardrail.point': 'after_run',
				'agent_core.guardrail.decision': 'redact',
				'agent_core.step': 2,
			},
		]);
		// Both points come after the step's model call: the event sits at the end of its chat span.
		expect(ms(first.events[0].time)).toBe(ms(first.endTime));
		expect(ms(second.events[0].time)).toBe(ms(second.endTime));
		const exported = JSON.stringify(spans.map((span) => [span.attributes, span.events]));
		expect(exported).not.toContain(CARD);
		expect(exported).not.toContain(EMAIL);
	});

	it('names the call of a batch a guardrail denied', async () => {
		const { spans } = await runWithSpans(
			[
				actions(
					['json_transform', { data: [1], expression: 'length(@)' }],
					['json_transform', { data: [CARD], expression: 'length(@)' }],
				),
				final('one ran'),
			],
			{ guardrails: [noCards], max_parallel_calls: 2 },
		);
		expect(chats(spans)[0].events.map((event) => event.attributes)).toEqual([
			expect.objectContaining({
				'agent_core.guardrail.decision': 'deny',
				'gen_ai.tool.name': 'json_transform',
				'agent_core.call': 2,
			}),
		]);
	});

	it('never carries a hook’s reason, and passes the hook’s name through the redactor', async () => {
		const hook: AgentHook = {
			name: 'limit-sk-live-0000',
			beforeModel: () => ({ decision: 'block', reason: `the user wrote ${CARD}` }),
		};
		const { result, spans } = await runWithSpans(
			[final('never')],
			{},
			{
				hooks: [hook],
				redact: (text) => text.replace(/sk-live-\d+/g, '[redacted]'),
			},
		);
		expect(result.finish_reason).toBe('guardrail');
		expect(result.trace[0].guardrails?.[0].reason).toContain(CARD);
		const run = runSpan(spans);
		expect(run.attributes['agent_core.guardrails_tripped']).toBe(1);
		// The blocked step had no model call, so no chat span: its decision is an event of the run span.
		expect(chats(spans)).toEqual([]);
		expect(run.events).toHaveLength(1);
		const [decision] = run.events;
		expect(decision.name).toBe('agent_core.guardrail');
		expect(ms(decision.time)).toBe(ms(run.startTime));
		expect(decision.attributes).toEqual({
			'agent_core.guardrail.name': 'limit-[redacted]',
			'agent_core.guardrail.by': 'hook',
			'agent_core.guardrail.point': 'before_model',
			'agent_core.guardrail.decision': 'block',
			'agent_core.step': 1,
		});
		const exported = JSON.stringify(spans.map((span) => [span.attributes, span.events]));
		expect(exported).not.toContain(CARD);
		expect(exported).not.toContain('the user wrote');
	});

	it('adds no event and no count to a run with no hook or guardrail', async () => {
		const { result, spans } = await runWithSpans([final('plain')], {});
		expect(result).not.toHaveProperty('guardrails_tripped');
		expect(spans.flatMap((span) => span.events)).toEqual([]);
		for (const span of spans)
			expect(span.attributes).not.toHaveProperty('agent_core.guardrails_tripped');
	});
});
