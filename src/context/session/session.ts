import { InputError } from '../../core/input-error';
import type { ChatMessage } from '../../core/messages';
import type { TraceStep } from '../../trace/types';
import {
	busyAcquire,
	busyIssues,
	DEFAULT_BUSY_TTL_SECONDS,
	DEFAULT_BUSY_WAIT_SECONDS,
	withBusyPolicy,
	type BusyPolicy,
} from '../busy';
import { ConversationError } from '../errors';
import { agentTurn } from './persisted-turn';
import { scopedSessionKey, type ContextScope } from './session-scope';
import { assertSessionKey } from '../store-checks';
import {
	DEFAULT_KEY_PREFIX,
	DEFAULT_MAX_TURN_CHARACTERS,
	type ContextStore,
	type HistoryWindow,
	type PersistOptions,
	type PersistResult,
} from '../store';

/**
 * The prepare → agent → persist chain of multi-turn memory, shared by the Agent Context node and the CLI so
 * both keep history exactly the same way: the one owner of what is read before a run and stored after it.
 */

/** What prepare hands to the agent: the windowed history, plus the new user message when given. */
export interface PreparedSession {
	session_id: string;
	/**
	 * Neutral messages, chronological: the system message, the summary (`{role: 'assistant', content, summary}`),
	 * the turns (each user message with its `seq`, each answer with its `tool_results`), then the new user message.
	 */
	messages_json: ChatMessage[];
	history_turns: number;
	stored_turns: number;
	history_characters: number;
	/** Stored entries that were not readable turns; skipped, never fatal. */
	skipped_corrupt: number;
	/** True when older turns were left out by the window. */
	truncated: boolean;
	/** The newest turn number of the session so far (0 for a new one); this run's turn will be the next. */
	last_seq: number;
	/** The turn the replayed summary covers up to; null without one. */
	summary_through_seq: number | null;
	/** With a busy policy: the session's lock this run holds; persist hands it back (Agent Context finds it itself). */
	busy_token?: string;
}

/**
 * Which session, under which key prefix, in which scope. The one owner of the key layout: the store sees
 * `keyPrefix + scopedSessionKey(…)` (default prefix DEFAULT_KEY_PREFIX; shared: the session id as it is), and the
 * Redis store makes it the hash tag and adds `:turns`, `:system`, … (redisSessionKeys), so the node and the CLI
 * write `{agent_core:ctx:<session>}:turns` (shared) or `{agent_core:ctx:{wf}<n>:<workflow>:<session>}:…` alike.
 */
export interface SessionAddress {
	sessionId: unknown;
	keyPrefix?: string;
	/** `shared` (default): the session id is the whole key; `workflow`: `workflowId` is in it too. */
	contextScope?: ContextScope;
	/** The workflow a `workflow`-scoped session belongs to; required with that scope. */
	workflowId?: string;
}

/** A second message while a run holds the session: the policy (default `off`: no lock), the lock's TTL and the longest wait. */
export interface BusyOptions {
	policy: BusyPolicy;
	/** At least the run's timeout; default DEFAULT_BUSY_TTL_SECONDS. */
	ttlSeconds?: number;
	/** `wait` only; default DEFAULT_BUSY_WAIT_SECONDS. */
	waitSeconds?: number;
}

export async function prepareSession(
	store: ContextStore,
	request: SessionAddress & {
		window: Partial<HistoryWindow>;
		userMessage?: string;
		busy?: BusyOptions;
	},
): Promise<PreparedSession> {
	const { sessionId, key } = sessionStoreKey(request);
	const userMessage = request.userMessage;
	const asking = typeof userMessage === 'string' && userMessage.trim() !== '';
	const {
		policy = 'off',
		ttlSeconds = DEFAULT_BUSY_TTL_SECONDS,
		waitSeconds = DEFAULT_BUSY_WAIT_SECONDS,
	} = request.busy ?? {};
	const issues = busyIssues(policy, ttlSeconds, waitSeconds);
	if (issues.length > 0) throw new InputError('busy', issues.join('; '));
	// Only a run takes the lock: a prepare that only reads the history (no new message) answers nothing.
	const lock = asking ? policy : 'off';
	const history = await withBusyPolicy(lock, waitSeconds, () =>
		store.prepare(key, request.window as HistoryWindow, busyAcquire(lock, ttlSeconds)),
	).catch((error: unknown) => {
		throw error instanceof ConversationError ? error.renamed(sessionId) : error;
	});
	const withNew = asking
		? [...history.messages, { role: 'user' as const, content: userMessage }]
		: history.messages;
	// History written before persist skipped unanswered runs can hold a question with no answer; it is
	// left out so that no two user messages in a row reach the model.
	const messages = withNew.filter(
		(message, index) => !(message.role === 'user' && withNew[index + 1]?.role === 'user'),
	);
	return {
		session_id: sessionId,
		messages_json: messages,
		history_turns: history.turns,
		stored_turns: history.storedTurns,
		history_characters: history.characters,
		skipped_corrupt: history.skippedCorrupt,
		truncated: history.truncated,
		last_seq: history.lastSeq,
		summary_through_seq: history.summaryThroughSeq ?? null,
		...(history.busyToken ? { busy_token: history.busyToken } : {}),
	};
}

export interface PersistSessionRequest extends SessionAddress, PersistOptions {
	/** The agent's `messages` output: a summary it wrote (first, if any), the user message and the answer. */
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
	/** Prepare's `busy_token`: the turn is stored only while this run holds the session, and the lock is let go. */
	busyToken?: string;
	/** Makes the persist idempotent (see PersistWrite.turnId). */
	turnId?: string;
}

/** What persist did; `stored: false` when nothing was written, and `skipped` says why. */
export interface PersistedSession {
	session_id: string;
	stored: boolean;
	/** Turns the session holds after this persist; null when nothing was written. */
	stored_turns: number | null;
	persisted_messages: number;
	/** The stored turn's number; null when nothing was written. */
	seq: number | null;
	/** Turns the stored summary replaced, moved to the archive by this persist. */
	archived_turns: number;
	/** Whether a summary from Agent Core was stored with the turn. */
	summary_stored: boolean;
	/** Why nothing was stored, when it was not. */
	skipped?: string;
}

const SKIPPED: Record<
	Extract<PersistResult, { stored: false }>['reason'],
	(session: string) => string
> = {
	superseded: (session) =>
		`a later message took session "${session}" over while this run was answering (busy policy latest); this run's turn was not stored`,
	changed: (session) =>
		`session "${session}" changed while this run was answering (its lock had expired, ` +
		"and another run took the session or stored a turn, or it was cleared); this run's turn was not stored",
};

/**
 * Appends one run's new turn (the agent's `messages` output: the user message and, when the run finished, the
 * answer with its tool results) atomically with trimming, TTL refresh and, when the output starts with a summary
 * Agent Core wrote, storing it and moving the turns it covers to the archive. With `busyToken`, the lock prepare
 * took is let go, whatever became of the turn.
 */
export async function persistSession(
	store: ContextStore,
	request: PersistSessionRequest,
): Promise<PersistedSession> {
	const { sessionId, key } = sessionStoreKey(request);
	const busyToken = request.busyToken || undefined;
	let reachedStore = false;
	const nothing = {
		session_id: sessionId,
		stored: false,
		stored_turns: null,
		persisted_messages: 0,
		seq: null,
		archived_turns: 0,
		summary_stored: false,
	};
	try {
		const maxTurnCharacters = request.maxTurnCharacters ?? DEFAULT_MAX_TURN_CHARACTERS;
		if (!Number.isInteger(maxTurnCharacters) || maxTurnCharacters < 100) {
			throw new InputError(
				'maxTurnCharacters',
				`maxTurnCharacters must be an integer ≥ 100, got ${String(maxTurnCharacters)}`,
			);
		}
		const { messages, answered, summary } = agentTurn(request.messages, maxTurnCharacters);
		if (!answered && !request.storeUnanswered)
			return { ...nothing, skipped: 'the run ended without an answer; nothing was stored' };
		const turn = {
			messages,
			at: new Date().toISOString(),
			...(answered ? {} : { unanswered: true as const }),
			...(request.steps === undefined ? {} : { steps: request.steps }),
		};
		const { maxStoredTurns, ttlSeconds, systemMessage, archiveTtlSeconds, maxArchivedTurns } =
			request;
		const options = {
			maxStoredTurns,
			ttlSeconds,
			...(systemMessage === undefined ? {} : { systemMessage }),
			...(archiveTtlSeconds === undefined ? {} : { archiveTtlSeconds }),
			...(maxArchivedTurns === undefined ? {} : { maxArchivedTurns }),
		};
		const result = await store.append(key, turn, options, {
			...(busyToken ? { busyToken } : {}),
			...(summary ? { summary } : {}),
			...(request.turnId ? { turnId: request.turnId } : {}),
		});
		reachedStore = true;
		if (!result.stored) return { ...nothing, skipped: SKIPPED[result.reason](sessionId) };
		return {
			session_id: sessionId,
			stored: true,
			stored_turns: result.storedTurns,
			persisted_messages: messages.length,
			seq: result.seq,
			archived_turns: result.archivedTurns,
			summary_stored: summary !== undefined,
		};
	} catch (error) {
		if (error instanceof ConversationError && error.refusal.code.startsWith('through_seq')) {
			const refusal = {
				...error.refusal,
				path: 'messages[0].summary.through_seq',
			} as ConversationError['refusal'];
			throw new ConversationError(refusal).renamed(sessionId);
		}
		throw error instanceof ConversationError ? error.renamed(sessionId) : error;
	} finally {
		// A run that stored nothing (no answer, bad output, a refused summary) lets go of the session at once.
		if (busyToken && !reachedStore) await store.release(key, busyToken).catch(() => undefined);
	}
}

/** One small record per step: enough to audit what the agent did without storing observations; a batch names each call's tool. */
export function compactSteps(trace: readonly TraceStep[]): Array<{
	step: number;
	tool?: string;
	tools?: string[];
	final?: true;
	error?: string;
	ms: number;
}> {
	return trace.map((entry) => ({
		step: entry.step,
		...(entry.action ? { tool: entry.action.tool } : {}),
		...(entry.calls ? { tools: entry.calls.map((call) => call.tool) } : {}),
		...(entry.final ? { final: true as const } : {}),
		...(entry.error ? { error: entry.error.type } : {}),
		ms: entry.elapsed_ms,
	}));
}

/** Checks the session ID (numbers are accepted as text) and returns it with the key the store uses; `field` names it in errors. */
export function sessionStoreKey(
	address: SessionAddress,
	field = 'session_id',
): { sessionId: string; key: string } {
	const raw = typeof address.sessionId === 'number' ? String(address.sessionId) : address.sessionId;
	if (typeof raw !== 'string' || raw.trim() === '') {
		throw new InputError(
			field,
			`${field === 'session_id' ? 'session ID' : field} is empty; set it to the conversation ID, e.g. {{ $json.body.session_id }}`,
		);
	}
	const scoped = scopedSessionKey(raw, address.contextScope, address.workflowId, field);
	try {
		return {
			sessionId: raw,
			key: assertSessionKey(`${address.keyPrefix ?? DEFAULT_KEY_PREFIX}${scoped}`),
		};
	} catch (error) {
		throw new InputError(field, (error as Error).message);
	}
}

/** Lets go of the lock a prepare took (`busy_token`) when its run ended without reaching persist (it failed, it was stopped). */
export async function releaseSession(
	store: ContextStore,
	address: SessionAddress,
	busyToken: string,
): Promise<void> {
	await store.release(sessionStoreKey(address).key, busyToken);
}
