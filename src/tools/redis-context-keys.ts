// The redis_context tool's key layout: a session's namespace, its index and its writes' ids (light: the tool's card uses it).
import { hashTag } from '../redis/hash-tag';

/** Never a character of a model's key (see KEY_PATTERN), so the index can not collide with a value key. */
export const INDEX_SUFFIX = '#index';
/** Also never a model's key: where a write's id is remembered (see OPERATION_SCRIPT). */
export const WRITE_ID_INFIX = '#write:';

/**
 * The one key layout of a session's values: `${keyPrefix}{${session id}}:` followed by the model's key, the index
 * `#index` or a write's id `#write:<id>` (a model's key never has "#": see KEY_PATTERN). The session id is the
 * Redis Cluster hash tag, so all of a session's keys share one slot, as the script that touches several needs;
 * braces in it are encoded (hashTag), so the first "}" after the prefix always ends the session part, and no
 * session id (and no model key such as "../b" or "x:y") can reach into another session's space.
 */
export function sessionNamespace(keyPrefix: string, sessionId: string): string {
	return `${keyPrefix}${hashTag(sessionId)}:`;
}

/**
 * The layout before Redis Cluster support, `${keyPrefix}${encodeURIComponent(session id)}:`: on a plain Redis the
 * script moves a session found there into the namespace above on its first touch, so values kept before an
 * upgrade are not lost. (encodeURIComponent never leaves a "{", so no old namespace is a new one.)
 */
export function legacySessionNamespace(keyPrefix: string, sessionId: string): string {
	return `${keyPrefix}${encodeURIComponent(sessionId)}:`;
}
