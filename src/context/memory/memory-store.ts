import { randomUUID } from 'node:crypto';
import { checkKnownOptions } from '../../core/known-options';
import { WRITE_ID_TTL_SECONDS } from '../../redis/script';
import type { BusyAcquire, BusyOutcome } from '../busy';
import { ConversationError } from '../errors';
import {
	dropExpired,
	emptySession,
	persistInto,
	rewindIn,
	takeLock,
	type MemorySession,
} from './memory-session';
import {
	assertTurnNumber,
	busyRefusal,
	persistOutcome,
	rewindOutcome,
	withToken,
} from '../outcomes';
import { listingOf, planFork, sessionExists, type RawSession } from '../snapshot';
import { archiveBounds, assertPersistOptions, assertSessionKey } from '../store-checks';
import {
	InvalidContextInputError,
	type BranchOptions,
	type ContextStore,
	type ForkResult,
	type HistoryWindow,
	type PersistOptions,
	type PersistResult,
	type PersistWrite,
	type PreparedHistory,
	type RewindResult,
	type SessionListing,
	type SessionSnapshot,
	type StoredTurn,
} from '../store';
import { summaryWrite } from '../summary-write';
import { decodeNumberedTurns, encodeStoredTurn } from '../turn-codec';
import { applyHistoryWindow, assertHistoryWindow, entriesToRead } from '../window';
import {
	DEFAULT_MAX_MEMORY_SESSIONS,
	type MemoryContextStoreOptions,
	OPTIONS,
} from './memory-options';

/**
 * Conversation history in a `Map` of this process. It is NOT shared between n8n processes, queue-mode
 * workers or main/webhook instances, and it is lost on restart: use the Redis store for anything but
 * a single-process setup or tests. Expiry is emulated (checked on access) and the number of sessions
 * is capped (least recently used first out), so the map cannot grow without bound.
 *
 * Every method does its reads and writes without awaiting in between, so operations on one session
 * are atomic relative to each other, like the Redis store's scripts (memory-session.ts holds their twins).
 */
export class MemoryContextStore implements ContextStore {
	private readonly sessions = new Map<string, MemorySession>();
	private readonly maxSessions: number;
	private readonly now: () => number;

	constructor(options: MemoryContextStoreOptions = {}) {
		checkKnownOptions('MemoryContextStore', options, OPTIONS);
		this.maxSessions = options.maxSessions ?? DEFAULT_MAX_MEMORY_SESSIONS;
		if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1) {
			throw new InvalidContextInputError('maxSessions', [
				`must be a positive integer, got ${String(options.maxSessions)}`,
			]);
		}
		this.now = options.now ?? Date.now;
	}

	/** Sessions currently held (expired ones may still count until they are next touched). */
	get size(): number {
		return this.sessions.size;
	}

	async prepare(
		sessionKey: string,
		window: HistoryWindow,
		busy?: BusyAcquire,
	): Promise<PreparedHistory> {
		const key = assertSessionKey(sessionKey);
		const checkedWindow = assertHistoryWindow(window);
		const session = this.read(key) ?? (busy ? emptySession() : undefined);
		const token = session ? takeLock(session, busy, this.now()) : null;
		if (token === 'busy') throw busyRefusal(key);
		if (session && token) this.write(key, session);
		const entries = session ? session.entries.slice(-entriesToRead(checkedWindow)) : [];
		const history = applyHistoryWindow(
			{
				entries,
				storedTurns: session?.entries.length ?? 0,
				systemMessage: session?.systemMessage,
				summary: session?.summary,
				lastSeq: session?.counter ?? 0,
			},
			checkedWindow,
		);
		return withToken(history, token);
	}

	/** `append` without a lock or a summary: always stored (a session a run holds refuses it with ConversationError). */
	async persist(
		sessionKey: string,
		turn: StoredTurn,
		options: PersistOptions,
		write: { turnId?: string } = {},
	): Promise<{ storedTurns: number }> {
		const result = await this.append(
			sessionKey,
			turn,
			options,
			write.turnId === undefined ? {} : { turnId: write.turnId },
		);
		return { storedTurns: result.stored ? result.storedTurns : 0 };
	}

	async append(
		sessionKey: string,
		turn: StoredTurn,
		options: PersistOptions,
		write: PersistWrite = {},
	): Promise<PersistResult> {
		const key = assertSessionKey(sessionKey);
		const bounds = assertPersistOptions(options);
		const entry = encodeStoredTurn(turn);
		const summary = summaryWrite(write.summary);
		const session = this.read(key) ?? emptySession();
		const reply = persistInto(
			session,
			entry,
			{ ...options, ...bounds },
			{
				turnId: write.turnId ?? randomUUID(),
				busyToken: write.busyToken ?? '',
				summary: summary.encoded,
				throughSeq: summary.throughSeq,
			},
			this.now(),
		);
		if (reply[0] === 'stored') this.write(key, session);
		return persistOutcome(reply, key, summary.throughSeq, 'summary.through_seq');
	}

	async release(sessionKey: string, busyToken: string): Promise<BusyOutcome> {
		const session = this.read(assertSessionKey(sessionKey));
		if (!session || session.busy?.token !== busyToken) return 'not_held';
		session.busy = undefined;
		return 'released';
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
		const { turns, skippedCorrupt } = decodeNumberedTurns(session.entries, 1);
		const ttlSeconds =
			session.expiresAt === null || session.entries.length === 0
				? null
				: Math.ceil((session.expiresAt - this.now()) / 1000);
		const snapshot: SessionSnapshot = { turns, skippedCorrupt, ttlSeconds };
		if (session.systemMessage !== undefined) snapshot.systemMessage = session.systemMessage;
		return snapshot;
	}

	async list(sessionKey: string): Promise<SessionListing> {
		const key = assertSessionKey(sessionKey);
		const raw = this.raw(key);
		if (!sessionExists(raw)) throw new ConversationError({ code: 'not_found', session: key });
		return listingOf(raw);
	}

	async fork(
		sourceKey: string,
		targetKey: string,
		atTurn: number,
		options: BranchOptions,
		write: { forkId?: string } = {},
	): Promise<ForkResult> {
		const source = assertSessionKey(sourceKey);
		const target = assertSessionKey(targetKey);
		const turn = assertTurnNumber(atTurn, 1, source);
		const { archiveTtlSeconds } = archiveBounds(options);
		const plan = planFork(this.raw(source), turn, source);
		const result = {
			turns: plan.live.length,
			summary: plan.summary !== null,
			restored: plan.restored,
			last_seq: plan.lastSeq,
		};
		const existing = this.read(target);
		if (existing && write.forkId !== undefined && existing.writes.has(`write:${write.forkId}`))
			return result;
		if (existing) throw new ConversationError({ code: 'target_exists', target });
		const now = this.now();
		const session: MemorySession = {
			...emptySession(),
			entries: plan.live,
			...(plan.system === null ? {} : { systemMessage: plan.system }),
			...(plan.summary === null ? {} : { summary: plan.summary }),
			expiresAt: options.ttlSeconds > 0 ? now + options.ttlSeconds * 1000 : null,
			archive: plan.archive,
			archiveExpiresAt:
				archiveTtlSeconds > 0 && plan.archive.length > 0 ? now + archiveTtlSeconds * 1000 : null,
			counter: plan.lastSeq,
			counterExpiresAt:
				options.ttlSeconds === 0 || archiveTtlSeconds === 0
					? null
					: now + Math.max(options.ttlSeconds, archiveTtlSeconds) * 1000,
		};
		if (write.forkId !== undefined)
			session.writes.set(`write:${write.forkId}`, {
				reply: 'forked',
				expiresAt: now + WRITE_ID_TTL_SECONDS * 1000,
			});
		this.write(target, session);
		return result;
	}

	async rewind(
		sessionKey: string,
		toTurn: number,
		options: Omit<BranchOptions, 'ttlSeconds'>,
		write: { rewindId?: string } = {},
	): Promise<RewindResult> {
		const key = assertSessionKey(sessionKey);
		const turn = assertTurnNumber(toTurn, 0, key);
		const session = this.read(key) ?? emptySession();
		const reply = rewindIn(
			session,
			turn,
			archiveBounds(options),
			write.rewindId ?? randomUUID(),
			this.now(),
		);
		if (reply[0] === 'done') this.write(key, session);
		return rewindOutcome(reply, key, turn);
	}

	/** Nothing to release; the sessions stay for other users of this instance. */
	async close(): Promise<void> {}

	/** The session as one Redis SNAPSHOT_SCRIPT read would return it. */
	private raw(key: string): RawSession {
		const session = this.read(key) ?? emptySession();
		return {
			turns: session.entries,
			archive: session.archive,
			system: session.systemMessage ?? null,
			summary: session.summary ?? null,
			counter: session.counter ?? null,
			busy: session.busy !== undefined,
		};
	}

	/** Returns the live session (marking it most recently used), dropping what has expired of it. */
	private read(key: string): MemorySession | undefined {
		const session = this.sessions.get(key);
		if (!session) return undefined;
		this.sessions.delete(key);
		if (!dropExpired(session, this.now())) return undefined;
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
