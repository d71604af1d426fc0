// What the n8n nodes' panels need from the engine, and nothing of the run path: the settings table, the built-in tools, Agent Context's defaults.
/**
 * A light entry point for the node descriptions (issue #39): n8n loads every node's description at start, so
 * the descriptions import this instead of the engine's index, and the run path loads on the first execute.
 */
export {
	SETTINGS,
	RUN_OPTION_SETTINGS,
	settingEntries,
	type Setting,
	type PanelFacts,
	type PanelChoice,
} from './settings/settings';
export { builtInTools } from './tools/registry';
export {
	DEFAULT_ARCHIVE_TTL_SECONDS,
	DEFAULT_BUSY_TTL_SECONDS,
	DEFAULT_BUSY_WAIT_SECONDS,
	DEFAULT_KEY_PREFIX,
	DEFAULT_MAX_HISTORY_CHARACTERS,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_MAX_TURN_CHARACTERS,
	DEFAULT_MAX_TURNS,
	DEFAULT_TTL_SECONDS,
	HISTORY_CHARACTER_LEVELS,
} from './context/defaults';
export type { AgentConfig } from './settings/config';
export type { Tool } from './tools/tool';
export type { JsonSchema } from './validation/validate';
