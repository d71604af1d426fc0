// Where the e2e reads a session's stored turns: the shared key, else the workflow-scoped key of that session (issue #48).
import type { Redis } from 'ioredis';
import { redisSessionKeys } from '../../../src/context/redis/redis-store';
import { sessionStoreKey } from '../../../src/context/session/session';
import { WORKFLOW_SCOPE_MARK } from '../../../src/context/session/session-scope';
import { hashTag } from '../../../src/redis/hash-tag';

const glob = (text: string) => text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);

/**
 * The turns key of `sessionId` under `keyPrefix`: the shared one when it exists, else those of the same session in
 * any workflow's scope (an example on Conversation Scope → This Workflow: n8n gives the imported workflow its id).
 */
export async function turnsKeysOf(
	client: Redis,
	keyPrefix: string,
	sessionId: string,
): Promise<string[]> {
	const shared = redisSessionKeys('', sessionStoreKey({ sessionId, keyPrefix }).key).turns;
	if (await client.exists(shared)) return [shared];
	// {<prefix>{wf}<n>:<workflow id>:<session>}:turns, braces inside the tag percent-encoded (hashTag).
	const tag = hashTag(`${keyPrefix}${WORKFLOW_SCOPE_MARK}\u0000${sessionId}`);
	const [start, end] = tag.split('\u0000');
	const pattern = `${glob(start)}*:${glob(end)}:turns`;
	const found = new Set<string>();
	let cursor = '0';
	do {
		const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
		cursor = next;
		for (const key of keys) found.add(key);
	} while (cursor !== '0');
	return found.size > 0 ? [...found] : [shared];
}
