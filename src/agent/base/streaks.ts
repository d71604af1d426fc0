// What a run counts in a row: failed steps (the one repair turn, then the end) and repeated calls (the loop breaker).
import type { Tool } from '../../tools/tool';
import type { FinishReason, StepError } from '../../trace/types';
import { canonicalJson } from '../../validation/canonical-json';

/** Failures that get the one repair turn, each naming the finish reason of a second failure in a row. */
export type RepairReason = 'parse_error' | 'tool_error' | 'max_output_tokens' | 'output_invalid';

/**
 * Failed steps in a row: after the first, the model gets its one repair turn; a second ends the run, with
 * `max_output_tokens` only when both replies were cut at the output limit.
 */
export class FailureStreak {
	constructor(
		private count = 0,
		private lastType?: StepError['type'],
	) {}

	/** Whether the next step is the model's repair turn. */
	get repairing(): boolean {
		return this.count > 0;
	}

	/** How many failures in a row so far (carried in a paused run's state). */
	get length(): number {
		return this.count;
	}

	reset(): void {
		this.count = 0;
		this.lastType = undefined;
	}

	/** After a failed step: how the run ends on a second failure in a row; undefined when it gets the repair turn. */
	fail(
		error: StepError,
		reason: RepairReason,
	): { reason: FinishReason; detail: string } | undefined {
		this.count++;
		const previousCut = this.lastType === 'output_limit';
		this.lastType = error.type;
		if (this.count < 2) return undefined;
		return {
			reason: reason === 'max_output_tokens' && !previousCut ? 'parse_error' : reason,
			detail: `two failed turns in a row; last: ${error.message}`,
		};
	}
}

/** What became of an earlier call, as the model saw it. */
type Earlier = {
	step: number;
	count: number;
	outcome?: { ok: true; observation: string } | { ok: false; message: string };
};

/**
 * The loop breaker's memory as JSON, for a paused run's state: [call key, earlier] pairs. The key is the
 * tool's name and the canonical JSON of its call's form (`Tool.canonicalCall`). States paused before
 * tools had forms keyed every call by its args; those keys are still found (see `RepeatedCalls.find`).
 */
export type RepeatSnapshot = Array<[string, Earlier]>;

/** What to do with a requested call: run it, answer it from the earlier identical call, or end the run. */
export type RepeatDecision =
	| { next: 'run'; key: string }
	| { next: 'answer'; observation: string; ofStep: number }
	| { next: 'loop'; detail: string };

/** The call's key: its tool and what it would send; a tool whose form cannot be had is compared by its args. */
export function callKey(tool: Tool, args: Record<string, unknown>): string {
	let form: unknown = args;
	if (typeof tool.canonicalCall === 'function') {
		try {
			form = tool.canonicalCall(args) ?? args;
		} catch {
			form = args;
		}
	}
	return `${tool.name}\n${canonicalJson(form)}`;
}

/** Whether this call changes anything outside the run (`Tool.sideEffects`; absent means yes). */
export function hasSideEffects(tool: Tool, args: Record<string, unknown>): boolean {
	return typeof tool.sideEffects === 'function'
		? tool.sideEffects(args)
		: tool.sideEffects !== false;
}

/**
 * The loop breaker: the calls of one run by tool and what they would send (the tool's canonical form of
 * the call; by default its args, key order aside). A call that would send the same as an earlier one is a
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
		const key = callKey(tool, args);
		const earlier = this.find(tool, args, key);
		if (!earlier) {
			this.calls.set(key, { step, count: 1 });
			return { next: 'run', key };
		}
		earlier.count++;
		if (this.limit > 0 && earlier.count >= this.limit) {
			return {
				next: 'loop',
				detail: `${tool.name} was called ${earlier.count} times with the same arguments (loop_limit ${this.limit}); first at step ${earlier.step}`,
			};
		}
		const { outcome } = earlier;
		if (!hasSideEffects(tool, args)) {
			// A read that failed may succeed now: it runs again.
			if (!outcome?.ok) return { next: 'run', key };
			return {
				next: 'answer',
				ofStep: earlier.step,
				observation: `(repeated call: identical to step ${earlier.step}, not run again; the same result)\n${outcome.observation}`,
			};
		}
		const result =
			outcome === undefined
				? 'did not finish'
				: outcome.ok
					? `returned:\n${outcome.observation}`
					: `failed: ${outcome.message}`;
		return {
			next: 'answer',
			ofStep: earlier.step,
			observation:
				`(repeated call: this identical ${tool.name} call already ran at step ${earlier.step} and was not ` +
				`run again, since it has side effects. It ${result})`,
		};
	}

	/**
	 * The earlier call with this key. A state paused before the tool had a canonical form keyed the call by
	 * its args alone; such an entry is found by that key and moved to the new one, so a write made before
	 * the pause is still never made again after it.
	 */
	private find(tool: Tool, args: Record<string, unknown>, key: string): Earlier | undefined {
		const found = this.calls.get(key);
		if (found) return found;
		const argsKey = `${tool.name}\n${canonicalJson(args)}`;
		const old = argsKey === key ? undefined : this.calls.get(argsKey);
		if (!old) return undefined;
		this.calls.delete(argsKey);
		this.calls.set(key, old);
		return old;
	}

	/** The outcome of a call `decide` said to run, for the repeats that may follow. */
	record(
		key: string,
		step: number,
		outcome: { ok: true; observation: string } | { ok: false; message: string },
	): void {
		const earlier = this.calls.get(key);
		if (earlier) Object.assign(earlier, { step, outcome });
	}
}
