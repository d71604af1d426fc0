// The conversation store's defaults and levels: a light door beside index.ts, for src/panel.ts (the node panels), which
// reads these without loading the stores, sessions and scripts index.ts opens onto.
export {
	DEFAULT_ARCHIVE_TTL_SECONDS,
	DEFAULT_KEY_PREFIX,
	DEFAULT_MAX_ARCHIVED_TURNS,
	DEFAULT_MAX_HISTORY_CHARACTERS,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_MAX_TURN_CHARACTERS,
	DEFAULT_MAX_TURNS,
	DEFAULT_TTL_SECONDS,
} from './store';
export { DEFAULT_BUSY_TTL_SECONDS, DEFAULT_BUSY_WAIT_SECONDS } from './busy';
export { HISTORY_CHARACTER_LEVELS, type HistoryCharacterLevel } from './window';
