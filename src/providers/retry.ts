import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatRequest, ChatResponse } from './chat-model';
import { callAgainWithoutRefused, type DroppableField } from './refused-fields';

/**
 * Retries of model calls, done here instead of in the vendor SDKs: the SDKs' retry sleeps ignore the
 * abort signal (a `Retry-After: 50` kept a process alive 50 s after its run had already ended with
 * `timeout`). Here every wait is abortable, so no retry outlives `single_call_timeout`, the run's
 * `timeout` or a cancellation.
 *
 * The policy follows openai-node's own (provider-behaviours.md §1.8, [ON-client]): retry connection
 * errors, 408, 409, 429 and ≥ 500; `x-should-retry` from the server overrides that; wait `retry-after-ms`
 * or `retry-after` (seconds or an HTTP date) when it is between 0 and 60 s, else
 * `min(0.5 · 2^n, 8) s × (1 − random · 0.25)`. A wait the provider asks for in its body (Gemini's
 * `RetryInfo.retryDelay`, which it sends instead of a header: realworld case
 * `vercel:google:google-429-retry-info.json`) counts like `retry-after`. A wait the provider asked for that
 * would end after the call's deadline is not begun: the call fails at once with the provider's error, which
 * says so, instead of ending as a timeout.
 */

/** Default number of retries after the first attempt (openai-node's default). */
export const DEFAULT_MAX_RETRIES = 2;

/** A server-suggested wait longer than this is ignored in favour of the backoff, as openai-node 7.5 does. */
const MAX_HINTED_WAIT_MS = 60_000;

/**
 * A call as each adapter makes it: the first attempt without the fields its model object has seen refused
 * (`remembered`); only after a failure, the call again without each field the endpoint refused
 * (refused-fields.ts, which a call the endpoint takes never enters: issue #49). `refusedField` is the adapter's
 * reading of its endpoint's refusal.
 */
export function attemptWithoutRefused(
	request: ChatRequest,
	remembered: Set<DroppableField>,
	attempt: (dropped: ReadonlySet<DroppableField>) => Promise<ChatResponse>,
	refusedField: (
		error: unknown,
		request: ChatRequest,
		dropped: ReadonlySet<DroppableField>,
	) => DroppableField | undefined,
): Promise<ChatResponse> {
	const dropped = new Set(remembered);
	return attempt(dropped).catch((error: unknown) =>
		callAgainWithoutRefused(error, dropped, {
			request,
			remembered,
			attempt,
			refusedField: (refusal, without) => refusedField(refusal, request, without),
		}),
	);
}

/** What a failed attempt says about retrying. */
export interface RetryDecision {
	retry: boolean;
	/** The server's suggested wait, when it gave one. */
	waitMs?: number;
}

/** Runs `attempt` up to `1 + maxRetries` times; waits between attempts end at once when `signal` aborts. */
export async function withRetries<T>(
	attempt: () => Promise<T>,
	options: {
		maxRetries: number;
		signal: AbortSignal;
		classify: (error: unknown) => RetryDecision;
		/** When the call's time runs out (ms since the epoch, see ChatRequest.deadline). */
		deadline?: number;
	},
): Promise<T> {
	for (let retriesDone = 0; ; retriesDone++) {
		try {
			return await attempt();
		} catch (error) {
			if (options.signal.aborted || retriesDone >= options.maxRetries) throw error;
			const decision = options.classify(error);
			if (!decision.retry) throw error;
			if (
				decision.waitMs !== undefined &&
				options.deadline !== undefined &&
				Date.now() + decision.waitMs >= options.deadline
			) {
				throw withNote(
					error,
					`the provider asked to retry in ${formatSeconds(decision.waitMs)}, after this call's deadline, so it was not retried`,
				);
			}
			// An abort during the wait rejects with the signal's reason; the engine reports it as a timeout or cancellation.
			await sleep(decision.waitMs ?? backoffMs(retriesDone), undefined, { signal: options.signal });
		}
	}
}

/** Adds a sentence in brackets to an error's message (the error keeps its class, status and fields). */
function withNote(error: unknown, note: string): unknown {
	if (
		error instanceof Error ||
		(typeof error === 'object' && error !== null && typeof (error as Error).message === 'string')
	) {
		(error as Error).message = `${(error as Error).message} (${note})`;
	}
	return error;
}

function formatSeconds(milliseconds: number): string {
	return `${Math.round(milliseconds / 100) / 10} s`;
}

function backoffMs(retriesDone: number): number {
	return Math.min(500 * 2 ** retriesDone, 8_000) * (1 - Math.random() * 0.25);
}

/**
 * The retry decision for an HTTP status and response headers (any object with `get(name)`), as
 * openai-node makes it. `status` undefined means the request never got an answer (connection error).
 */
export function decideByStatus(
	status: number | undefined,
	headers?: { get(name: string): string | null | undefined },
	/** A wait the provider asked for in its error body (e.g. Gemini's RetryInfo), used when no header gives one. */
	bodyWaitMs?: number,
): RetryDecision {
	const shouldRetry = headers?.get('x-should-retry');
	if (shouldRetry === 'true') return { retry: true, waitMs: hintedWaitMs(headers, bodyWaitMs) };
	if (shouldRetry === 'false') return { retry: false };
	if (status === undefined) return { retry: true };
	const retry = status === 408 || status === 409 || status === 429 || status >= 500;
	return retry ? { retry, waitMs: hintedWaitMs(headers, bodyWaitMs) } : { retry: false };
}

function hintedWaitMs(
	headers: { get(name: string): string | null | undefined } | undefined,
	bodyWaitMs: number | undefined,
): number | undefined {
	let waitMs: number | undefined;
	if (!headers) return withinHintRange(bodyWaitMs);
	const milliseconds = headers.get('retry-after-ms');
	if (milliseconds) waitMs = Number.parseFloat(milliseconds);
	const seconds = headers.get('retry-after');
	if ((waitMs === undefined || Number.isNaN(waitMs)) && seconds) {
		const asNumber = Number.parseFloat(seconds);
		waitMs = Number.isNaN(asNumber) ? Date.parse(seconds) - Date.now() : asNumber * 1000;
	}
	return withinHintRange(waitMs === undefined || Number.isNaN(waitMs) ? bodyWaitMs : waitMs);
}

function withinHintRange(waitMs: number | undefined): number | undefined {
	if (waitMs === undefined || Number.isNaN(waitMs) || waitMs < 0 || waitMs > MAX_HINTED_WAIT_MS)
		return undefined;
	return waitMs;
}
