// The conversation store's contract: what a session holds, the window prepare reads, what persist, list, fork and rewind do.
import type { ChatMessage, SummaryMeta } from '../core/messages';
import type { BusyAcquire, BusyOutcome } from './busy';

/** Turns the window includes when nothing else is configured. */
export const DEFAULT_MAX_TURNS = 20;
/** Turns a session keeps when persist is not told otherwise; older turns are trimmed. */
export const DEFAULT_MAX_STORED_TURNS = 200;
/** Seven days: a session's history expires this long after its last persist. */
export const DEFAULT_TTL_SECONDS = 7 * 24 * 60 * 60;
/** Thirty days: the archive (turns a summary replaced or a rewind moved aside) expires this long after it last changed. */
export const DEFAULT_ARCHIVE_TTL_SECONDS = 30 * 24 * 60 * 60;
/** Archived turns a session keeps; the oldest go first beyond it. */
export const DEFAULT_MAX_ARCHIVED_TURNS = 2_000;
/** Session keys longer than this are refused (they become Redis keys and log lines). */
export const MAX_SESSION_KEY_LENGTH = 256;
/**
 * Characters of history replayed to the model when the window sets no character budget (History Size
 * "full"): about 100k tokens. Bounds what one prepare can load into memory and send; a custom budget
 * may set more.
 */
export const DEFAULT_MAX_HISTORY_CHARACTERS = 400_000;
/** Characters one stored turn keeps when persist is not told otherwise; longer messages are cut with a marker. */
export const DEFAULT_MAX_TURN_CHARACTERS = 100_000;
/** Prefix of every Redis key the store writes, unless its options say otherwise. */
export const DEFAULT_KEY_PREFIX = 'agent_core:ctx:';

/**
 * One stored entry: the messages of one request/response exchange. A turn is the unit of
 * windowing and trimming, so it is never split (an answer's `tool_results` stay on its message).
 */
export interface StoredTurn {
	/**
	 * The turn's number in its session, given by the store when it is persisted (1, 2, …; never reused). Turns
	 * written before turns were numbered have none stored: they are numbered when read (see numberEntries).
	 */
	seq?: number;
	messages: ChatMessage[];
	/** When the exchange finished, as an ISO 8601 time. */
	at: string;
	/** Optional compact record of the agent's steps (any JSON value). */
	steps?: unknown;
	/** Set on a turn stored without an answer (persist's `storeUnanswered`); such turns are never replayed. */
	unanswered?: true;
}

/** The session's summary of its oldest turns, as Agent Core wrote it: its text and what it stands for. */
export interface StoredSummary extends SummaryMeta {
	content: string;
}

/** Why a turn left the live history for the archive. */
export type ArchiveReason = 'summarised' | 'rewound';

/** A turn in the session's archive: kept (with the archive's TTL) for audit, fork and rewind, never replayed. */
export interface ArchivedTurn extends StoredTurn {
	seq: number;
	archived: ArchiveReason;
	archived_at: string;
}

/** Which part of the stored history `prepare` hands to the model. */
export interface HistoryWindow {
	/** Newest turns to include; 0 means no turn limit. Default 20. Ignored with `allLiveTurns`. */
	maxTurns: number;
	/** Character budget for the included turns' message contents; 0 means DEFAULT_MAX_HISTORY_CHARACTERS. See `HISTORY_CHARACTER_LEVELS`. */
	maxCharacters: number;
	/**
	 * When `maxTurns` is 0, `prepare` still reads at most this many newest entries, so its cost never
	 * grows with the stored history. Pass the same number as persist's `maxStoredTurns`. Default 200.
	 */
	maxScannedTurns?: number;
	/**
	 * Every live turn (up to `maxScannedTurns`), for a consumer that fits the history by tokens itself (Agent
	 * Core does); the character budget still applies. Default false: the newest `maxTurns`.
	 */
	allLiveTurns?: boolean;
}

/** The history as it goes to the model. */
export interface PreparedHistory {
	/**
	 * Chronological: the session's system message (if any), its summary (an assistant message with `summary`),
	 * then the turns: each user message with its turn's `seq`, each answer with its `tool_results`.
	 */
	messages: ChatMessage[];
	/** Turns included in `messages`. */
	turns: number;
	/** Total characters of the included turns' contents and tool results (the system message and summary are not counted). */
	characters: number;
	/** Entries stored for the session, readable or not. */
	storedTurns: number;
	/** Entries read that were not valid turns; they are skipped, never thrown. */
	skippedCorrupt: number;
	/** True when stored turns were left out by the turn limit or the character budget. */
	truncated: boolean;
	/** The newest turn number the session has given (0 for a new session). */
	lastSeq: number;
	/** The turn the stored summary covers up to; absent without a summary. */
	summaryThroughSeq?: number;
	/** The lock prepare took (with a `busy` request): the token persist hands back. */
	busyToken?: string;
}

/** How `persist` bounds what it writes. */
export interface PersistOptions {
	/** The session keeps at most this many newest turns (a positive integer). */
	maxStoredTurns: number;
	/** Expiry of the whole session, refreshed by every persist; 0 means it never expires. */
	ttlSeconds: number;
	/** Replaces the session's system message; an empty string removes it; absent keeps it. */
	systemMessage?: string;
	/** Expiry of the archive, refreshed whenever it changes; 0 means never. Default DEFAULT_ARCHIVE_TTL_SECONDS. */
	archiveTtlSeconds?: number;
	/** The archive keeps at most this many newest entries. Default DEFAULT_MAX_ARCHIVED_TURNS. */
	maxArchivedTurns?: number;
}

/** What goes with a persist besides the turn: its idempotency id, the lock it holds, a new summary. */
export interface PersistWrite {
	/** Makes the persist idempotent: sent again with the same id within WRITE_ID_TTL_SECONDS, it applies once. */
	turnId?: string;
	/**
	 * The token prepare's lock gave (PreparedHistory.busyToken). With it, the turn is stored only while this run
	 * still holds the session (or no one wrote since its prepare), and the lock is released. Without it, a session
	 * locked by a run refuses the persist (BusySessionError).
	 */
	busyToken?: string;
	/** A summary replacing the stored one: every live turn with seq ≤ `through_seq` moves to the archive. */
	summary?: StoredSummary;
}

/** What persist did. `stored: false`: nothing was written, and `reason` says why. */
export type PersistResult =
	| { stored: true; storedTurns: number; seq: number; archivedTurns: number }
	| { stored: false; reason: 'superseded' | 'changed' };

/** Everything stored for a session, for inspection. */
export interface SessionSnapshot {
	/** Chronological; bounded by the `maxStoredTurns` of the persists. */
	turns: StoredTurn[];
	skippedCorrupt: number;
	systemMessage?: string;
	/** Seconds until the session expires; null when it does not exist or never expires. */
	ttlSeconds: number | null;
}

/** One turn as `list` shows it: where it is (live, or archived and why), when, and its messages' sizes. */
export interface ListedTurn {
	seq: number;
	at: string;
	state: 'live' | ArchiveReason;
	/** Each message's role and characters. */
	messages: Array<{ role: ChatMessage['role']; characters: number }>;
	tool_results: number;
	unanswered?: true;
	archived_at?: string;
}

/** A session's turns in order of `seq`, live and archived, and its summary. */
export interface SessionListing {
	turns: ListedTurn[];
	summary: (Omit<StoredSummary, 'content'> & { characters: number }) | null;
	live_turns: number;
	archived_turns: number;
	/** The newest turn number given so far. */
	last_seq: number;
	skipped_corrupt: number;
	/** Whether a run holds the session's lock now. */
	busy: boolean;
}

/** What fork wrote into the new session. */
export interface ForkResult {
	turns: number;
	summary: boolean;
	/** Archived turns (summarised ones the fork point needs) copied back as live turns. */
	restored: number;
	last_seq: number;
}

/** What rewind moved. */
export interface RewindResult {
	/** Live turns moved to the archive, marked `rewound`. */
	archived: number;
	/** Archived turns (the summary's) brought back, when the rewind went inside the summary. */
	restored: number;
	summary_dropped: boolean;
	live_turns: number;
}

/** Where fork and rewind keep what they write, and for how long. */
export interface BranchOptions {
	/** Expiry of the new session (fork); 0 means never. */
	ttlSeconds: number;
	archiveTtlSeconds?: number;
	maxArchivedTurns?: number;
}

/**
 * Where conversation history lives between executions. Each method is one atomic operation on the
 * session, so concurrent requests for one session never interleave their turns.
 */
export interface ContextStore {
	/**
	 * Reads the window of a session's history (with Redis: one round trip, cost bounded by the window). With
	 * `busy`, takes the session's lock first (see BusyAcquire); a lock it cannot take ends in BusySessionError.
	 */
	prepare(sessionKey: string, window: HistoryWindow, busy?: BusyAcquire): Promise<PreparedHistory>;
	/** Appends one turn, trims to `maxStoredTurns` and refreshes the expiry, all at once (`append` without a lock or summary). */
	persist(
		sessionKey: string,
		turn: StoredTurn,
		options: PersistOptions,
		write?: { turnId?: string },
	): Promise<{ storedTurns: number }>;
	/**
	 * Appends one turn (and a summary, moving the turns it covers to the archive), trims to `maxStoredTurns` and
	 * refreshes the expiry, all at once; with a busy token, only while that run still holds the session.
	 */
	append(
		sessionKey: string,
		turn: StoredTurn,
		options: PersistOptions,
		write?: PersistWrite,
	): Promise<PersistResult>;
	/** Lets go of the session's lock if `busyToken` still holds it (a run that stored nothing). */
	release(sessionKey: string, busyToken: string): Promise<BusyOutcome>;
	/** Deletes the session's history, summary, archive, counter, lock and system message. */
	clear(sessionKey: string): Promise<{ deleted: boolean }>;
	get(sessionKey: string): Promise<SessionSnapshot>;
	/** The session's turns, live and archived, in order of seq; ConversationError for an unknown session. */
	list(sessionKey: string): Promise<SessionListing>;
	/** A new session `targetKey` holding `sourceKey`'s turns up to `atTurn`; the source is untouched. */
	fork(
		sourceKey: string,
		targetKey: string,
		atTurn: number,
		options: BranchOptions,
		write?: { forkId?: string },
	): Promise<ForkResult>;
	/** Moves the turns after `toTurn` to the archive (marked `rewound`), atomically. */
	rewind(
		sessionKey: string,
		toTurn: number,
		options: Omit<BranchOptions, 'ttlSeconds'>,
		write?: { rewindId?: string },
	): Promise<RewindResult>;
	/** Releases connections; the store is not used afterwards. */
	close(): Promise<void>;
}

// The store's error types live with the Redis plumbing that raises most of them; re-exported for callers.
export { RedisError, InvalidContextInputError, type RedisFailure } from '../redis/errors';
/** The earlier name of RedisError (every Redis failure, not only the context store's): kept so callers' imports still work. */
export {
	RedisError as ContextStoreError,
	type RedisFailure as ContextStoreFailure,
} from '../redis/errors';
