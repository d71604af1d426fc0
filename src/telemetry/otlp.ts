import type { Agent } from 'node:http';
import type { Socket } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import { checkKnownOptions, type OptionNames } from '../core/known-options';
import { otelApi } from './run-spans';

/** A tracer of Agent Core's own, exporting over OTLP/HTTP, and how to flush and close it. */
export interface RunTracing {
	tracer: Tracer;
	/** Exports the spans ended so far; waits at most FLUSH_BOUND_MS and never rejects. */
	flush(): Promise<void>;
	/** Flushes (at most FLUSH_BOUND_MS), then ends every connection to the collector: nothing of tracing holds the process after it. */
	shutdown(): Promise<void>;
}

/** What `tracingFromEnvironment` may be told beyond the environment. */
export interface TracingOptions {
	/**
	 * How long one export may take, retries included; by default the exporter's own (OTEL_EXPORTER_OTLP_TIMEOUT,
	 * else 10 s). The CLI sets FLUSH_BOUND_MS: a command line should not wait on its telemetry.
	 */
	exportTimeoutMs?: number;
}

const TRACING_OPTIONS = { exportTimeoutMs: true } satisfies OptionNames<TracingOptions>;

const TRACER_NAME = 'agent-core';
/** The longest flush() and shutdown() wait for the collector: one that refuses, hangs or trickles costs a second at most. */
export const FLUSH_BOUND_MS = 1000;

/**
 * OTLP/HTTP export (JSON) when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set, as
 * OpenTelemetry's own SDKs read them (the traces endpoint as given; the general one with /v1/traces), and
 * OTEL_SDK_DISABLED is not "true"; otherwise undefined: tracing is off. The provider is Agent Core's own,
 * not registered globally, so it never changes another library's tracing in the same process. Nothing is
 * cached here: each call makes a new provider, and the caller keeps it.
 */
export function tracingFromEnvironment(
	env: NodeJS.ProcessEnv = process.env,
	options: TracingOptions = {},
): RunTracing | undefined {
	checkKnownOptions('tracingFromEnvironment', options, TRACING_OPTIONS);
	if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
	const url = tracesUrl(env);
	if (!url) return undefined;
	// Loaded here, not at the top: a process that never traces never pays for loading the SDK.
	/* eslint-disable @typescript-eslint/no-require-imports */
	const { TracerProvider, BatchSpanProcessor } =
		require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
	const { OTLPTraceExporter } =
		require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
	const { resourceFromAttributes } =
		require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
	/* eslint-enable @typescript-eslint/no-require-imports */
	const connections = new ExportConnections();
	// The URL is passed explicitly, so the exporter sends where this env says, whatever process.env holds.
	const exporter = new OTLPTraceExporter({
		url,
		httpAgentOptions: (protocol) => connections.agentFor(protocol),
		...(options.exportTimeoutMs !== undefined ? { timeoutMillis: options.exportTimeoutMs } : {}),
	});
	const provider = new TracerProvider({
		resource: resourceFromAttributes({
			'service.name': env.OTEL_SERVICE_NAME?.trim() || 'agent-core',
		}),
		spanProcessors: [new BatchSpanProcessor({ exporter })],
	});
	return {
		tracer: provider.getTracer(TRACER_NAME),
		flush: () => settledWithin(provider.forceFlush(), FLUSH_BOUND_MS),
		shutdown: async () => {
			await settledWithin(provider.shutdown(), FLUSH_BOUND_MS);
			connections.close();
		},
	};
}

/** Resolves when `work` settles or after `ms`, whichever is first; the timer is cleared as soon as it is not needed. */
function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
	return new Promise((resolve) => {
		const timer = setTimeout(resolve, ms);
		work
			.catch(() => undefined)
			.finally(() => {
				clearTimeout(timer);
				resolve();
			});
	});
}

/** Why an export was cut off. It has no network error code, so the exporter does not schedule a retry. */
class ExportStopped extends Error {
	override readonly name = 'ExportStopped';
}

/**
 * The exporter's sockets, so that shutdown can end them: Node's `req.setTimeout` (the exporter's only
 * limit on a request) counts idle time, so a collector trickling a byte now and then would hold a request,
 * and the process, forever. After `close()` a socket is destroyed as soon as it is made.
 */
class ExportConnections {
	private readonly open = new Set<Socket>();
	private closed = false;

	agentFor(protocol: string): Agent {
		// Loaded lazily, as the exporter's own factory does, so that an http instrumentation loaded first still sees it.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { Agent } = (
			protocol === 'http:' ? require('node:http') : require('node:https')
		) as typeof import('node:http');
		const agent = new Agent({ keepAlive: true });
		const create = agent.createConnection.bind(agent) as (...args: unknown[]) => Socket;
		agent.createConnection = ((...args: unknown[]) =>
			this.track(create(...args))) as typeof agent.createConnection;
		return agent;
	}

	close(): void {
		this.closed = true;
		for (const socket of this.open)
			socket.destroy(new ExportStopped('tracing was shut down before the collector answered'));
	}

	private track(socket: Socket): Socket {
		if (this.closed) {
			// Destroyed on the next tick, once the request listens for its socket's error.
			process.nextTick(() => socket.destroy(new ExportStopped('tracing is shut down')));
			return socket;
		}
		this.open.add(socket);
		socket.once('close', () => this.open.delete(socket));
		return socket;
	}
}

function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
	const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
	if (traces) return traces;
	const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
	return general ? `${general.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * The tracer of a globally registered TracerProvider (n8n's own OpenTelemetry set-up, say), or undefined
 * when none is. The API always hands out a ProxyTracerProvider, which has a delegate only once a real
 * provider was registered; a provider without getDelegateTracer is a real one, registered directly.
 */
export function ambientTracer(): Tracer | undefined {
	const { trace } = otelApi();
	const provider = trace.getTracerProvider() as {
		getDelegateTracer?: (name: string) => Tracer | undefined;
	};
	if (typeof provider.getDelegateTracer === 'function' && !provider.getDelegateTracer(TRACER_NAME))
		return undefined;
	return trace.getTracer(TRACER_NAME);
}
