import type { Tool } from '../tools/tool';
import { canonicalJson } from '../validation/canonical-json';

/** What became of an earlier call, as the model saw it. */
type Earlier = { step: number; count: number; outcome?: { ok: true; observation: string } | { ok: false; message: string } };

/** The loop breaker's memory as JSON, for a paused run's state. */
export type RepeatSnapshot = Array<[string, Earlier]>;

/** What to do with a requested call: run it, answer it from the earlier identical call, or end the run. */
export type RepeatDecision =
  | { next: 'run'; key: string }
  | { next: 'answer'; observation: string; ofStep: number }
  | { next: 'loop'; detail: string };

function hasSideEffects(tool: Tool, args: Record<string, unknown>): boolean {
  return typeof tool.sideEffects === 'function' ? tool.sideEffects(args) : tool.sideEffects !== false;
}

/**
 * The loop breaker: the calls of one run by tool and canonical args. A call identical to an earlier one is a
 * repeat. A repeated read is answered from the earlier observation without running the tool; a repeated
 * call with side effects is never run twice (the model is told it already ran, and what it returned); the
 * `limit`-th identical call ends the run (`loop`). `limit` 0 turns off that end, not the no-second-write rule.
 */
export class RepeatedCalls {
  private readonly calls: Map<string, Earlier>;

  constructor(
    private readonly limit: number,
    snapshot: RepeatSnapshot = [],
  ) {
    this.calls = new Map(snapshot);
  }

  snapshot(): RepeatSnapshot {
    return [...this.calls];
  }

  decide(tool: Tool, args: Record<string, unknown>, step: number): RepeatDecision {
    const key = `${tool.name}\n${canonicalJson(args)}`;
    const earlier = this.calls.get(key);
    if (!earlier) {
      this.calls.set(key, { step, count: 1 });
      return { next: 'run', key };
    }
    earlier.count++;
    if (this.limit > 0 && earlier.count >= this.limit) {
      return { next: 'loop', detail: `${tool.name} was called ${earlier.count} times with the same arguments (loop_limit ${this.limit}); first at step ${earlier.step}` };
    }
    const { outcome } = earlier;
    if (!hasSideEffects(tool, args)) {
      // A read that failed may succeed now: it runs again.
      if (!outcome?.ok) return { next: 'run', key };
      return { next: 'answer', ofStep: earlier.step, observation: `(repeated call: identical to step ${earlier.step}, not run again; the same result)\n${outcome.observation}` };
    }
    const result = outcome === undefined ? 'did not finish' : outcome.ok ? `returned:\n${outcome.observation}` : `failed: ${outcome.message}`;
    return {
      next: 'answer',
      ofStep: earlier.step,
      observation: `(repeated call: this identical ${tool.name} call already ran at step ${earlier.step} and was not run again, since it has side effects. It ${result})`,
    };
  }

  /** The outcome of a call `decide` said to run, for the repeats that may follow. */
  record(key: string, step: number, outcome: { ok: true; observation: string } | { ok: false; message: string }): void {
    const earlier = this.calls.get(key);
    if (earlier) Object.assign(earlier, { step, outcome });
  }
}
