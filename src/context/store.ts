import { chatMessageProblem, type ChatMessage } from '../core/messages';
import type { ValidationResult } from '../validation/validate';

/** Turns the window includes when nothing else is configured. */
export const DEFAULT_MAX_TURNS = 20;
/** Turns a session keeps when persist is not told otherwise; older turns are trimmed. */
export const DEFAULT_MAX_STORED_TURNS = 200;
/** Seven days: a session's history expires this long after its last persist. */
export const DEFAULT_TTL_SECONDS = 7 * 24 * 60 * 60;
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
 * windowing and trimming, so it is never split.
 */
export interface StoredTurn {
  messages: ChatMessage[];
  /** When the exchange finished, as an ISO 8601 time. */
  at: string;
  /** Optional compact record of the agent's steps (any JSON value). */
  steps?: unknown;
  /** Set on a turn stored without an answer (persist's `storeUnanswered`); such turns are never replayed. */
  unanswered?: true;
}

/** Which part of the stored history `prepare` hands to the model. */
export interface HistoryWindow {
  /** Newest turns to include; 0 means no turn limit. Default 20. */
  maxTurns: number;
  /** Character budget for the included turns' message contents; 0 means DEFAULT_MAX_HISTORY_CHARACTERS. See `HISTORY_CHARACTER_LEVELS`. */
  maxCharacters: number;
  /**
   * When `maxTurns` is 0, `prepare` still reads at most this many newest entries, so its cost never
   * grows with the stored history. Pass the same number as persist's `maxStoredTurns`. Default 200.
   */
  maxScannedTurns?: number;
}

/** The history as it goes to the model. */
export interface PreparedHistory {
  /** Chronological; the session's system message (if any) first. */
  messages: ChatMessage[];
  /** Turns included in `messages`. */
  turns: number;
  /** Total characters of the included turns' contents (the system message is not counted). */
  characters: number;
  /** Entries stored for the session, readable or not. */
  storedTurns: number;
  /** Entries read that were not valid turns; they are skipped, never thrown. */
  skippedCorrupt: number;
  /** True when stored turns were left out by the turn limit or the character budget. */
  truncated: boolean;
}

/** How `persist` bounds what it writes. */
export interface PersistOptions {
  /** The session keeps at most this many newest turns (a positive integer). */
  maxStoredTurns: number;
  /** Expiry of the whole session, refreshed by every persist; 0 means it never expires. */
  ttlSeconds: number;
  /** Replaces the session's system message; an empty string removes it; absent keeps it. */
  systemMessage?: string;
}

/** Everything stored for a session, for inspection. */
export interface SessionSnapshot {
  /** Chronological; bounded by the `maxStoredTurns` of the persists. */
  turns: StoredTurn[];
  skippedCorrupt: number;
  systemMessage?: string;
  /** Seconds until the session expires; null when it does not exist or never expires. */
  ttlSeconds: number | null;
}

/**
 * Where conversation history lives between executions. Each method is one atomic operation on the
 * session, so concurrent requests for one session never interleave their turns.
 */
export interface ContextStore {
  /** Reads the window of a session's history (with Redis: one round trip, cost bounded by the window). */
  prepare(sessionKey: string, window: HistoryWindow): Promise<PreparedHistory>;
  /** Appends one turn, trims to `maxStoredTurns` and refreshes the expiry, all at once. */
  persist(sessionKey: string, turn: StoredTurn, options: PersistOptions): Promise<{ storedTurns: number }>;
  /** Deletes the session's history and system message. */
  clear(sessionKey: string): Promise<{ deleted: boolean }>;
  get(sessionKey: string): Promise<SessionSnapshot>;
  /** Releases connections; the store is not used afterwards. */
  close(): Promise<void>;
}

// The store's error types live with the Redis plumbing that raises most of them; re-exported for callers.
export { ContextStoreError, InvalidContextInputError, type ContextStoreFailure } from '../redis/errors';
import { InvalidContextInputError } from '../redis/errors';

/** Session keys must be non-empty and at most `MAX_SESSION_KEY_LENGTH` characters. */
export function validateSessionKey(sessionKey: unknown): ValidationResult<string> {
  if (typeof sessionKey !== 'string') return { ok: false, issues: ['session key: must be a string'] };
  if (sessionKey.trim() === '') return { ok: false, issues: ['session key: must not be empty'] };
  if (sessionKey.length > MAX_SESSION_KEY_LENGTH) {
    return {
      ok: false,
      issues: [`session key: is ${sessionKey.length} characters, at most ${MAX_SESSION_KEY_LENGTH} are allowed`],
    };
  }
  return { ok: true, value: sessionKey };
}

/** Checks persist's bounds; both stores apply the same rules. */
export function validatePersistOptions(options: PersistOptions): ValidationResult<PersistOptions> {
  const issues: string[] = [];
  if (!Number.isInteger(options.maxStoredTurns) || options.maxStoredTurns < 1) {
    issues.push(`maxStoredTurns: must be a positive integer, got ${String(options.maxStoredTurns)}`);
  }
  if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds < 0) {
    issues.push(`ttlSeconds: must be 0 (never expires) or a positive integer, got ${String(options.ttlSeconds)}`);
  }
  if (options.systemMessage !== undefined && typeof options.systemMessage !== 'string') {
    issues.push('systemMessage: must be a string');
  }
  return issues.length === 0 ? { ok: true, value: options } : { ok: false, issues };
}

/** Throws `InvalidContextInputError` for a bad session key; returns it otherwise. */
export function assertSessionKey(sessionKey: string): string {
  const result = validateSessionKey(sessionKey);
  if (!result.ok) throw new InvalidContextInputError('session key', result.issues);
  return result.value;
}

/** Serialises a turn for storage after checking its shape, so only readable turns are written. */
export function encodeStoredTurn(turn: StoredTurn): string {
  const issues = describeTurnProblems(turn);
  if (issues.length > 0) throw new InvalidContextInputError('turn', issues);
  const entry: StoredTurn = { messages: turn.messages.map(({ role, content }) => ({ role, content })), at: turn.at };
  if (turn.unanswered === true) entry.unanswered = true;
  if (turn.steps !== undefined) entry.steps = turn.steps;
  try {
    return JSON.stringify(entry);
  } catch (error) {
    throw new InvalidContextInputError('turn', [`steps: cannot be stored as JSON (${(error as Error).message})`]);
  }
}

/** Parses a stored entry; undefined when it is not JSON or not a turn (the caller counts it as corrupt). */
export function decodeStoredTurn(raw: string): StoredTurn | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return describeTurnProblems(value).length === 0 ? (value as StoredTurn) : undefined;
}

/** Decodes entries in order, dropping and counting the unreadable ones. */
export function decodeStoredTurns(entries: readonly string[]): { turns: StoredTurn[]; skippedCorrupt: number } {
  const turns: StoredTurn[] = [];
  for (const entry of entries) {
    const turn = decodeStoredTurn(entry);
    if (turn) turns.push(turn);
  }
  return { turns, skippedCorrupt: entries.length - turns.length };
}


function describeTurnProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['turn: must be an object'];
  const turn = value as Record<string, unknown>;
  const issues: string[] = [];
  if (typeof turn.at !== 'string' || Number.isNaN(Date.parse(turn.at))) issues.push('at: must be an ISO 8601 time');
  if (!Array.isArray(turn.messages) || turn.messages.length === 0) {
    issues.push('messages: must be a non-empty list');
    return issues;
  }
  turn.messages.forEach((message: unknown, index) => {
    const problem = chatMessageProblem(message, `messages[${index}]`);
    if (problem) issues.push(problem);
  });
  return issues;
}
