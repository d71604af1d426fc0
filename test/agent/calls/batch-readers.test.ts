// Issue #42 "Everywhere a step is seen": a batch ("actions") step is seen call by call by the run's spans and its audit record.
import { SpanStatusCode } from '@opentelemetry/api';
import {
	InMemorySpanExporter,
	SimpleSpanProcessor,
	TracerProvider,
} from '@opentelemetry/sdk-trace';
import { runAgent } from '../../../src/agent/run-agent';
import { runToolResults } from '../../../src/agent/memory/memory';
import { toolErrors } from '../../../src/cli/eval/eval-gates';
import { compactSteps } from '../../../src/context/session/session';
import { auditSinkFor, closeAuditSinks } from '../../../src/audit/postgres-sink';
import { verifyRecord } from '../../../src/audit/verify';
import { counterfactualReplay, forkAuditedRun } from '../../../src/replay';
import { recordRunSpans } from '../../../src/telemetry/run-spans';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import { useTestDatabase } from '../../support/postgres';

const transform = (expression: string, prices: number[]) => ({
	tool: 'json_transform',
	args: { data: { items: prices.map((price) => ({ price })) }, expression },
});
/** Three calls in one reply: the second fails (JMESPath has no average()). */
const batch = JSON.stringify({
	type: 'actions',
	calls: [
		transform('sum(items[*].price)', [2, 3]),
		transform('average(items[*].price)', [2]),
		transform('length(items)', [2, 3]),
	],
});
const config = { model: 'm', allowed_tools: ['json_transform'], max_parallel_calls: 4 };

describe('a batch step in OpenTelemetry', () => {
	const server = useScriptedServer();

	async function spansOf(extra: Record<string, unknown> = {}) {
		const exporter = new InMemorySpanExporter();
		const provider = new TracerProvider({
			spanProcessors: [new SimpleSpanProcessor({ exporter })],
		});
		const startedAt = Date.now();
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...config, ...extra },
			prompt: 'total',
		});
		recordRunSpans(provider.getTracer('test'), {
			result,
			requestModel: 'm',
			startedAt,
			redact: (text) => text,
		});
		const spans = exporter.getFinishedSpans();
		await provider.shutdown();
		const tools = spans.filter((span) => span.name.startsWith('execute_tool'));
		const run = spans.find((span) => span.name.startsWith('invoke_agent'))!;
		return { result, tools, run };
	}

	it('gives one tool span per call under the step, in call order, the failed call with an error status', async () => {
		server().setScript([batch, final('5 in total')]);
		const { result, tools, run } = await spansOf();
		expect(result.finish_reason).toBe('final');
		expect(tools.map((span) => span.attributes)).toEqual([
			{
				'gen_ai.operation.name': 'execute_tool',
				'gen_ai.tool.name': 'json_transform',
				'agent_core.step': 1,
				'agent_core.call': 1,
			},
			{
				'gen_ai.operation.name': 'execute_tool',
				'gen_ai.tool.name': 'json_transform',
				'agent_core.step': 1,
				'agent_core.call': 2,
				'error.type': 'tool_error',
			},
			{
				'gen_ai.operation.name': 'execute_tool',
				'gen_ai.tool.name': 'json_transform',
				'agent_core.step': 1,
				'agent_core.call': 3,
			},
		]);
		expect(tools.map((span) => span.status.code)).toEqual([
			SpanStatusCode.UNSET,
			SpanStatusCode.ERROR,
			SpanStatusCode.UNSET,
		]);
		for (const span of tools) expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
	});

	it('gives no span to a call that never ran: the one max_tool_calls stopped, or one answered by an identical call', async () => {
		const same = transform('length(items)', [2, 3]);
		server().setScript([
			JSON.stringify({
				type: 'actions',
				calls: [
					same,
					same,
					transform('sum(items[*].price)', [1]),
					transform('max(items[*].price)', [1]),
				],
			}),
			final('done'),
		]);
		const { result, tools } = await spansOf({ max_tool_calls: 2 });
		expect(result.finish_reason).toBe('max_tool_calls');
		expect(result.trace[0].calls).toHaveLength(4);
		expect(tools.map((span) => span.attributes['agent_core.call'])).toEqual([1, 3]);
	});
});

describe('a batch step in the audit record', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	async function storedBatchRun() {
		server().setScript([batch, final('5 in total')]);
		const result = await runAgent({
			model: modelFor(server()),
			config,
			prompt: 'total',
			audit: { postgres: database().url, waitMs: 5_000 },
		});
		expect(result.audit).toMatchObject({ stored: true });
		const record = (await auditSinkFor(database().url).read(result.audit!.run_id!))!;
		expect(record.steps[0].step.calls).toHaveLength(3);
		return { record, digest: result.audit!.record_digest! };
	}

	it('verifies as written', async () => {
		const { record, digest } = await storedBatchRun();
		expect(verifyRecord(record, digest)).toMatchObject({ ok: true });
	});

	it.each([
		[
			'args',
			(call: { args: Record<string, unknown> }) => (call.args.expression = 'max(items[*].price)'),
		],
		['observation', (call: { observation?: string }) => (call.observation = '500')],
	])(
		"fails, naming step 1, when one call's %s is edited in the stored record",
		async (_part, edit) => {
			const { record, digest } = await storedBatchRun();
			edit(record.steps[0].step.calls![2] as never);
			expect(verifyRecord(record, digest)).toMatchObject({
				ok: false,
				first_mismatch: { part: 'step 1' },
			});
		},
	);
});

describe('a batch step in audit replay', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	async function recordedBatchRun() {
		server().setScript([batch, final('5 in total')]);
		const result = await runAgent({
			model: modelFor(server()),
			config,
			prompt: 'total',
			audit: { postgres: database().url, waitMs: 5_000 },
		});
		return (await auditSinkFor(database().url).read(result.audit!.run_id!))!;
	}

	it('answers each call of a recorded batch from the record: nothing is refused, nothing diverges', async () => {
		const record = await recordedBatchRun();
		server().setScript([batch, final('5 in total')]);
		const report = await counterfactualReplay(record, {
			model: modelFor(server()),
			modelName: 'm',
		});
		expect(report).toMatchObject({
			answered_from_record: 3,
			refused_calls: [],
			first_divergence: null,
			same_actions: true,
		});
		// Each call of the batch counts, the failed one too (it ran), on both sides.
		expect([report.recorded.tool_calls, report.candidate.tool_calls]).toEqual([3, 3]);
	});

	it('shows a candidate that makes the same calls one by one as a divergence at the batch step', async () => {
		const record = await recordedBatchRun();
		const calls = JSON.parse(batch).calls as Array<{ tool: string; args: Record<string, unknown> }>;
		server().setScript([...calls.map((call) => action(call.tool, call.args)), final('5 in total')]);
		const report = await counterfactualReplay(record, {
			model: modelFor(server()),
			modelName: 'm',
		});
		expect(report.refused_calls).toEqual([]);
		expect(report.first_divergence).toMatchObject({
			step: 1,
			recorded: expect.stringMatching(
				/^actions \[json_transform .*sum.*; json_transform .*average.*; json_transform .*length.*\]/,
			),
			candidate: expect.stringMatching(/^json_transform .*sum/),
		});
	});
});

describe('a batch step in audit fork', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	afterEach(() => closeAuditSinks());

	async function recordedRun() {
		server().setScript([
			batch,
			action('json_transform', { data: { n: 7 }, expression: 'n' }),
			final('5 in total'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config,
			prompt: 'total',
			audit: { postgres: database().url, waitMs: 5_000 },
		});
		return { result, record: (await auditSinkFor(database().url).read(result.audit!.run_id!))! };
	}

	it('takes a recorded batch over from the record, each call answered with its recorded outcome, then goes on live', async () => {
		const { result, record } = await recordedRun();
		server().setScript([final('forked answer')]);
		server().requests.length = 0;
		const fork = await forkAuditedRun({ record, step: 2, model: modelFor(server()) });
		expect(fork).toMatchObject({ finish_reason: 'final', final_answer: 'forked answer' });
		expect(fork.trace[0].calls).toEqual(
			result.trace[0].calls!.map((call) => ({ ...call, elapsed_ms: expect.any(Number) })),
		);
		expect(server().requests).toHaveLength(1);
	});

	it('refuses to replace the observation of a batch step, naming the field and the batch', async () => {
		const { record } = await recordedRun();
		await expect(
			forkAuditedRun({ record, step: 1, observation: 'x', model: modelFor(server()) }),
		).rejects.toMatchObject({
			name: 'ForkError',
			field: 'observation',
			message: expect.stringContaining('batch of 3 tool calls'),
		});
	});
});

describe("a batch step in memory's remembered tool results and the eval gates", () => {
	const server = useScriptedServer();

	it('remembers each call of a batch with its observation or error, and the no_tool_errors gate counts its failed call', async () => {
		server().setScript([batch, final('5 in total')]);
		const result = await runAgent({ model: modelFor(server()), config, prompt: 'total' });
		const failed = result.trace[0].calls![1].error!;
		expect(failed.type).toBe('tool_error');
		expect(runToolResults(result.trace)).toEqual([
			{ step: 1, ...transform('sum(items[*].price)', [2, 3]), observation: '5' },
			{
				step: 1,
				...transform('average(items[*].price)', [2]),
				observation: '',
				error: failed.message,
			},
			{ step: 1, ...transform('length(items)', [2, 3]), observation: '2' },
		]);
		expect(toolErrors(result)).toEqual([`step 1 call 2 tool_error: ${failed.message}`]);
	});

	it("Agent Context's stored step record names every call's tool of a batch, in call order", async () => {
		server().setScript([batch, final('5 in total')]);
		const result = await runAgent({ model: modelFor(server()), config, prompt: 'total' });
		expect(compactSteps(result.trace).map(({ ms: _ms, ...step }) => step)).toEqual([
			{ step: 1, tools: ['json_transform', 'json_transform', 'json_transform'] },
			{ step: 2, final: true },
		]);
	});
});
