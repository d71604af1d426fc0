// The memory store's options: what it takes, its defaults, and the names it refuses others against.
import type { OptionNames } from '../../core/known-options';

/** Sessions the memory store keeps before it forgets the least recently used one. */
export const DEFAULT_MAX_MEMORY_SESSIONS = 10_000;

/** Options of `MemoryContextStore`. */
export interface MemoryContextStoreOptions {
	/** Least recently used sessions are dropped beyond this many. Default 10,000. */
	maxSessions?: number;
	/** Milliseconds since the epoch; injectable so tests can move time to check expiry. */
	now?: () => number;
}

/** The option names MemoryContextStore knows: any other is refused. */
export const OPTIONS = {
	maxSessions: true,
	now: true,
} satisfies OptionNames<MemoryContextStoreOptions>;
