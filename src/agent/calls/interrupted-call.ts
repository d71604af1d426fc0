// A call a durable run started and never recorded as done: whether it may run again, and what its step says when not.
import type { Tool } from '../../tools/tool';
import { hasSideEffects } from '../base/streaks';

/**
 * Whether a call that started and was never recorded as done may simply run again: a read (it changes
 * nothing), or a call whose tool sends the run's idempotency key (http_request), so a target that honours
 * the key acts once. A tool no longer allowed runs "again" only to be refused like any unknown tool.
 */
export function runsAgain(tool: Tool | undefined, args: Record<string, unknown>): boolean {
	if (!tool) return true;
	let changesSomething = true;
	try {
		changesSomething = hasSideEffects(tool, args);
	} catch {
		// A tool that cannot say counts as one that writes.
	}
	return !changesSomething || tool.passesIdempotencyKey === true;
}

/** What an interrupted call's step says: which call, and why it is not run again without a person. */
export function interruptedDetail(tool: string, step: number, paused: boolean): string {
	const what =
		`the ${tool} call of step ${step} started before the run was interrupted, and its end was never ` +
		`recorded; it has side effects, so it is not run again`;
	return paused
		? `${what} without a person's approval (approve runs it again, deny goes on without it)`
		: `${what}: check whether it took effect, then start a new run (a config with approval_required asks a person instead)`;
}
