import { spawn } from 'node:child_process';
import * as http from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
	type HrTime,
	ROOT_CONTEXT,
	SpanKind,
	SpanStatusCode,
	type Tracer,
	trace,
} from '@opentelemetry/api';
import {
	InMemorySpanExporter,
	type ReadableSpan,
	SimpleSpanProcessor,
	TracerProvider,
} from '@opentelemetry/sdk-trace';
import { runAgent } from '../../src/agent/run-agent';
import type { RunAgentOptions } from '../../src/agent/base/run-options';
import { ambientTracer, tracingFromEnvironment } from '../../src/telemetry/otlp';
import { recordRunSpans } from '../../src/telemetry/run-spans';
import type { AgentResult } from '../../src/trace/types';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { memoryTracing } from '../support/memory-tracing';

const config = { model: 'm', allowed_tools: ['json_transform'] };
const countScript = () => [
	action('json_transform', { data: [1, 2, 3], expression: 'length(@)' }),
	final('three'),
];

const ms = (time: HrTime) => time[0] * 1e3 + time[1] / 1e6;
const named = (spans: ReadableSpan[], prefix: string) =>
	spans.filter((span) => span.name.startsWith(prefix));
function runSpanOf(spans: ReadableSpan[]): ReadableSpan {
	const runs = named(spans, 'invoke_agent');
	expect(runs).toHaveLength(1);
	return runs[0];
}

/** OpenTelemetry: a span per run, model call and tool call, with gen_ai.* attributes and no secrets. */
describe('run spans', () => {
	const server = useScriptedServer();

	/** Runs the agent for real, then records its spans from the result as a caller does. */
	async function runWithSpans(
		script: unknown[],
		options: {
			model?: string;
			prompt?: string;
			sessionId?: string;
			redact?: (text: string) => string;
		} = {},
	) {
		server().setScript(script as never);
		const memory = memoryTracing();
		const model = options.model ?? config.model;
		const startedAt = Date.now();
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...config, model },
			prompt: options.prompt ?? 'count',
			sessionId: options.sessionId,
		});
		recordRunSpans(memory.tracer, {
			result,
			requestModel: model,
			sessionId: options.sessionId,
			startedAt,
			redact: options.redact ?? ((text) => text),
		});
		return { result, spans: await memory.finish(), startedAt };
	}

	it('carries the cost in USD on the run span and each chat span for a model the catalogue prices, and leaves it out for one it does not', async () => {
		const priced = await runWithSpans(countScript(), { model: 'gpt-4o-mini' });
		expect(priced.result.cost).toBeGreaterThan(0);
		expect(runSpanOf(priced.spans).attributes['agent_core.cost_usd']).toBe(priced.result.cost);
		named(priced.spans, 'chat ').forEach((chat, index) =>
			expect(chat.attributes['agent_core.cost_usd']).toBe(priced.result.trace[index].cost?.total),
		);
		const unpriced = await runWithSpans(countScript(), { model: 'm' });
		expect(unpriced.result.cost).toBeNull();
		for (const span of unpriced.spans)
			expect(span.attributes).not.toHaveProperty('agent_core.cost_usd');
	});

	it('gives a run span, a chat span per model call and a tool span per tool call, children of the run in one trace', async () => {
		const { result, spans, startedAt } = await runWithSpans(countScript(), {
			sessionId: 'session-7',
		});
		expect(result.finish_reason).toBe('final');
		expect(spans).toHaveLength(4);

		const run = runSpanOf(spans);
		expect(run.name).toBe('invoke_agent Agent Core');
		expect(run.kind).toBe(SpanKind.INTERNAL);
		expect(run.status.code).toBe(SpanStatusCode.UNSET);
		expect(run.attributes).toEqual({
			'gen_ai.operation.name': 'invoke_agent',
			'gen_ai.agent.name': 'Agent Core',
			'gen_ai.request.model': 'm',
			'gen_ai.provider.name': result.provider,
			'gen_ai.response.model': result.model,
			'gen_ai.usage.input_tokens': result.usage.prompt_tokens,
			'gen_ai.usage.output_tokens': result.usage.completion_tokens,
			'gen_ai.conversation.id': 'session-7',
			'session.id': 'session-7',
			'agent_core.finish_reason': 'final',
			'agent_core.trace_digest': result.trace_digest,
			'agent_core.steps': 2,
			'agent_core.model_calls': 2,
		});
		expect(ms(run.startTime)).toBe(startedAt);
		expect(ms(run.endTime)).toBe(startedAt + result.elapsed_ms);

		const chats = named(spans, 'chat ');
		expect(chats.map((span) => span.name)).toEqual(['chat m', 'chat m']);
		chats.forEach((chat, index) => {
			const step = result.trace[index];
			expect(chat.kind).toBe(SpanKind.CLIENT);
			expect(chat.attributes).toMatchObject({
				'gen_ai.operation.name': 'chat',
				'gen_ai.request.model': 'm',
				'gen_ai.provider.name': step.provider,
				'gen_ai.response.finish_reasons': ['stop'],
				'agent_core.step': index + 1,
				'agent_core.repair': false,
			});
			expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(step.usage?.prompt_tokens);
			expect(chat.attributes['gen_ai.usage.output_tokens']).toBe(step.usage?.completion_tokens);
			expect(ms(chat.startTime)).toBeGreaterThanOrEqual(ms(run.startTime));
			expect(ms(chat.endTime)).toBeLessThanOrEqual(ms(run.endTime));
		});
		// Steps are laid end to end: the second starts where the first ended.
		expect(ms(chats[0].startTime)).toBe(startedAt);
		expect(ms(chats[1].startTime)).toBe(startedAt + result.trace[0].elapsed_ms);

		const tools = named(spans, 'execute_tool');
		expect(tools.map((span) => span.name)).toEqual(['execute_tool json_transform']);
		expect(tools[0].kind).toBe(SpanKind.INTERNAL);
		expect(tools[0].attributes).toEqual({
			'gen_ai.operation.name': 'execute_tool',
			'gen_ai.tool.name': 'json_transform',
			'agent_core.step': 1,
		});
		expect(ms(tools[0].startTime)).toBe(startedAt + result.trace[0].model_ms);
		expect(ms(tools[0].endTime)).toBe(
			startedAt + result.trace[0].model_ms + result.trace[0].tool_ms!,
		);

		const { traceId, spanId } = run.spanContext();
		expect(run.parentSpanContext).toBeUndefined();
		for (const child of [...chats, ...tools]) {
			expect(child.spanContext().traceId).toBe(traceId);
			expect(child.parentSpanContext?.spanId).toBe(spanId);
		}
	});

	it('puts no content in a span: no prompt, tool args, observation or answer', async () => {
		const script = [
			action('json_transform', { data: { note: 'ARG-MARKER' }, expression: 'note' }),
			final('ANSWER-MARKER'),
		];
		const { result, spans } = await runWithSpans(script, { prompt: 'PROMPT-MARKER' });
		expect(result.trace[0].observation).toContain('ARG-MARKER');
		expect(result.final_answer).toBe('ANSWER-MARKER');
		const everything = spans.flatMap((span) => [
			span.name,
			...Object.values(span.attributes).map((value) => JSON.stringify(value)),
		]);
		expect(everything.filter((value) => value.includes('MARKER'))).toEqual([]);
	});

	it('lets no secret through: every string attribute and span name passes the redactor', async () => {
		const secret = 'SECRETVALUE';
		const redact = (text: string) => text.split(secret).join('[REDACTED]');
		const { spans } = await runWithSpans(countScript(), {
			model: `m-${secret}`,
			sessionId: `session-${secret}`,
			redact,
		});
		expect(spans).toHaveLength(4);
		const everything = spans.flatMap((span) => [
			span.name,
			...Object.values(span.attributes).map((value) => JSON.stringify(value)),
		]);
		expect(everything.join('\n')).not.toContain(secret);
		const run = runSpanOf(spans);
		expect(run.attributes['gen_ai.request.model']).toBe('m-[REDACTED]');
		expect(run.attributes['session.id']).toBe('session-[REDACTED]');
		expect(named(spans, 'chat ').map((span) => span.name)).toEqual([
			'chat m-[REDACTED]',
			'chat m-[REDACTED]',
		]);
	});

	it('marks the run span as an error when the run failed', async () => {
		const { result, spans } = await runWithSpans([
			'not json',
			'{"type":"final"}',
			final('never asked'),
		]);
		expect(result.finish_reason).toBe('parse_error');
		const run = runSpanOf(spans);
		expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: 'parse_error' });
		expect(run.attributes['agent_core.finish_reason']).toBe('parse_error');
		// The model answered both times: the calls themselves did not fail.
		const chats = named(spans, 'chat ');
		expect(chats.map((span) => span.status.code)).toEqual([
			SpanStatusCode.UNSET,
			SpanStatusCode.UNSET,
		]);
		expect(chats.map((span) => span.attributes['agent_core.repair'])).toEqual([false, true]);
	});

	it('gives a cut reply the finish reason "length", and a failed model call error.type and an error status', async () => {
		const { result, spans } = await runWithSpans([
			{ text: '{"type":"final","answer":"cut', finishReason: 'length' },
			{ status: 500, errorMessage: 'The server had an error' },
		]);
		expect(result.trace.map((step) => step.error?.type)).toEqual(['output_limit', 'llm_error']);
		const [cut, failed] = named(spans, 'chat ');
		expect(cut.attributes['gen_ai.response.finish_reasons']).toEqual(['length']);
		expect(cut.status.code).toBe(SpanStatusCode.UNSET);
		expect(failed.attributes['gen_ai.response.finish_reasons']).toBeUndefined();
		expect(failed.attributes['error.type']).toBe('llm_error');
		expect(failed.status.code).toBe(SpanStatusCode.ERROR);
		expect(runSpanOf(spans).status.code).toBe(SpanStatusCode.ERROR);
	});

	it('hangs the run span under the given parent (n8n’s own span)', async () => {
		server().setScript([final('done')]);
		const memory = memoryTracing();
		const parentSpan = memory.tracer.startSpan('n8n node');
		const startedAt = Date.now();
		const result = await runAgent({ model: modelFor(server()), config, prompt: 'q' });
		recordRunSpans(memory.tracer, {
			result,
			requestModel: 'm',
			startedAt,
			redact: (text) => text,
			parent: trace.setSpan(ROOT_CONTEXT, parentSpan),
		});
		parentSpan.end();
		const run = runSpanOf(await memory.finish());
		expect(run.parentSpanContext?.spanId).toBe(parentSpan.spanContext().spanId);
		expect(run.spanContext().traceId).toBe(parentSpan.spanContext().traceId);
	});

	it('never throws, even when the tracer does', () => {
		const broken = {
			startSpan: () => {
				throw new Error('tracer broke');
			},
		} as unknown as Tracer;
		const result = {
			finish_reason: 'final',
			trace: [],
			usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
			metrics: { model_calls: 0 },
			elapsed_ms: 0,
		} as unknown as AgentResult;
		expect(() =>
			recordRunSpans(broken, {
				result,
				requestModel: 'm',
				startedAt: Date.now(),
				redact: (text) => text,
			}),
		).not.toThrow();
	});

	it('a run given a tracer records its spans itself, redacted with the run’s secrets', async () => {
		server().setScript(countScript());
		const memory = memoryTracing();
		const options: RunAgentOptions = {
			model: modelFor(server()),
			config: { ...config, model: 'm-SECRETVALUE' },
			prompt: 'count',
			sessionId: 's-SECRETVALUE',
			secrets: ['SECRETVALUE'],
			tracer: memory.tracer,
		};
		const result = await runAgent(options);
		const spans = await memory.finish();
		expect(spans.map((span) => span.name).sort()).toEqual([
			'chat m-[REDACTED]',
			'chat m-[REDACTED]',
			'execute_tool json_transform',
			'invoke_agent Agent Core',
		]);
		expect(runSpanOf(spans).attributes['agent_core.trace_digest']).toBe(result.trace_digest);
		const everything = spans.flatMap((span) => [
			span.name,
			...Object.values(span.attributes).map((value) => JSON.stringify(value)),
		]);
		expect(everything.join('\n')).not.toContain('SECRETVALUE');
	});
});

/** One OTLP/HTTP JSON export as a collector receives it. */
interface OtlpExport {
	resourceSpans: {
		resource: { attributes: OtlpAttribute[] };
		scopeSpans: {
			scope: { name: string };
			spans: {
				name: string;
				traceId: string;
				spanId: string;
				parentSpanId?: string;
				attributes: OtlpAttribute[];
			}[];
		}[];
	}[];
}
interface OtlpAttribute {
	key: string;
	value: {
		stringValue?: string;
		intValue?: number | string;
		boolValue?: boolean;
		arrayValue?: { values: OtlpAttribute['value'][] };
	};
}

/**
 * Records a finished run's spans with tracingFromEnvironment() in a plain Node process loading the
 * TypeScript sources, as n8n loads the package: the OTLP exporter loads node:http with a dynamic import(),
 * which jest's module sandbox refuses. The child says whether the SDK was loaded before tracing was asked for.
 */
function exportInChild(
	env: Record<string, string>,
	facts: { result: AgentResult; requestModel: string; sessionId?: string; startedAt: number },
) {
	const script = `
    const { readFileSync } = require('node:fs');
    const typescript = require('typescript');
    require.extensions['.ts'] = (module, filename) => module._compile(typescript.transpileModule(readFileSync(filename, 'utf8'),
      { compilerOptions: { module: typescript.ModuleKind.CommonJS, target: typescript.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, filename);
    const { tracingFromEnvironment } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'telemetry', 'otlp.ts'))});
    const { recordRunSpans } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'telemetry', 'run-spans.ts'))});
    const sdkLoadedEarly = Object.keys(require.cache).some((file) => /exporter-trace-otlp-http|sdk-trace/.test(file));
    const tracing = tracingFromEnvironment();
    recordRunSpans(tracing.tracer, { ...JSON.parse(process.env.RUN_FACTS), redact: (text) => text });
    const began = Date.now();
    tracing.flush().then(() => tracing.shutdown()).then(() => console.log(JSON.stringify({ sdkLoadedEarly, waitedMs: Date.now() - began })));`;
	const child = spawn(process.execPath, ['-e', script], {
		cwd: join(__dirname, '..', '..'),
		env: { PATH: process.env.PATH ?? '', ...env, RUN_FACTS: JSON.stringify(facts) },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	let outputAt = 0;
	child.stdout.on('data', (chunk) => {
		output += chunk;
		outputAt = Date.now();
	});
	child.stderr.on('data', (chunk) => (output += chunk));
	// A child that did not exit after shutdown would hang the test; stop it well past any normal exit.
	const hangGuard = setTimeout(() => child.kill(), 20000);
	return new Promise<{
		code: number | null;
		output: string;
		report: { sdkLoadedEarly?: boolean; waitedMs?: number };
		heldMs: number;
	}>((resolve) =>
		child.on('close', (code) => {
			clearTimeout(hangGuard);
			let report = {};
			try {
				report = JSON.parse(output.trim());
			} catch {
				// A child that failed printed no report; `output` says why.
			}
			// How long the process stayed alive after flush and shutdown returned.
			resolve({ code, output: output.trim(), report, heldMs: Date.now() - outputAt });
		}),
	);
}

describe('OTLP export', () => {
	const server = useScriptedServer();
	let collector: http.Server;
	let endpoint: string;
	const received: { path: string; body: OtlpExport }[] = [];

	beforeAll(async () => {
		// A collector's OTLP/HTTP receiver: JSON bodies POSTed to /v1/traces.
		collector = http.createServer((request, response) => {
			const chunks: Buffer[] = [];
			request.on('data', (chunk: Buffer) => chunks.push(chunk));
			request.on('end', () => {
				const raw = Buffer.concat(chunks);
				const text = (
					request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw
				).toString('utf8');
				received.push({
					path: `${request.method} ${request.url}`,
					body: JSON.parse(text) as OtlpExport,
				});
				response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
			});
		});
		await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
		endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
	});
	beforeEach(() => {
		received.length = 0;
	});
	afterAll(async () => {
		collector.closeAllConnections();
		await new Promise<void>((resolve) => collector.close(() => resolve()));
	});

	async function countRun() {
		server().setScript(countScript());
		const startedAt = Date.now();
		const result = await runAgent({
			model: modelFor(server()),
			config,
			prompt: 'count',
			sessionId: 'otlp-session',
		});
		return { result, requestModel: 'm', sessionId: 'otlp-session', startedAt };
	}

	const attribute = (attributes: OtlpAttribute[], key: string) =>
		attributes.find((item) => item.key === key)?.value;

	it('sends the run’s spans as OTLP/HTTP JSON to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, loading the SDK only then', async () => {
		const child = await exportInChild(
			{ OTEL_EXPORTER_OTLP_ENDPOINT: `${endpoint}/`, OTEL_SERVICE_NAME: 'agent-core-test' },
			await countRun(),
		);
		expect(child).toMatchObject({ code: 0, report: { sdkLoadedEarly: false } });

		expect(received.map((item) => item.path)).toEqual(['POST /v1/traces']);
		const resourceSpans = received[0].body.resourceSpans;
		expect(attribute(resourceSpans[0].resource.attributes, 'service.name')).toEqual({
			stringValue: 'agent-core-test',
		});
		const scopes = resourceSpans.flatMap((resource) => resource.scopeSpans);
		expect(scopes.map((scope) => scope.scope.name)).toEqual(['agent-core']);
		const spans = scopes.flatMap((scope) => scope.spans);
		expect(spans.map((span) => span.name).sort()).toEqual([
			'chat m',
			'chat m',
			'execute_tool json_transform',
			'invoke_agent Agent Core',
		]);

		const run = spans.find((span) => span.name === 'invoke_agent Agent Core')!;
		expect(attribute(run.attributes, 'gen_ai.operation.name')).toEqual({
			stringValue: 'invoke_agent',
		});
		expect(attribute(run.attributes, 'session.id')).toEqual({ stringValue: 'otlp-session' });
		expect(Number(attribute(run.attributes, 'agent_core.steps')?.intValue)).toBe(2);
		expect(run.parentSpanId ?? '').toBe('');
		const children = spans.filter((span) => span !== run);
		for (const child of children) {
			expect(child.traceId).toBe(run.traceId);
			expect(child.parentSpanId).toBe(run.spanId);
		}
		const chat = children.find((span) => span.name === 'chat m')!;
		expect(attribute(chat.attributes, 'gen_ai.response.finish_reasons')).toEqual({
			arrayValue: { values: [{ stringValue: 'stop' }] },
		});
		expect(attribute(chat.attributes, 'agent_core.repair')).toEqual({ boolValue: false });
		const tool = children.find((span) => span.name.startsWith('execute_tool'))!;
		expect(attribute(tool.attributes, 'gen_ai.tool.name')).toEqual({
			stringValue: 'json_transform',
		});
	});

	it('sends to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, ahead of the general endpoint', async () => {
		const child = await exportInChild(
			{
				OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/custom/traces`,
				OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
			},
			await countRun(),
		);
		expect(child.code).toBe(0);
		expect(received.map((item) => item.path)).toEqual(['POST /custom/traces']);
		expect(
			attribute(received[0].body.resourceSpans[0].resource.attributes, 'service.name'),
		).toEqual({ stringValue: 'agent-core' });
	});
});

describe('a collector that never answers', () => {
	const server = useScriptedServer();

	it('costs flush() and shutdown() at most a second each, and never holds the process after them', async () => {
		const sockets = new Set<Socket>();
		const silent = createServer((socket) => {
			sockets.add(socket);
			socket.on('error', () => {});
		});
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		try {
			server().setScript(countScript());
			const startedAt = Date.now();
			const result = await runAgent({ model: modelFor(server()), config, prompt: 'count' });
			// The exporter's own limit stays at its default (10 s): the bound is flush's and shutdown's, not the export's.
			const child = await exportInChild(
				{
					OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
				},
				{ result, requestModel: 'm', startedAt },
			);
			expect(child.code).toBe(0);
			expect(sockets.size).toBeGreaterThanOrEqual(1);
			expect(child.report.waitedMs).toBeGreaterThanOrEqual(900);
			expect(child.report.waitedMs).toBeLessThan(3_000);
			expect(child.heldMs).toBeLessThan(1_000);
		} finally {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => silent.close(() => resolve()));
		}
	});
});

describe('tracing is off unless configured', () => {
	it('makes no tracer without an OTLP endpoint', () => {
		expect(tracingFromEnvironment({})).toBeUndefined();
		expect(tracingFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
	});

	it('makes no tracer when OTEL_SDK_DISABLED is true', () => {
		expect(
			tracingFromEnvironment({
				OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
				OTEL_SDK_DISABLED: 'true',
			}),
		).toBeUndefined();
	});

	it('finds no ambient tracer when no global provider is registered', () => {
		expect(ambientTracer()).toBeUndefined();
	});

	it('uses a globally registered provider (n8n’s own) as the ambient tracer', async () => {
		const exporter = new InMemorySpanExporter();
		const provider = new TracerProvider({
			spanProcessors: [new SimpleSpanProcessor({ exporter })],
		});
		trace.setGlobalTracerProvider(provider);
		try {
			const tracer = ambientTracer();
			expect(tracer).toBeDefined();
			tracer!.startSpan('ambient').end();
			expect(
				exporter.getFinishedSpans().map((span) => [span.name, span.instrumentationScope.name]),
			).toEqual([['ambient', 'agent-core']]);
		} finally {
			trace.disable();
			await provider.shutdown();
		}
		expect(ambientTracer()).toBeUndefined();
	});
});
