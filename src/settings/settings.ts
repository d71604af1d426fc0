// Every run setting once: key, default, check, meaning, panel facts and CLI flag; config, panel, node and README derive from it.
import type { Check } from './setting-checks';
import type { PanelFacts, Setting } from './setting-types';
import { MODEL_SETTINGS } from './model-settings';
import { CALL_LIMIT_SETTINGS, RUN_LIMIT_SETTINGS, SHARED_BUDGET_SETTINGS } from './limit-settings';
import { TOOL_ACCESS_SETTINGS } from './tool-access-settings';
import { ANSWER_SCHEMA_SETTINGS, PROTOCOL_SETTINGS } from './protocol-settings';
import { MEMORY_SETTINGS } from './memory-settings';
import { MCP_SETTINGS } from './mcp-settings';
import { FILE_SETTINGS } from './file-settings';
import { GUARDRAIL_SETTINGS } from './guardrail-settings';
import { PLAN_SETTINGS } from './plan-settings';
import { AGENT_SETTINGS } from './agent-settings';

export type { PanelChoice, PanelFacts, Setting } from './setting-types';
export { REASONING_EFFORTS } from './model-settings';

/**
 * The table. Its order is the order keys are checked in, so the first problem reported stays the same. A new
 * setting is one row in the file of its group (spread in below, in this order): its type, default, check, panel
 * field (with `since`, the node version it arrives in) and node mapping follow; `node scripts/settings-table.js`
 * prints its README row.
 */
export const SETTINGS = {
	...MODEL_SETTINGS,
	...RUN_LIMIT_SETTINGS,
	...TOOL_ACCESS_SETTINGS,
	...CALL_LIMIT_SETTINGS,
	...PROTOCOL_SETTINGS,
	...SHARED_BUDGET_SETTINGS,
	...ANSWER_SCHEMA_SETTINGS,
	...MEMORY_SETTINGS,
	...MCP_SETTINGS,
	...FILE_SETTINGS,
	...GUARDRAIL_SETTINGS,
	...PLAN_SETTINGS,
	...AGENT_SETTINGS,
} satisfies Record<string, Setting>;

/** Run options that are not config keys but settings all the same: one name each in the library, the panel and the CLI. */
export const RUN_OPTION_SETTINGS = {
	developerText: {
		meaning: 'your task and constraints, added to the system prompt after the protocol rules',
		panel: {
			collection: 'top',
			name: 'developerText',
			displayName: 'Instructions',
			type: 'string',
			builtByNode: true,
		} satisfies PanelFacts,
		cliFlag: 'system',
	},
} as const;

type Rows = typeof SETTINGS;
type ValueOf<Row> = Row extends { check: Check<infer Value> } ? Value : never;
type HasValue<Row> = Row extends { default: unknown }
	? true
	: Row extends { required: true }
		? true
		: false;

/** The config keys with a default, or required: always present in a checked config. */
export type KeyWithValue = {
	[Key in keyof Rows]: HasValue<Rows[Key]> extends true ? Key : never;
}[keyof Rows];

/** The run configuration as the table declares it: each key has the type its check accepts; keys without a default are optional. */
export type ConfigOfSettings = {
	-readonly [Key in keyof Rows as Key extends KeyWithValue ? Key : never]: ValueOf<Rows[Key]>;
} & {
	-readonly [Key in keyof Rows as Key extends KeyWithValue ? never : Key]?: ValueOf<Rows[Key]>;
};

/** Each config key with its setting, in the table's order, for code that walks the table. */
export function settingEntries(): Array<[keyof Rows, Setting]> {
	return Object.entries(SETTINGS) as Array<[keyof Rows, Setting]>;
}
