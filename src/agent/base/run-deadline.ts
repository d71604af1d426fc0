// The run's own deadline and its cancellation from outside, on the run clock, and why an aborted run ended.
import { runClock, TimeLimitError } from './run-clock';

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
