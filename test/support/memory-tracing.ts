// A tracer of a test's own (not registered globally) whose ended spans stay in memory, for the span suites.
import type { Tracer } from '@opentelemetry/api';
import {
	InMemorySpanExporter,
	type ReadableSpan,
	SimpleSpanProcessor,
	TracerProvider,
} from '@opentelemetry/sdk-trace';

/** The tracer, and `finish` to read every span it ended (read before shutdown: shutting down empties the exporter). */
export function memoryTracing(): { tracer: Tracer; finish(): Promise<ReadableSpan[]> } {
	const exporter = new InMemorySpanExporter();
	const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
	return {
		tracer: provider.getTracer('test'),
		async finish() {
			const spans = exporter.getFinishedSpans();
			await provider.shutdown();
			return spans;
		},
	};
}
