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

/** Cuts text to `maxLength` characters with a visible marker saying how much was cut; 0 = no cut. */
export function truncateObservation(text: string, maxLength: number): string {
  if (maxLength <= 0 || text.length <= maxLength) return text;
  const cut = text.length - maxLength;
  return `${text.slice(0, maxLength)}… [cut ${cut} of ${text.length} characters]`;
}
