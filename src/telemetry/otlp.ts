import type { Tracer } from '@opentelemetry/api';
import { otelApi } from './run-spans';

/** A tracer of Agent Core's own, exporting over OTLP/HTTP, and how to flush and close it. */
export interface RunTracing {
  tracer: Tracer;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const TRACER_NAME = 'agent-core';

/**
 * OTLP/HTTP export (JSON) when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set, as
 * OpenTelemetry's own SDKs read them (the traces endpoint as given; the general one with /v1/traces), and
 * OTEL_SDK_DISABLED is not "true"; otherwise undefined: tracing is off. The provider is Agent Core's own,
 * not registered globally, so it never changes another library's tracing in the same process. Nothing is
 * cached here: each call makes a new provider, and the caller keeps it.
 */
export function tracingFromEnvironment(env: NodeJS.ProcessEnv = process.env): RunTracing | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const url = tracesUrl(env);
  if (!url) return undefined;
  // Loaded here, not at the top: a process that never traces never pays for loading the SDK.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { TracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // The URL is passed explicitly, so the exporter sends where this env says, whatever process.env holds.
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'agent-core' }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) })],
  });
  return {
    tracer: provider.getTracer(TRACER_NAME),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
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
  const provider = trace.getTracerProvider() as { getDelegateTracer?: (name: string) => Tracer | undefined };
  if (typeof provider.getDelegateTracer === 'function' && !provider.getDelegateTracer(TRACER_NAME)) return undefined;
  return trace.getTracer(TRACER_NAME);
}
