import { monitorEventLoopDelay } from 'node:perf_hooks';

/** A stall of the event loop this long fails the suite: it froze every other workflow of an n8n process. */
const FAILING_STALL_MS = 3_000;

/**
 * Watches the event loop for the enclosing describe block and reports the worst stall it saw. It fails
 * only on a stall of seconds (these machines are shared and noisy: small stalls are not findings).
 */
export function useEventLoopWatchdog(label: string): void {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  beforeAll(() => histogram.enable());
  afterAll(() => {
    histogram.disable();
    const worstMs = histogram.max / 1e6;
    // The report the issue asks for: the worst stall across the hostile suite.
    process.stdout.write(`event-loop watchdog (${label}): worst stall ${worstMs.toFixed(1)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms\n`);
    expect(worstMs).toBeLessThan(FAILING_STALL_MS);
  });
}
