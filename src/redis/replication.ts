// A write on a Redis Cluster is reported done only once a replica of its master holds it (WAIT), so a failover keeps it.
import type { Command as CommandType } from 'ioredis';
import { loadOnce } from '../core/load-once';
import { DEFAULT_COMMAND_TIMEOUT_MS, ReplicaUnconfirmedError } from './connection';
import { keySlot } from './hash-tag';
import { isClusterClient, type RedisClient } from './open-client';

const ioredis = loadOnce(() => require('ioredis') as typeof import('ioredis'));

/**
 * After a write to `key` on a cluster: WAIT until one replica of the key's master has it, for at most half the
 * command timeout (WAIT holds the node's connection meanwhile). A shard without a replica in the cluster's last
 * known layout is not waited on: there is nothing to wait for. When no replica confirms in time, the write is
 * applied on the master but a failover now could lose it: that fails with a ReplicaUnconfirmedError (sending
 * the write again with its id is safe: each write's script applies an id once). A plain Redis: nothing to do.
 */
export async function confirmWrite(client: RedisClient, key: string): Promise<void> {
	if (!isClusterClient(client)) return;
	const slot = keySlot(key);
	if ((client.slots[slot]?.length ?? 0) < 2) return;
	const waitMs = Math.max(
		1,
		Math.floor((client.options.redisOptions?.commandTimeout ?? DEFAULT_COMMAND_TIMEOUT_MS) / 2),
	);
	// WAIT names no key: sent with the slot, it goes to the connection of the master that just took the write.
	const command: CommandType = new (ioredis().Command)('wait', [1, waitMs], {
		replyEncoding: 'utf8',
	});
	const confirmed = Number(await client.sendCommand(command, undefined, { slot }));
	if (confirmed >= 1) return;
	// The layout may be stale (a replica gone): read it again, so the next write waits only on what exists.
	client.refreshSlotsCache();
	throw new ReplicaUnconfirmedError(waitMs);
}
