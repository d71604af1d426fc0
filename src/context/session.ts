import { InputError } from '../core/input-error';
import { parseMessages, type ChatMessage } from '../core/messages';
import type { TraceStep } from '../trace/types';
import { truncateObservation } from '../core/text-cut';
import { assertSessionKey, DEFAULT_KEY_PREFIX, DEFAULT_MAX_TURN_CHARACTERS, type ContextStore, type HistoryWindow, type PersistOptions } from './store';

/**
 * The prepare → agent → persist chain of multi-turn memory, shared by the Agent Context node and the CLI so
 * both keep history exactly the same way.
 */

/** What prepare hands to the agent: the windowed history, plus the new user message when given. */
export interface PreparedSession {
  session_id: string;
  /** Neutral `[{role, content}]`, chronological, ending with the new user message when one was given. */
  messages_json: ChatMessage[];
  history_turns: number;
  stored_turns: number;
  history_characters: number;
  /** Stored entries that were not readable turns; skipped, never fatal. */
  skipped_corrupt: number;
  /** True when older turns were left out by the window. */
  truncated: boolean;
}

/**
 * Which session, under which key prefix. The one owner of the key layout: the store sees
 * `keyPrefix + sessionId` (default prefix DEFAULT_KEY_PREFIX), and the Redis store makes it the hash tag and
 * adds `:turns` and `:system` (redisSessionKeys), so the node and the CLI write `{agent_core:ctx:<session>}:turns` alike.
 */
export interface SessionAddress {
  sessionId: unknown;
  keyPrefix?: string;
}

export async function prepareSession(
  store: ContextStore,
  request: SessionAddress & { window: Partial<HistoryWindow>; userMessage?: string },
): Promise<PreparedSession> {
  const { sessionId, key } = sessionStoreKey(request);
  const history = await store.prepare(key, request.window as HistoryWindow);
  const userMessage = request.userMessage;
  const withNew = typeof userMessage === 'string' && userMessage.trim() !== '' ? [...history.messages, { role: 'user' as const, content: userMessage }] : history.messages;
  // History written before persist skipped unanswered runs can hold a question with no answer; it is
  // left out so that no two user messages in a row reach the model.
  const messages = withNew.filter((message, index) => !(message.role === 'user' && withNew[index + 1]?.role === 'user'));
  return {
    session_id: sessionId,
    messages_json: messages,
    history_turns: history.turns,
    stored_turns: history.storedTurns,
    history_characters: history.characters,
    skipped_corrupt: history.skippedCorrupt,
    truncated: history.truncated,
  };
}

export interface PersistSessionRequest extends SessionAddress, PersistOptions {
  /** The agent's `messages` output: this run's new turns. */
  messages: unknown;
  /** A compact record of the run's steps to keep with the turn (see `compactSteps`). */
  steps?: unknown;
  /** Characters the stored turn keeps (default DEFAULT_MAX_TURN_CHARACTERS); each message gets an equal share. */
  maxTurnCharacters?: number;
  /**
   * Store a run that ended without an answer too, as a turn marked `unanswered` (kept for `get`, never
   * replayed). Default false: such a run stores nothing.
   */
  storeUnanswered?: boolean;
}

/** What persist did; `stored: false` when the run had no answer and `storeUnanswered` was off. */
export interface PersistedSession {
  session_id: string;
  stored: boolean;
  /** Turns the session holds after this persist; null when nothing was written. */
  stored_turns: number | null;
  persisted_messages: number;
  /** Why nothing was stored, when it was not. */
  skipped?: string;
}

/**
 * Appends one run's new turns (the agent's `messages` output: the user message and, when the run
 * finished, the answer) as one stored turn, atomically with trimming and TTL refresh.
 */
export async function persistSession(
  store: ContextStore,
  request: PersistSessionRequest,
): Promise<PersistedSession> {
  const { sessionId, key } = sessionStoreKey(request);
  const parsed = parseMessages(request.messages, 'messages').filter((message) => message.role !== 'system');
  if (parsed.length === 0) {
    throw new InputError('messages', 'messages has no user or assistant message to persist; pass the Agent Core output field "messages"');
  }
  const maxTurnCharacters = request.maxTurnCharacters ?? DEFAULT_MAX_TURN_CHARACTERS;
  if (!Number.isInteger(maxTurnCharacters) || maxTurnCharacters < 100) {
    throw new InputError('maxTurnCharacters', `maxTurnCharacters must be an integer ≥ 100, got ${String(maxTurnCharacters)}`);
  }
  // Bounds what every later prepare loads: a turn is never split, so its size is capped when it is written.
  const share = Math.floor(maxTurnCharacters / parsed.length);
  const messages = parsed.map((message) => ({ ...message, content: truncateObservation(message.content, share) }));
  const answered = messages[messages.length - 1].role === 'assistant';
  if (!answered && !request.storeUnanswered) {
    return { session_id: sessionId, stored: false, stored_turns: null, persisted_messages: 0, skipped: 'the run ended without an answer; nothing was stored' };
  }
  const turn = {
    messages,
    at: new Date().toISOString(),
    ...(answered ? {} : { unanswered: true as const }),
    ...(request.steps === undefined ? {} : { steps: request.steps }),
  };
  const { maxStoredTurns, ttlSeconds, systemMessage } = request;
  const result = await store.persist(key, turn, { maxStoredTurns, ttlSeconds, ...(systemMessage === undefined ? {} : { systemMessage }) });
  return { session_id: sessionId, stored: true, stored_turns: result.storedTurns, persisted_messages: messages.length };
}

/** One small record per step: enough to audit what the agent did without storing observations. */
export function compactSteps(trace: readonly TraceStep[]): Array<{ step: number; tool?: string; final?: true; error?: string; ms: number }> {
  return trace.map((entry) => ({
    step: entry.step,
    ...(entry.action ? { tool: entry.action.tool } : {}),
    ...(entry.final ? { final: true as const } : {}),
    ...(entry.error ? { error: entry.error.type } : {}),
    ms: entry.elapsed_ms,
  }));
}

/** Checks the session ID (numbers are accepted as text) and returns it with the key the store uses. */
export function sessionStoreKey(address: SessionAddress): { sessionId: string; key: string } {
  const raw = typeof address.sessionId === 'number' ? String(address.sessionId) : address.sessionId;
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new InputError('session_id', 'session ID is empty; set it to the conversation ID, e.g. {{ $json.body.session_id }}');
  }
  try {
    return { sessionId: raw, key: assertSessionKey(`${address.keyPrefix ?? DEFAULT_KEY_PREFIX}${raw}`) };
  } catch (error) {
    throw new InputError('session_id', (error as Error).message);
  }
}
