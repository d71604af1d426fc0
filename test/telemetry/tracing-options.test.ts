import { tracingFromEnvironment, type RunTracing } from '../../src/index';
import { startCanary, useLoopbackGuard, type TestServer } from '../support/servers/http-servers';
import { expectNearMiss, refusalOf } from '../support/option-refusal';

/**
 * Issue #48: `tracingFromEnvironment(env, { exportTimeoutMS })` kept the exporter's 10 s timeout unnoticed. Now
 * it is refused before a tracer exists: the collector the environment names is a canary that must stay untouched.
 */
describe('tracingFromEnvironment refuses an option it does not know, before anything is exported', () => {
	useLoopbackGuard();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));

	/** Traces one span with `tracing` and shuts it down (which exports the span). */
	async function traceOne(tracing: RunTracing | undefined): Promise<void> {
		if (!tracing) return;
		tracing.tracer.startSpan('one').end();
		await tracing.shutdown();
	}

	it('exportTimeoutMS: an InputError naming exportTimeoutMs, even with tracing off; spelt right, a tracer', async () => {
		const env = { OTEL_EXPORTER_OTLP_ENDPOINT: canary.url };
		const error = await refusalOf(() =>
			traceOne(tracingFromEnvironment(env, { exportTimeoutMS: 500 } as never)),
		);
		expectNearMiss(error, 'tracingFromEnvironment', 'exportTimeoutMS', 'exportTimeoutMs');
		const off = { ...env, OTEL_SDK_DISABLED: 'true' };
		const whenOff = await refusalOf(() => tracingFromEnvironment(off, { timeout: 500 } as never));
		expect(whenOff).toMatchObject({ name: 'InputError', field: 'timeout' });

		// Spelt right, a tracer is made (jest's sandbox refuses the exporter's dynamic import of node:http, so the
		// export itself is test/telemetry/telemetry.test.ts's, in a child process).
		const tracing = tracingFromEnvironment(env, { exportTimeoutMs: 500 });
		expect(tracing?.tracer).toBeDefined();
		await tracing?.shutdown();
	});
});
