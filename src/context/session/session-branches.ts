// List, fork and rewind a conversation by its session ID: what the Agent Context node and `agent-core session` both call.
import {
	DEFAULT_TTL_SECONDS,
	type ContextStore,
	type ForkResult,
	type RewindResult,
	type SessionListing,
} from '../store';
import { ConversationError } from '../errors';
import { sessionStoreKey, type SessionAddress } from './session';

/** The archive's TTL and size for fork and rewind (defaults as persist's). */
export interface ArchiveOptions {
	archiveTtlSeconds?: number;
	maxArchivedTurns?: number;
}

/** A turn number as a surface got it: a number, or text (a flag, an expression) read the way JavaScript reads numbers. */
export function turnNumberOf(value: unknown): unknown {
	if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
		return Number(value);
	return value;
}

const renamed = (sessionId: string, target?: string) => (error: unknown) => {
	throw error instanceof ConversationError ? error.renamed(sessionId, target) : error;
};

/** The session's turns in order with their numbers, times, sizes and whether they are live, summarised or rewound. */
export async function listSession(
	store: ContextStore,
	address: SessionAddress,
): Promise<{ session_id: string } & SessionListing> {
	const { sessionId, key } = sessionStoreKey(address);
	const listing = await store.list(key).catch(renamed(sessionId));
	return { session_id: sessionId, ...listing };
}

/** A new session `toSessionId` holding the session's turns up to `atTurn` (see ContextStore.fork); the source is untouched. */
export async function forkSession(
	store: ContextStore,
	request: SessionAddress &
		ArchiveOptions & {
			toSessionId: unknown;
			atTurn: unknown;
			ttlSeconds?: number;
			forkId?: string;
		},
): Promise<{ session_id: string; to_session_id: string } & ForkResult> {
	const { sessionId, key } = sessionStoreKey(request);
	const target = sessionStoreKey(
		{
			sessionId: request.toSessionId,
			keyPrefix: request.keyPrefix,
			contextScope: request.contextScope,
			workflowId: request.workflowId,
		},
		'to_session',
	);
	const options = {
		ttlSeconds: request.ttlSeconds ?? DEFAULT_TTL_SECONDS,
		...archiveOptions(request),
	};
	const result = await store
		.fork(
			key,
			target.key,
			turnNumberOf(request.atTurn) as number,
			options,
			request.forkId ? { forkId: request.forkId } : {},
		)
		.catch(renamed(sessionId, target.sessionId));
	return { session_id: sessionId, to_session_id: target.sessionId, ...result };
}

/** Moves the session's turns after `toTurn` to its archive, marked `rewound` (see ContextStore.rewind). */
export async function rewindSession(
	store: ContextStore,
	request: SessionAddress & ArchiveOptions & { toTurn: unknown; rewindId?: string },
): Promise<{ session_id: string } & RewindResult> {
	const { sessionId, key } = sessionStoreKey(request);
	const result = await store
		.rewind(
			key,
			turnNumberOf(request.toTurn) as number,
			archiveOptions(request),
			request.rewindId ? { rewindId: request.rewindId } : {},
		)
		.catch(renamed(sessionId));
	return { session_id: sessionId, ...result };
}

function archiveOptions(request: ArchiveOptions): ArchiveOptions {
	return {
		...(request.archiveTtlSeconds === undefined
			? {}
			: { archiveTtlSeconds: request.archiveTtlSeconds }),
		...(request.maxArchivedTurns === undefined
			? {}
			: { maxArchivedTurns: request.maxArchivedTurns }),
	};
}
