// The arguments (ARGV) of the conversation scripts that take many, in the order the scripts read them (redis-scripts.ts).
import { WRITE_ID_TTL_SECONDS } from '../../redis/script';
import type { ForkPlan } from '../snapshot';
import type { PersistOptions, PersistWrite } from '../store';

/**
 * PERSIST_SCRIPT's ARGV: entry, max stored, ttl, system mode, system message, id ttl, busy token, summary,
 * through, archive ttl, max archived, now.
 */
export function persistArgs(
	entry: string,
	options: PersistOptions,
	write: PersistWrite,
	summary: { encoded: string; throughSeq: number },
	archive: { archiveTtlSeconds: number; maxArchivedTurns: number },
): Array<string | number> {
	const systemMode =
		options.systemMessage === undefined ? 'keep' : options.systemMessage === '' ? 'delete' : 'set';
	return [
		entry,
		options.maxStoredTurns,
		options.ttlSeconds,
		systemMode,
		options.systemMessage ?? '',
		WRITE_ID_TTL_SECONDS,
		write.busyToken ?? '',
		summary.encoded,
		summary.throughSeq,
		archive.archiveTtlSeconds,
		archive.maxArchivedTurns,
		new Date().toISOString(),
	];
}

/** FORK_CREATE_SCRIPT's ARGV: what the new session gets from the plan, with its expiries. */
export function forkArgs(
	plan: ForkPlan,
	ttlSeconds: number,
	archiveTtlSeconds: number,
): Array<string | number> {
	return [
		WRITE_ID_TTL_SECONDS,
		ttlSeconds,
		archiveTtlSeconds,
		plan.lastSeq,
		plan.system ?? '',
		plan.system === null ? '0' : '1',
		plan.summary ?? '',
		plan.live.length,
		plan.archive.length,
		...plan.live,
		...plan.archive,
	];
}
