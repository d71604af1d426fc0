import { HttpRequestError } from './error';

/** The smaller of `timeout_ms` and the engine's abort signal; `watch` listeners run once when either fires. */
export class Deadline {
	private readonly controller = new AbortController();
	private readonly started = performance.now();
	private readonly timer: NodeJS.Timeout;
	private cause: 'timeout' | 'signal' | undefined;
	private readonly onSignal = () => this.stop('signal');

	constructor(
		private readonly timeoutMs: number,
		private readonly outer: AbortSignal,
	) {
		this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
		if (outer.aborted) this.stop('signal');
		else outer.addEventListener('abort', this.onSignal, { once: true });
	}

	get stopped(): boolean {
		return this.controller.signal.aborted;
	}

	watch(listener: () => void): () => void {
		if (this.controller.signal.aborted) {
			queueMicrotask(listener);
			return () => undefined;
		}
		this.controller.signal.addEventListener('abort', listener, { once: true });
		return () => this.controller.signal.removeEventListener('abort', listener);
	}

	error(): HttpRequestError {
		if (this.cause === 'timeout') {
			return new HttpRequestError(
				`http_request timed out after ${this.timeoutMs} ms without a complete response; retry, raise timeout_ms (up to 300000), or ask for less data`,
			);
		}
		const elapsed = Math.round(performance.now() - this.started);
		return new HttpRequestError(
			`http_request timed out after ${elapsed} ms: the tool call was stopped by the run's time limit or cancellation`,
		);
	}

	dispose(): void {
		clearTimeout(this.timer);
		this.outer.removeEventListener('abort', this.onSignal);
	}

	private stop(cause: 'timeout' | 'signal'): void {
		if (this.cause) return;
		this.cause = cause;
		this.controller.abort();
	}
}
