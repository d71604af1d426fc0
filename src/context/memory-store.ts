import {
  assertSessionKey,
  decodeStoredTurns,
  encodeStoredTurn,
  InvalidContextInputError,
  validatePersistOptions,
  type ContextStore,
  type HistoryWindow,
  type PersistOptions,
  type PreparedHistory,
  type SessionSnapshot,
  type StoredTurn,
} from './store';
import { applyHistoryWindow, assertHistoryWindow, entriesToRead } from './window';

/** Sessions the memory store keeps before it forgets the least recently used one. */
export const DEFAULT_MAX_MEMORY_SESSIONS = 10_000;

/** Options of `MemoryContextStore`. */
export interface MemoryContextStoreOptions {
  /** Least recently used sessions are dropped beyond this many. Default 10,000. */
  maxSessions?: number;
  /** Milliseconds since the epoch; injectable so tests can move time to check expiry. */
  now?: () => number;
}

interface MemorySession {
  /** Turns serialised exactly as Redis stores them, so both stores decode (and copy) the same way. */
  entries: string[];
  systemMessage?: string;
  /** Epoch milliseconds, or null when the session never expires. */
  expiresAt: number | null;
}

/**
 * Conversation history in a `Map` of this process. It is NOT shared between n8n processes, queue-mode
 * workers or main/webhook instances, and it is lost on restart: use the Redis store for anything but
 * a single-process setup or tests. Expiry is emulated (checked on access) and the number of sessions
 * is capped (least recently used first out), so the map cannot grow without bound.
 *
 * Every method does its reads and writes without awaiting in between, so operations on one session
 * are atomic relative to each other, like the Redis store's scripts.
 */
export class MemoryContextStore implements ContextStore {
  private readonly sessions = new Map<string, MemorySession>();
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: MemoryContextStoreOptions = {}) {
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_MEMORY_SESSIONS;
    if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1) {
      throw new InvalidContextInputError('maxSessions', [`must be a positive integer, got ${String(options.maxSessions)}`]);
    }
    this.now = options.now ?? Date.now;
  }

  /** Sessions currently held (expired ones may still count until they are next touched). */
  get size(): number {
    return this.sessions.size;
  }

  async prepare(sessionKey: string, window: HistoryWindow): Promise<PreparedHistory> {
    const key = assertSessionKey(sessionKey);
    const checkedWindow = assertHistoryWindow(window);
    const session = this.read(key);
    const entries = session ? session.entries.slice(-entriesToRead(checkedWindow)) : [];
    return applyHistoryWindow(
      { entries, storedTurns: session?.entries.length ?? 0, systemMessage: session?.systemMessage },
      checkedWindow,
    );
  }

  async persist(sessionKey: string, turn: StoredTurn, options: PersistOptions): Promise<{ storedTurns: number }> {
    const key = assertSessionKey(sessionKey);
    const checked = validatePersistOptions(options);
    if (!checked.ok) throw new InvalidContextInputError('persist options', checked.issues);
    const entry = encodeStoredTurn(turn);

    const session = this.read(key) ?? { entries: [], expiresAt: null };
    session.entries.push(entry);
    if (session.entries.length > options.maxStoredTurns) {
      session.entries.splice(0, session.entries.length - options.maxStoredTurns);
    }
    if (options.systemMessage !== undefined) {
      session.systemMessage = options.systemMessage === '' ? undefined : options.systemMessage;
    }
    session.expiresAt = options.ttlSeconds > 0 ? this.now() + options.ttlSeconds * 1000 : null;
    this.write(key, session);
    return { storedTurns: session.entries.length };
  }

  async clear(sessionKey: string): Promise<{ deleted: boolean }> {
    const key = assertSessionKey(sessionKey);
    const existed = this.read(key) !== undefined;
    this.sessions.delete(key);
    return { deleted: existed };
  }

  async get(sessionKey: string): Promise<SessionSnapshot> {
    const session = this.read(assertSessionKey(sessionKey));
    if (!session) return { turns: [], skippedCorrupt: 0, ttlSeconds: null };
    const { turns, skippedCorrupt } = decodeStoredTurns(session.entries);
    const ttlSeconds = session.expiresAt === null ? null : Math.ceil((session.expiresAt - this.now()) / 1000);
    const snapshot: SessionSnapshot = { turns, skippedCorrupt, ttlSeconds };
    if (session.systemMessage !== undefined) snapshot.systemMessage = session.systemMessage;
    return snapshot;
  }

  /** Nothing to release; the sessions stay for other users of this instance. */
  async close(): Promise<void> {}

  /** Returns the live session (marking it most recently used), dropping it if it has expired. */
  private read(key: string): MemorySession | undefined {
    const session = this.sessions.get(key);
    if (!session) return undefined;
    this.sessions.delete(key);
    if (session.expiresAt !== null && session.expiresAt <= this.now()) return undefined;
    this.sessions.set(key, session);
    return session;
  }

  private write(key: string, session: MemorySession): void {
    this.sessions.delete(key);
    this.sessions.set(key, session);
    // A Map iterates in insertion order and `read` re-inserts on use, so the first key is the least recently used.
    while (this.sessions.size > this.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
  }
}

let sharedStore: MemoryContextStore | undefined;

/**
 * The one memory store of this process, for callers (like the n8n node) that are re-created for every
 * execution but need the history to survive between executions.
 */
export function sharedMemoryContextStore(): MemoryContextStore {
  sharedStore ??= new MemoryContextStore();
  return sharedStore;
}
