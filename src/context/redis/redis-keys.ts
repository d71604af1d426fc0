// The Redis keys of a conversation session: its one key layout, the write ids, the layout before Redis Cluster support.
import { hashTag } from '../../redis/hash-tag';
import { isClusterClient, type RedisClient } from '../../redis/open-client';

/** A session's keys: its live turns, system message, summary, archive, turn counter and busy lock. */
export interface RedisSessionKeys {
	turns: string;
	system: string;
	summary: string;
	archive: string;
	seq: string;
	busy: string;
	superseded: string;
}

/**
 * The one key layout of a session: `<store prefix>{<session key>}:turns` (a list of JSON turns), `…:system` (a
 * string), `…:summary` (a JSON string), `…:archive` (a list of archived turns, with its own expiry), `…:seq` (the
 * turn counter), `…:busy` (the lock of the run answering now) and `…:superseded` (the tokens of runs a later
 * message took the session from, while they may still persist). The session key is the hash tag, so on a Redis
 * Cluster every key (and the write ids below) share one slot and one script may touch them together.
 */
export function redisSessionKeys(keyPrefix: string, sessionKey: string): RedisSessionKeys {
	const session = `${keyPrefix}${hashTag(sessionKey)}`;
	return {
		turns: `${session}:turns`,
		system: `${session}:system`,
		summary: `${session}:summary`,
		archive: `${session}:archive`,
		seq: `${session}:seq`,
		busy: `${session}:busy`,
		superseded: `${session}:superseded`,
	};
}

/**
 * Where a write's id is remembered (WRITE_ID_TTL_SECONDS), so a write sent twice applies once: `turn:<id>` for a
 * persist (as before), `write:<id>` for a fork's target or a rewind.
 */
export function writeIdKey(
	keyPrefix: string,
	sessionKey: string,
	kind: 'turn' | 'write',
	id: string,
): string {
	return `${keyPrefix}${hashTag(sessionKey)}:${kind}:${id}`;
}

/**
 * The layout before Redis Cluster support, `<store prefix><session key>:turns` and `…:system`, still read on a
 * plain Redis: the scripts move a session found there into the layout above on its first touch (see
 * MIGRATE_LUA), so a deployment that upgrades keeps its conversations. None when the old key could be another
 * session's key in the new layout (a session key that is itself `{…}`), so no session ever takes another's.
 */
export function legacyRedisSessionKeys(
	keyPrefix: string,
	sessionKey: string,
): { turns: string; system: string } | undefined {
	if (/^\{[^{}]*\}$/.test(sessionKey)) return undefined;
	return { turns: `${keyPrefix}${sessionKey}:turns`, system: `${keyPrefix}${sessionKey}:system` };
}

/**
 * The session's keys in the scripts' order (turns, system, summary, archive, counter, busy, superseded), then the write id
 * when given, then on a plain Redis the old layout's turns and system (see legacyRedisSessionKeys).
 */
export function scriptKeys(
	client: RedisClient,
	keyPrefix: string,
	sessionKey: string,
	writeId?: string,
): string[] {
	const keys = redisSessionKeys(keyPrefix, sessionKey);
	const legacy = isClusterClient(client)
		? undefined
		: legacyRedisSessionKeys(keyPrefix, sessionKey);
	return [
		keys.turns,
		keys.system,
		keys.summary,
		keys.archive,
		keys.seq,
		keys.busy,
		keys.superseded,
		...(writeId ? [writeId] : []),
		...(legacy ? [legacy.turns, legacy.system] : []),
	];
}
