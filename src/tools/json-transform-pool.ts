import { Worker } from 'node:worker_threads';
import {
	JMESPATH_WORKER_SOURCE,
	type JmespathWorkerData,
	type JmespathWorkerReply,
	type JmespathWorkerRequest,
} from './json-transform-worker-source';

/** How one evaluation ended, as seen from the main thread. */
export type JmespathOutcome =
	| JmespathWorkerReply
	| { outcome: 'out-of-memory' }
	| { outcome: 'worker-failed'; message: string };

/** Sizing of a {@link JmespathWorkerPool}. */
export interface JmespathPoolOptions {
	/** Most workers alive at once; calls beyond that wait in order. */
	size: number;
	/** The V8 old-generation limit of each worker (`resourceLimits.maxOldGenerationSizeMb`). */
	memoryLimitMb: number;
	/** Longest result, in characters of JSON, a worker may send back. */
	maxResultLength: number;
}

interface PendingEvaluation {
	request: JmespathWorkerRequest;
	signal: AbortSignal;
	resolve: (outcome: JmespathOutcome) => void;
	reject: (reason: unknown) => void;
	onAbort: () => void;
}

interface WorkerSlot {
	worker: Worker;
	current?: PendingEvaluation;
}

/**
 * Runs JMESPath in worker threads, so that no expression holds the main event loop: a call whose signal
 * aborts terminates its worker mid-evaluation (a replacement starts for the next call), and a call that
 * outgrows the memory limit kills only its worker. Workers stay warm between calls, since starting one
 * costs tens of milliseconds, and are unref'd while idle so they never keep the process alive.
 */
export class JmespathWorkerPool {
	private readonly slots: WorkerSlot[] = [];
	private readonly queue: PendingEvaluation[] = [];

	constructor(private readonly options: JmespathPoolOptions) {}

	/** Evaluates `expression` on the data given as JSON text; rejects with `signal.reason` when the signal aborts first. */
	evaluate(dataText: string, expression: string, signal: AbortSignal): Promise<JmespathOutcome> {
		if (signal.aborted) return Promise.reject(signal.reason);
		return new Promise<JmespathOutcome>((resolve, reject) => {
			const pending: PendingEvaluation = {
				request: { dataText, expression },
				signal,
				resolve,
				reject,
				onAbort: () => this.abandon(pending),
			};
			signal.addEventListener('abort', pending.onAbort, { once: true });
			this.queue.push(pending);
			this.dispatch();
		});
	}

	private dispatch(): void {
		while (this.queue.length > 0) {
			const slot =
				this.slots.find((candidate) => !candidate.current) ??
				(this.slots.length < this.options.size ? this.spawn() : undefined);
			if (!slot) return;
			const pending = this.queue.shift() as PendingEvaluation;
			slot.current = pending;
			slot.worker.ref();
			slot.worker.postMessage(pending.request);
		}
	}

	private spawn(): WorkerSlot {
		const workerData: JmespathWorkerData = {
			jmespathPath: require.resolve('jmespath'),
			maxResultLength: this.options.maxResultLength,
		};
		const worker = new Worker(JMESPATH_WORKER_SOURCE, {
			eval: true,
			workerData,
			resourceLimits: { maxOldGenerationSizeMb: this.options.memoryLimitMb },
		});
		const slot: WorkerSlot = { worker };
		worker.on('message', (reply: JmespathWorkerReply) => this.finish(slot, reply));
		worker.on('error', (error: Error & { code?: string }) =>
			this.fail(
				slot,
				error.code === 'ERR_WORKER_OUT_OF_MEMORY'
					? { outcome: 'out-of-memory' }
					: { outcome: 'worker-failed', message: error.message },
			),
		);
		worker.on('exit', (code) =>
			this.fail(slot, {
				outcome: 'worker-failed',
				message: `the JMESPath worker stopped (exit code ${code})`,
			}),
		);
		this.slots.push(slot);
		return slot;
	}

	private finish(slot: WorkerSlot, reply: JmespathWorkerReply): void {
		const pending = slot.current;
		slot.current = undefined;
		slot.worker.unref();
		if (pending) this.settle(pending, reply);
		this.dispatch();
	}

	/** The worker died (memory limit, failed start): its call gets the reason, the next call a fresh worker. */
	private fail(slot: WorkerSlot, outcome: JmespathOutcome): void {
		this.discard(slot);
		if (slot.current) this.settle(slot.current, outcome);
		this.dispatch();
	}

	private abandon(pending: PendingEvaluation): void {
		const queued = this.queue.indexOf(pending);
		if (queued >= 0) this.queue.splice(queued, 1);
		const slot = this.slots.find((candidate) => candidate.current === pending);
		if (slot) {
			this.discard(slot);
			// terminate() stops even a loop that never yields; the worker's isolate is torn down off this thread.
			void slot.worker.terminate();
		}
		pending.reject(pending.signal.reason);
		this.dispatch();
	}

	private discard(slot: WorkerSlot): void {
		const index = this.slots.indexOf(slot);
		if (index < 0) return;
		this.slots.splice(index, 1);
		slot.worker.removeAllListeners();
		// A worker that is being torn down may still emit; with no listener an 'error' event would throw here.
		slot.worker.on('error', () => undefined);
		slot.worker.unref();
	}

	private settle(pending: PendingEvaluation, outcome: JmespathOutcome): void {
		pending.signal.removeEventListener('abort', pending.onAbort);
		pending.resolve(outcome);
	}
}
