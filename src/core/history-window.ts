// The one history window: which of a conversation's newest turns fit, by count and by a cost of the caller's measure.

/** The window's limits: at most `maxTurns` turns (0: no count limit) whose costs add up to at most `budget`. */
export interface WindowLimits {
	maxTurns?: number;
	budget: number;
}

/**
 * How many of the newest turns the window keeps: walking back from the newest, it stops at the first turn past
 * `maxTurns` or past the budget. A turn is never split, and older turns never fill what is left of the budget,
 * because a gap in the middle of a conversation misleads a model more than a shorter history does. Agent Context
 * counts characters (context/window.ts), the engine's long memory tokens (agent/memory/memory.ts); the cut is this.
 */
export function newestTurnsThatFit(
	costs: readonly number[],
	limits: WindowLimits,
): { kept: number; used: number } {
	const maxTurns = limits.maxTurns ?? 0;
	let used = 0;
	let kept = 0;
	for (let index = costs.length - 1; index >= 0; index--) {
		if (maxTurns > 0 && kept >= maxTurns) break;
		if (used + costs[index] > limits.budget) break;
		used += costs[index];
		kept += 1;
	}
	return { kept, used };
}
