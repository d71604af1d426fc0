// The conversation store in Redis: every session's keys written only by the Lua scripts of redis-scripts.ts.
import { randomUUID } from 'node:crypto';
import type { OptionNames } from '../../core/known-options';
import {
	checkRedisStoreOptions,
	ManagedRedis,
	REDIS_SOURCE_OPTIONS,
	type RedisSource,
} from '../../redis/managed-client';
import type { RedisClient } from '../../redis/open-client';
import { confirmWrite } from '../../redis/replication';
import { evaluateScript, evaluateWrite, WRITE_ID_TTL_SECONDS } from '../../redis/script';
import type { BusyAcquire, BusyOutcome } from '../busy';
import { ConversationError } from '../errors';
import {
	assertTurnNumber,
	busyRefusal,
	persistOutcome,
	rewindOutcome,
	withToken,
	type PersistReply,
	type ReadReply,
	type RewindReply,
	type SnapshotReply,
} from '../outcomes';
import { redisSessionKeys, scriptKeys, writeIdKey } from './redis-keys';
import { forkArgs, persistArgs } from './redis-script-args';
import {
	FORK_CREATE_SCRIPT,
	PERSIST_SCRIPT,
	READ_SCRIPT,
	RELEASE_SCRIPT,
	REWIND_SCRIPT,
	SNAPSHOT_SCRIPT,
} from './redis-scripts';
import { listingOf, planFork, sessionExists, type RawSession } from '../snapshot';
import { archiveBounds, assertPersistOptions, assertSessionKey } from '../store-checks';
import {
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

export {
	createRedisClientOptions,
	DEFAULT_COMMAND_TIMEOUT_MS,
	DEFAULT_CONNECT_TIMEOUT_MS,
	type RedisConnectionOptions,
} from '../../redis/connection';
export { connectRedis, pingRedis } from '../../redis/open-client';
export { legacyRedisSessionKeys, redisSessionKeys, type RedisSessionKeys } from './redis-keys';

/** Either a connection the store opens and owns, or a client the caller owns and closes. */
export type RedisContextStoreOptions = { keyPrefix?: string } & RedisSource;
const STORE_OPTIONS = {
	...REDIS_SOURCE_OPTIONS,
	keyPrefix: true,
} satisfies OptionNames<RedisContextStoreOptions>;

/**
 * Conversation history in Redis, shared by every n8n process that uses the same Redis and prefix. Every key of a
 * session is written only by Lua scripts (redis-scripts.ts), so concurrent requests never interleave a turn or
 * half-write one; numbers, summaries, the archive and the lock change in the same script as the turns.
 */
export class RedisContextStore implements ContextStore {
	private readonly redis: ManagedRedis;
	private readonly keyPrefix: string;

	constructor(options: RedisContextStoreOptions) {
		checkRedisStoreOptions('RedisContextStore', options, STORE_OPTIONS);
		// The session key already carries the history's prefix (sessionStoreKey owns the layout); this one
		// only namespaces a whole store, e.g. per test.
		this.keyPrefix = options.keyPrefix ?? '';
		this.redis = new ManagedRedis(options, 'Redis context store');
	}

	async prepare(
		sessionKey: string,
		window: HistoryWindow,
		busy?: BusyAcquire,
	): Promise<PreparedHistory> {
		const key = assertSessionKey(sessionKey);
		const checkedWindow = assertHistoryWindow(window);
		const args = [
			-entriesToRead(checkedWindow),
			busy?.mode ?? '',
			busy?.id ?? '',
			busy?.ttlMs ?? 0,
		];
		// Taking the lock is a write: on a cluster, done once a replica holds it.
		const reply = (await this.redis.run('prepare', (client) =>
			(busy ? evaluateWrite : evaluateScript)(client, READ_SCRIPT, this.keys(client, key), args),
		)) as ReadReply;
		if (reply[0] === 'busy') throw busyRefusal(key);
		const [, entries, storedTurns, systemMessage, , summary, counter, token] = reply;
		const history = applyHistoryWindow(
			{
				entries,
				storedTurns: Number(storedTurns),
				systemMessage,
				summary,
				lastSeq: Number(counter ?? 0),
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

	/**
	 * Appends the turn (see PersistWrite for the summary, the lock and the id). `write.turnId` (default: a new id)
	 * makes it idempotent: sent again with the same id within WRITE_ID_TTL_SECONDS, it applies once. On a Redis
	 * Cluster it is done once a replica holds it.
	 */
	async append(
		sessionKey: string,
		turn: StoredTurn,
		options: PersistOptions,
		write: PersistWrite = {},
	): Promise<PersistResult> {
		const key = assertSessionKey(sessionKey);
		const { archiveTtlSeconds, maxArchivedTurns } = assertPersistOptions(options);
		const entry = encodeStoredTurn(turn);
		const summary = summaryWrite(write.summary);
		const turnId = write.turnId ?? randomUUID();
		const reply = (await this.redis.run('persist', (client) =>
			evaluateWrite(
				client,
				PERSIST_SCRIPT,
				this.keys(client, key, writeIdKey(this.keyPrefix, key, 'turn', turnId)),
				persistArgs(entry, options, write, summary, { archiveTtlSeconds, maxArchivedTurns }),
			),
		)) as PersistReply;
		return persistOutcome(reply, key, summary.throughSeq, 'summary.through_seq');
	}

	async release(sessionKey: string, busyToken: string): Promise<BusyOutcome> {
		const key = assertSessionKey(sessionKey);
		const released = await this.redis.run('release', (client) =>
			evaluateWrite(
				client,
				RELEASE_SCRIPT,
				[redisSessionKeys(this.keyPrefix, key).busy],
				[busyToken],
			),
		);
		return Number(released) === 1 ? 'released' : 'not_held';
	}

	async clear(sessionKey: string): Promise<{ deleted: boolean }> {
		const key = assertSessionKey(sessionKey);
		const removed = await this.redis.run('clear', async (client) => {
			const keys = this.keys(client, key);
			// On a plain Redis the old layout's keys are among them: a cleared session does not come back from there.
			const deleted = await client.del(...keys);
			await confirmWrite(client, keys[0]);
			return deleted;
		});
		return { deleted: removed > 0 };
	}

	async get(sessionKey: string): Promise<SessionSnapshot> {
		const key = assertSessionKey(sessionKey);
		const [, entries, , systemMessage, ttl] = (await this.redis.run('get', (client) =>
			evaluateScript(client, READ_SCRIPT, this.keys(client, key), [0, '', '', 0]),
		)) as Extract<ReadReply, ['read', ...unknown[]]>;
		const snapshot: SessionSnapshot = {
			...decodeNumberedTurns(entries, 1),
			ttlSeconds: ttl > 0 ? Number(ttl) : null,
		};
		if (systemMessage !== null) snapshot.systemMessage = systemMessage;
		return snapshot;
	}

	async list(sessionKey: string): Promise<SessionListing> {
		const key = assertSessionKey(sessionKey);
		const raw = await this.snapshot(key);
		if (!sessionExists(raw)) throw new ConversationError({ code: 'not_found', session: key });
		return listingOf(raw);
	}

	/**
	 * Reads the source in one script and creates the target in another, which refuses a target that exists. On a
	 * cluster the two sessions are in different slots, so no one script could do both; it is still safe: the read is
	 * one consistent moment of the source, and a turn's content never changes once stored (it only moves between the
	 * live list and the archive, and numbers are never reused), so the fork is the source as it was then — whatever
	 * the source does next — and two forks racing for one target cannot both create it.
	 */
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
		const plan = planFork(await this.snapshot(source), turn, source);
		const forkId = write.forkId ?? randomUUID();
		const reply = (await this.redis.run('fork', (client) =>
			evaluateWrite(
				client,
				FORK_CREATE_SCRIPT,
				this.keys(client, target, writeIdKey(this.keyPrefix, target, 'write', forkId)),
				forkArgs(plan, options.ttlSeconds, archiveTtlSeconds),
			),
		)) as [string];
		if (reply[0] === 'exists') throw new ConversationError({ code: 'target_exists', target });
		return {
			turns: plan.live.length,
			summary: plan.summary !== null,
			restored: plan.restored,
			last_seq: plan.lastSeq,
		};
	}

	async rewind(
		sessionKey: string,
		toTurn: number,
		options: Omit<BranchOptions, 'ttlSeconds'>,
		write: { rewindId?: string } = {},
	): Promise<RewindResult> {
		const key = assertSessionKey(sessionKey);
		const turn = assertTurnNumber(toTurn, 0, key);
		const { archiveTtlSeconds, maxArchivedTurns } = archiveBounds(options);
		const rewindId = write.rewindId ?? randomUUID();
		const reply = (await this.redis.run('rewind', (client) =>
			evaluateWrite(
				client,
				REWIND_SCRIPT,
				this.keys(client, key, writeIdKey(this.keyPrefix, key, 'write', rewindId)),
				[turn, archiveTtlSeconds, maxArchivedTurns, new Date().toISOString(), WRITE_ID_TTL_SECONDS],
			),
		)) as RewindReply;
		return rewindOutcome(reply, key, turn);
	}

	/** Quits (or, if Redis does not answer, drops) the connection the store opened. */
	close(): Promise<void> {
		return this.redis.close();
	}

	private async snapshot(key: string): Promise<RawSession> {
		const [turns, archive, system, summary, counter, busy] = (await this.redis.run(
			'read',
			(client) => evaluateScript(client, SNAPSHOT_SCRIPT, this.keys(client, key), []),
		)) as SnapshotReply;
		return {
			turns,
			archive,
			system,
			summary,
			counter: counter === null ? null : Number(counter),
			busy: Number(busy) === 1,
		};
	}

	/** The session's keys in the scripts' order (see scriptKeys). */
	private keys(client: RedisClient, sessionKey: string, writeId?: string): string[] {
		return scriptKeys(client, this.keyPrefix, sessionKey, writeId);
	}
}
