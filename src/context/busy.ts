// A second message while a run is busy with a session: the policies, the lock's token, and waiting for it.
import { randomUUID } from 'node:crypto';
import { ConversationError } from './errors';

/**
 * What prepare does when a run already holds the session's lock: `reject` refuses at once, `wait` polls until
 * the lock is free (at most `waitSeconds`), `latest` takes the lock over (the earlier run's persist then stores
 * nothing). `off`: no lock at all (Agent Context version 1's behaviour).
 */
export type BusyPolicy = 'reject' | 'wait' | 'latest' | 'off';

export const BUSY_POLICIES: readonly BusyPolicy[] = ['reject', 'wait', 'latest', 'off'];

/** Five minutes: the lock outlives a run by default timeout; set it at least to the run's timeout. */
export const DEFAULT_BUSY_TTL_SECONDS = 300;
/** How long `wait` waits for the lock by default. */
export const DEFAULT_BUSY_WAIT_SECONDS = 30;
/** Between two looks at a busy lock. */
export const BUSY_POLL_MS = 100;

/** What prepare asks of the store: take the lock (`latest`: even from another run) for `ttlMs`, under `token`. */
export interface BusyAcquire {
	mode: 'take' | 'take_over';
	/** A fresh random id; the lock's value is `<last seq>:<id>`, returned as PreparedHistory.busyToken. */
	id: string;
	ttlMs: number;
}

/** What a release found. */
export type BusyOutcome = 'released' | 'not_held';

/** A new lock request for `policy` (none for `off`). */
export function busyAcquire(policy: BusyPolicy, ttlSeconds: number): BusyAcquire | undefined {
	if (policy === 'off') return undefined;
	return {
		mode: policy === 'latest' ? 'take_over' : 'take',
		id: randomUUID(),
		ttlMs: ttlSeconds * 1000,
	};
}

/** Checks a busy policy and its numbers, naming the field. */
export function busyIssues(policy: unknown, ttlSeconds: unknown, waitSeconds: unknown): string[] {
	const issues: string[] = [];
	if (!(BUSY_POLICIES as readonly unknown[]).includes(policy))
		issues.push(
			`busy policy must be one of ${BUSY_POLICIES.join(', ')}, not ${JSON.stringify(policy)}`,
		);
	if (!Number.isInteger(ttlSeconds) || (ttlSeconds as number) < 1)
		issues.push(`busy lock TTL must be a whole number of seconds ≥ 1, not ${String(ttlSeconds)}`);
	if (!Number.isInteger(waitSeconds) || (waitSeconds as number) < 0)
		issues.push(`busy wait must be a whole number of seconds ≥ 0, not ${String(waitSeconds)}`);
	return issues;
}

/**
 * Runs `attempt` (a prepare that takes the lock) and, under `wait`, runs it again every BUSY_POLL_MS while the
 * session is busy, up to `waitSeconds`; then the busy refusal, saying how long it waited.
 */
export async function withBusyPolicy<T>(
	policy: BusyPolicy,
	waitSeconds: number,
	attempt: () => Promise<T>,
): Promise<T> {
	const started = Date.now();
	for (;;) {
		try {
			return await attempt();
		} catch (error) {
			const busy = error instanceof ConversationError && error.refusal.code === 'busy';
			const waited = Date.now() - started;
			if (!busy || policy !== 'wait') throw error;
			if (waited + BUSY_POLL_MS > waitSeconds * 1000)
				throw new ConversationError({
					...error.refusal,
					code: 'busy',
					policy: 'wait',
					waitedMs: waitSeconds * 1000,
				} as ConversationError['refusal']);
			await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
		}
	}
}
