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

/**
 * Aborts `controller` when the run's `timeout` (seconds) passes or the caller's `external` signal fires
 * (a cancellation); `dispose()` once the run is over.
 */
export function runLimit(controller: AbortController, timeoutSeconds: number, external?: AbortSignal): { dispose: () => void } {
  const timer = setTimeout(() => controller.abort(new TimeLimitError('run', `the run did not finish within timeout (${timeoutSeconds} s)`)), timeoutSeconds * 1000);
  const cancel = () => controller.abort(new TimeLimitError('cancelled', 'the run was cancelled'));
  if (external?.aborted) cancel();
  external?.addEventListener('abort', cancel, { once: true });
  return {
    dispose: () => {
      clearTimeout(timer);
      external?.removeEventListener('abort', cancel);
    },
  };
}

/** Why an aborted run ended: `cancelled` from outside, else `timeout`, with the abort's own message. */
export function abortedReason(reason: unknown): { reason: 'cancelled' | 'timeout'; detail: string } {
  const cancelled = reason instanceof TimeLimitError && reason.scope === 'cancelled';
  return { reason: cancelled ? 'cancelled' : 'timeout', detail: describeAbort(reason) };
}

/** An abort's reason as a sentence. */
export function describeAbort(reason: unknown): string {
  // Every abort in the engine carries a TimeLimitError; an outside signal may carry anything.
  return reason instanceof Error ? reason.message : 'the run was stopped';
}

/**
 * Signal for one model or tool call: aborted by the whole-run signal or after `seconds`.
 * The caller must `dispose()` it so finished calls leave no timer behind.
 */
export function callSignal(runSignal: AbortSignal, seconds: number): { signal: AbortSignal; dispose: () => void; timedOut: () => boolean } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new TimeLimitError('call', `no answer within single_call_timeout (${seconds} s)`));
  }, seconds * 1000);
  const forward = () => controller.abort(runSignal.reason);
  if (runSignal.aborted) forward();
  else runSignal.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', forward);
    },
  };
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: a tool or SDK that
 * ignores its signal cannot hold the run past its limits.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
