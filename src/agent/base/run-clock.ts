// The run's time: its deadline and cancellation, each model or tool call's limit, on one timer, and why an aborted run ended.
/**
 * The time limits of a run and of each of its model and tool calls, and their cancellation, on one timer per
 * run: a call costs a Set entry, not a timer, an AbortController and two abort listeners (2 % of the
 * engine's CPU in issue #29's profile).
 */

/** Raised inside the loop when a time limit fires; `scope` says which one. */
export class TimeLimitError extends Error {
	override readonly name = 'TimeLimitError';
	constructor(
		readonly scope: 'call' | 'run' | 'cancelled',
		message: string,
	) {
		super(message);
	}
}

/** One call's limit: aborted with the run or once its `single_call_timeout` has passed. */
export interface CallLimit {
	/** The call's signal, for the SDK or the tool; made when first read (a tool that never reads it costs none). */
	readonly signal: AbortSignal;
	/** True once the call's own time ran out (as opposed to the run's). */
	timedOut(): boolean;
	/**
	 * Settles with `work`, or rejects with the abort's reason as soon as the call is aborted: a tool or SDK that
	 * ignores its signal cannot hold the run past its limits.
	 */
	race<T>(work: Promise<T>): Promise<T>;
	/** Ends the call's limit: later aborts of the run no longer reach it. */
	dispose(): void;
}

/** The clocks of the runs going on, by their signal (see runClock). */
const clocks = new WeakMap<AbortSignal, RunClock>();

class Call implements CallLimit {
	private controller?: AbortController;
	private abortedWith?: { reason: unknown };
	private rejectRace?: (reason: unknown) => void;
	private ranOut = false;

	constructor(
		/** `performance.now()` past which the call has run out of time. */
		readonly deadline: number,
		readonly seconds: number,
		private readonly clock: RunClock,
	) {}

	get signal(): AbortSignal {
		if (!this.controller) {
			this.controller = new AbortController();
			if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
		}
		return this.controller.signal;
	}

	get aborted(): boolean {
		return this.abortedWith !== undefined;
	}

	timedOut(): boolean {
		return this.ranOut;
	}

	abort(reason: unknown, ranOut: boolean): void {
		if (this.abortedWith) return;
		this.abortedWith = { reason };
		this.ranOut = ranOut;
		this.controller?.abort(reason);
		this.rejectRace?.(reason);
	}

	race<T>(work: Promise<T>): Promise<T> {
		if (this.abortedWith) {
			work.catch(() => undefined);
			return Promise.reject(this.abortedWith.reason);
		}
		return new Promise<T>((resolve, reject) => {
			this.rejectRace = reject;
			// A rejection after the abort's finds the promise settled, so it is never unhandled.
			work.then(resolve, reject);
		});
	}

	dispose(): void {
		this.rejectRace = undefined;
		this.clock.end(this);
	}
}

/**
 * The deadlines of one run: its own (optional) and those of the calls running, on one timer armed for the
 * earliest. A run's calls follow each other with the same timeout, so each new deadline is later than the
 * one the timer waits for and the timer stays as it is; when it fires it ends what is due and is armed for
 * the next deadline. A timer that fires early (Node's timer clock lags `performance.now()` within a busy
 * tick) ends nothing before its deadline.
 */
export class RunClock {
	private readonly running = new Set<Call>();
	private timer: ReturnType<typeof setTimeout> | undefined;
	private timerAt = Infinity;
	private runDeadline = Infinity;
	private onRunOut?: () => void;

	constructor(
		private readonly runSignal: AbortSignal,
		/** A run's clock (see runLimit) lasts until the run ends; else it ends with its only call. */
		private readonly lasting: boolean,
	) {}

	/** Calls `onRunOut` once `seconds` have passed, unless disposed first. */
	limitRun(seconds: number, onRunOut: () => void): void {
		this.onRunOut = onRunOut;
		this.runDeadline = performance.now() + seconds * 1000;
		this.armFor(this.runDeadline);
	}

	/** Aborts every call running with the run's reason: the run's signal has fired. */
	readonly abortCalls = (): void => {
		for (const call of this.running) call.abort(this.runSignal.reason, false);
	};

	start(seconds: number): Call {
		const call = new Call(performance.now() + seconds * 1000, seconds, this);
		if (this.runSignal.aborted) {
			call.abort(this.runSignal.reason, false);
			return call;
		}
		this.running.add(call);
		this.armFor(call.deadline);
		return call;
	}

	end(call: Call): void {
		this.running.delete(call);
		if (!this.lasting) this.dispose();
	}

	dispose(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.timerAt = Infinity;
		this.runDeadline = Infinity;
		this.running.clear();
		if (this.lasting) clocks.delete(this.runSignal);
		else this.runSignal.removeEventListener('abort', this.abortCalls);
	}

	/** Only a clock that is not a run's own listens to the signal; a run's is told by runLimit, which aborts it. */
	listen(): this {
		this.runSignal.addEventListener('abort', this.abortCalls, { once: true });
		return this;
	}

	private armFor(deadline: number): void {
		if (deadline >= this.timerAt) return;
		clearTimeout(this.timer);
		this.timerAt = deadline;
		this.timer = setTimeout(
			() => this.fire(),
			Math.max(1, Math.ceil(deadline - performance.now())),
		);
	}

	private fire(): void {
		this.timer = undefined;
		this.timerAt = Infinity;
		const now = performance.now();
		if (this.runDeadline <= now) {
			this.runDeadline = Infinity;
			this.onRunOut?.();
		}
		let next = this.runDeadline;
		for (const call of this.running) {
			if (call.aborted) continue;
			if (call.deadline <= now)
				call.abort(
					new TimeLimitError('call', `no answer within single_call_timeout (${call.seconds} s)`),
					true,
				);
			else next = Math.min(next, call.deadline);
		}
		if (next < Infinity) this.armFor(next);
	}
}

/** The clock of the run whose signal is `runSignal`, which its calls then share until `dispose()` ends the run. */
export function runClock(runSignal: AbortSignal): RunClock {
	const clock = new RunClock(runSignal, true);
	clocks.set(runSignal, clock);
	return clock;
}

/**
 * The limit of one model or tool call: aborted with `runSignal` or after `seconds`. The caller must
 * `dispose()` it when the call is over. Under a signal that no run's clock keeps (see runClock) the call
 * gets a timer and an abort listener of its own.
 */
export function callLimit(runSignal: AbortSignal, seconds: number): CallLimit {
	return (clocks.get(runSignal) ?? new RunClock(runSignal, false).listen()).start(seconds);
}

/**
 * Aborts `controller` when the run's `timeout` (seconds) passes or the caller's `external` signal fires
 * (a cancellation), and with it every model or tool call running (see callLimit); `dispose()` once the run
 * is over. The run's deadline and its calls' share one timer (see RunClock).
 */
export function runLimit(
	controller: AbortController,
	timeoutSeconds: number,
	external?: AbortSignal,
): { dispose: () => void } {
	const clock = runClock(controller.signal);
	const stop = (reason: TimeLimitError) => {
		controller.abort(reason);
		clock.abortCalls();
	};
	clock.limitRun(timeoutSeconds, () =>
		stop(new TimeLimitError('run', `the run did not finish within timeout (${timeoutSeconds} s)`)),
	);
	const cancel = () => stop(new TimeLimitError('cancelled', 'the run was cancelled'));
	if (external?.aborted) cancel();
	external?.addEventListener('abort', cancel, { once: true });
	return {
		dispose: () => {
			clock.dispose();
			external?.removeEventListener('abort', cancel);
		},
	};
}

/** Why an aborted run ended: `cancelled` from outside, else `timeout`, with the abort's own message. */
export function abortedReason(reason: unknown): {
	reason: 'cancelled' | 'timeout';
	detail: string;
} {
	const cancelled = reason instanceof TimeLimitError && reason.scope === 'cancelled';
	const detail = describeAbort(reason);
	return cancelled ? { reason: 'cancelled', detail } : timeLimit(detail);
}

/** A time limit reached: the run's timeout, or one call's (single_call_timeout) when its model call ran out. */
export const timeLimit = (detail: string) => ({ reason: 'timeout' as const, detail });

/** An abort's reason as a sentence. */
export function describeAbort(reason: unknown): string {
	// Every abort in the engine carries a TimeLimitError; an outside signal may carry anything.
	return reason instanceof Error ? reason.message : 'the run was stopped';
}
