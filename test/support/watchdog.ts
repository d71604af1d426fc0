import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** A stall of the event loop this long fails the suite: it froze every other workflow of an n8n process. */
const FAILING_STALL_MS = 3_000;

/** Where every watched test's worst stall is appended, one JSON line each; `node scripts/stall-report.js` sums it up. */
export const STALL_LOG = join(__dirname, '..', '..', 'test-output', 'event-loop-stalls.jsonl');

/**
 * Watches the event loop for the enclosing describe block, test by test, and reports the worst stall it
 * saw. It fails only on a stall of seconds (these machines are shared and noisy: small stalls are not
 * findings). Each test's worst stall goes to STALL_LOG, so the whole hostile set's worst can be printed.
 */
export function useEventLoopWatchdog(label: string): void {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let worstOfSuite = 0;
  beforeAll(() => {
    histogram.enable();
    mkdirSync(join(STALL_LOG, '..'), { recursive: true });
  });
  beforeEach(() => histogram.reset());
  afterEach(() => {
    const worstMs = histogram.max / 1e6;
    worstOfSuite = Math.max(worstOfSuite, worstMs);
    const test = expect.getState().currentTestName ?? '(unnamed)';
    appendFileSync(STALL_LOG, `${JSON.stringify({ suite: label, test, worst_ms: Number(worstMs.toFixed(1)) })}\n`);
  });
  afterAll(() => {
    histogram.disable();
    process.stdout.write(`event-loop watchdog (${label}): worst stall ${worstOfSuite.toFixed(1)} ms\n`);
    expect(worstOfSuite).toBeLessThan(FAILING_STALL_MS);
  });
}
