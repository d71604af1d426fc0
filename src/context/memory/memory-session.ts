// One session of the memory store and its atomic operations: the twins of the Redis scripts, step for step, on the same entry strings.
import { WRITE_ID_TTL_SECONDS } from '../../redis/script';
import type { BusyAcquire } from '../busy';
import type { PersistReply, RewindReply } from '../outcomes';
import {
	archivedEntry,
	numberedEntry,
	numberEntries,
	readArchivedEntry,
	seqOfEntry,
} from '../turn-codec';

/** A session as the memory store keeps it: the keys of a Redis session, each with its own expiry (epoch ms, null = never). */
export interface MemorySession {
	/** Turns serialised exactly as Redis stores them, so both stores decode (and copy) the same way. */
	entries: string[];
	systemMessage?: string;
	summary?: string;
	/** The live turns, system message and summary expire together. */
	expiresAt: number | null;
	archive: string[];
	archiveExpiresAt: number | null;
	counter?: number;
	counterExpiresAt: number | null;
	busy?: { token: string; expiresAt: number };
	/** Tokens a later message took the session from (busy policy latest), until the lock that replaced them expires. */
	superseded: Map<string, number>;
	/** Write ids seen (persist, fork, rewind) with the reply they got. */
	writes: Map<string, { reply: string; expiresAt: number }>;
}

export function emptySession(): MemorySession {
	return {
		entries: [],
		expiresAt: null,
		archive: [],
		archiveExpiresAt: null,
		counterExpiresAt: null,
		writes: new Map(),
		superseded: new Map(),
	};
}

const WRITE_ID_MS = WRITE_ID_TTL_SECONDS * 1000;
const passed = (expiresAt: number | null, now: number) => expiresAt !== null && expiresAt <= now;
const expiry = (seconds: number, now: number) => (seconds > 0 ? now + seconds * 1000 : null);

/** Drops what has expired, as Redis would; false when nothing of the session is left. */
export function dropExpired(session: MemorySession, now: number): boolean {
	if (passed(session.expiresAt, now))
		Object.assign(session, {
			entries: [],
			systemMessage: undefined,
			summary: undefined,
			expiresAt: null,
		});
	if (passed(session.archiveExpiresAt, now))
		Object.assign(session, { archive: [], archiveExpiresAt: null });
	if (passed(session.counterExpiresAt, now))
		Object.assign(session, { counter: undefined, counterExpiresAt: null });
	if (session.busy && session.busy.expiresAt <= now) session.busy = undefined;
	for (const [id, write] of session.writes) if (write.expiresAt <= now) session.writes.delete(id);
	for (const [token, expiresAt] of session.superseded)
		if (expiresAt <= now) session.superseded.delete(token);
	return (
		session.entries.length > 0 ||
		session.systemMessage !== undefined ||
		session.summary !== undefined ||
		session.archive.length > 0 ||
		session.counter !== undefined ||
		session.busy !== undefined
	);
}

/** Lua's number_all: numbers the entries for good on the first write since turns were numbered. */
export function numberAll(session: MemorySession): void {
	if (session.counter !== undefined) return;
	const numbers = numberEntries(session.entries, 1);
	session.entries = session.entries.map((entry, index) =>
		seqOfEntry(entry) === undefined && numbers[index] >= 1
			? numberedEntry(entry, numbers[index])
			: entry,
	);
	session.counter = Math.max(0, ...numbers);
	session.counterExpiresAt = session.expiresAt;
}

/** READ_SCRIPT's lock: `busy` when `take` meets a held lock, else the token (or null without a lock mode). */
export function takeLock(
	session: MemorySession,
	busy: BusyAcquire | undefined,
	now: number,
): 'busy' | string | null {
	if (!busy) return null;
	const holder = session.busy?.token;
	if (busy.mode === 'take' && holder) return 'busy';
	numberAll(session);
	const token = `${session.counter ?? 0}:${busy.id}`;
	session.busy = { token, expiresAt: now + busy.ttlMs };
	if (holder) {
		session.superseded.set(holder, now + busy.ttlMs);
		for (const known of session.superseded.keys()) session.superseded.set(known, now + busy.ttlMs);
	}
	return token;
}

const summaryThrough = (raw: string | undefined) =>
	Number(/^\{"through_seq":(\d+),/.exec(raw ?? '')?.[1] ?? 0);
const newestSeq = (session: MemorySession) =>
	Math.max(seqOfEntry(session.entries.at(-1) ?? '') ?? 0, summaryThrough(session.summary));

/** What PERSIST_SCRIPT does, on a memory session. */
export function persistInto(
	session: MemorySession,
	entry: string,
	options: {
		maxStoredTurns: number;
		ttlSeconds: number;
		systemMessage?: string;
		archiveTtlSeconds: number;
		maxArchivedTurns: number;
	},
	write: { turnId: string; busyToken: string; summary: string; throughSeq: number },
	now: number,
): PersistReply {
	const done = session.writes.get(`turn:${write.turnId}`);
	if (done) return ['stored', ...(done.reply.split(':').map(Number) as [number, number, number])];
	numberAll(session);
	const holder = session.busy?.token;
	if (write.busyToken === '') {
		if (holder) return ['busy'];
	} else if (holder !== write.busyToken) {
		if (session.superseded.has(write.busyToken)) return ['superseded'];
		if (holder) return ['changed'];
		if (Number(write.busyToken.split(':')[0]) !== (session.counter ?? 0)) return ['changed'];
	}
	let moved = 0;
	if (write.summary !== '') {
		const stored = summaryThrough(session.summary);
		const newest = newestSeq(session);
		if (write.throughSeq > newest) return ['ahead', newest];
		if (write.throughSeq < stored) return ['behind', stored];
		while (
			session.entries.length > 0 &&
			(seqOfEntry(session.entries[0]) ?? Infinity) <= write.throughSeq
		) {
			session.archive.push(
				archivedEntry(session.entries.shift()!, 'summarised', new Date(now).toISOString()),
			);
			moved++;
		}
		session.summary = write.summary;
	}
	const seq = (session.counter ?? 0) + 1;
	session.counter = seq;
	session.entries.push(numberedEntry(entry, seq));
	if (session.entries.length > options.maxStoredTurns)
		session.entries.splice(0, session.entries.length - options.maxStoredTurns);
	if (options.systemMessage !== undefined)
		session.systemMessage = options.systemMessage === '' ? undefined : options.systemMessage;
	session.expiresAt = expiry(options.ttlSeconds, now);
	session.counterExpiresAt =
		options.ttlSeconds === 0 || options.archiveTtlSeconds === 0
			? null
			: now + Math.max(options.ttlSeconds, options.archiveTtlSeconds) * 1000;
	if (moved > 0) {
		if (session.archive.length > options.maxArchivedTurns)
			session.archive.splice(0, session.archive.length - options.maxArchivedTurns);
		session.archiveExpiresAt = expiry(options.archiveTtlSeconds, now);
	}
	if (write.busyToken !== '' && holder === write.busyToken) session.busy = undefined;
	const reply = `${seq}:${session.entries.length}:${moved}`;
	session.writes.set(`turn:${write.turnId}`, { reply, expiresAt: now + WRITE_ID_MS });
	return ['stored', seq, session.entries.length, moved];
}

/** What REWIND_SCRIPT does, on a memory session (one that exists). */
export function rewindIn(
	session: MemorySession,
	to: number,
	options: { archiveTtlSeconds: number; maxArchivedTurns: number },
	rewindId: string,
	now: number,
): RewindReply {
	const done = session.writes.get(`write:${rewindId}`);
	if (done) return ['done', done.reply];
	if (
		session.entries.length === 0 &&
		session.summary === undefined &&
		session.archive.length === 0 &&
		session.counter === undefined
	)
		return ['not_found'];
	if (session.busy) return ['busy'];
	numberAll(session);
	const at = new Date(now).toISOString();
	const stored = summaryThrough(session.summary);
	const newest = newestSeq(session);
	if (to > newest) return ['range', newest];
	const moving: string[] = [];
	while (session.entries.length > 0 && (seqOfEntry(session.entries.at(-1)!) ?? 0) > to)
		moving.unshift(session.entries.pop()!);
	session.archive.push(...moving.map((entry) => archivedEntry(entry, 'rewound', at)));
	let restored = 0;
	let dropped = 0;
	if (stored > 0 && to < stored) {
		const back: Array<{ seq: number; live: string }> = [];
		const kept: string[] = [];
		for (const entry of session.archive) {
			const archived = readArchivedEntry(entry);
			if (archived?.reason === 'summarised' && archived.seq <= to) back.push(archived);
			else if (archived?.reason === 'summarised')
				kept.push(archivedEntry(archived.live, 'rewound', at));
			else kept.push(entry);
		}
		back.sort((left, right) => left.seq - right.seq);
		session.archive = kept;
		session.entries.unshift(...back.map((entry) => entry.live));
		restored = back.length;
		session.summary = undefined;
		dropped = 1;
	}
	if (moving.length > 0 || dropped === 1) {
		if (session.archive.length > options.maxArchivedTurns)
			session.archive.splice(0, session.archive.length - options.maxArchivedTurns);
		session.archiveExpiresAt = expiry(options.archiveTtlSeconds, now);
	}
	const reply = `${moving.length}:${restored}:${dropped}:${session.entries.length}`;
	session.writes.set(`write:${rewindId}`, { reply, expiresAt: now + WRITE_ID_MS });
	return ['done', reply];
}
