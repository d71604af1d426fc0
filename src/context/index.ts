/**
 * The conversation store's entry point: what the Agent Context node and the CLI use (design: prepare →
 * agent → persist; list, fork, rewind). Code outside src/context imports from here, not from the files behind it;
 * the one other door is `defaults.ts`, the defaults alone, for src/panel.ts (the panels load no store).
 */
export {
	DEFAULT_ARCHIVE_TTL_SECONDS,
	DEFAULT_BUSY_TTL_SECONDS,
	DEFAULT_BUSY_WAIT_SECONDS,
	DEFAULT_KEY_PREFIX,
	DEFAULT_MAX_ARCHIVED_TURNS,
	DEFAULT_MAX_HISTORY_CHARACTERS,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_MAX_TURN_CHARACTERS,
	DEFAULT_MAX_TURNS,
	DEFAULT_TTL_SECONDS,
	HISTORY_CHARACTER_LEVELS,
	type HistoryCharacterLevel,
} from './defaults';
export {
	RedisError,
	ContextStoreError,
	InvalidContextInputError,
	type ArchivedTurn,
	type ContextStore,
	type ForkResult,
	type HistoryWindow,
	type ListedTurn,
	type PersistOptions,
	type RewindResult,
	type SessionListing,
	type StoredSummary,
	type StoredTurn,
} from './store';
export { BUSY_POLICIES, type BusyPolicy } from './busy';
export { ConversationError, type ConversationRefusal } from './errors';
export {
	compactSteps,
	persistSession,
	prepareSession,
	releaseSession,
	sessionStoreKey,
	type BusyOptions,
	type PersistedSession,
	type PersistSessionRequest,
	type SessionAddress,
	type PreparedSession,
} from './session/session';
export {
	CONTEXT_SCOPES,
	scopedSessionKey,
	WORKFLOW_SCOPE_MARK,
	type ContextScope,
} from './session/session-scope';
export { forkSession, listSession, rewindSession, turnNumberOf } from './session/session-branches';
export { resolveCharacterBudget } from './window';
export { toProviderFormats, type ProviderFormats } from './formats';
export { MemoryContextStore, sharedMemoryContextStore } from './memory/memory-store';
export { RedisContextStore, type RedisContextStoreOptions } from './redis/redis-store';
export { pingRedis } from '../redis/open-client';
export type { RedisConnectionOptions } from '../redis/connection';
export {
	closeSharedRedisClients,
	sharedRedisClientCount,
	withSharedRedis,
	MAX_SHARED_CLIENTS,
} from '../redis/shared-clients';
