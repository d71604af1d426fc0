// When the MCP transport's fetch tries a request again: the statuses that ask for it, how many attempts, how long to wait.

/** Answers that say "try again": 429 always (the server did nothing), 5xx only for requests that may be repeated. */
export const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const MAX_ATTEMPTS = 3;
const FIRST_RETRY_DELAY_MS = 250;

/** Waits before the next attempt, when there is one and it can start before `endAt`; false: give up. */
export async function pausedForRetry(
	attempt: number,
	response: Response | undefined,
	endAt: number | undefined,
	signal: AbortSignal | null | undefined,
): Promise<boolean> {
	if (attempt >= MAX_ATTEMPTS || signal?.aborted) return false;
	const asked = retryAfterMs(response?.headers.get('retry-after') ?? null);
	const delay = asked ?? FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1);
	if (endAt !== undefined && Date.now() + delay >= endAt) return false;
	await response?.body?.cancel().catch(() => undefined);
	await new Promise((resolve) => setTimeout(resolve, delay));
	return !signal?.aborted;
}

/** `Retry-After` in seconds or as a date, in ms; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
	if (!value) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
