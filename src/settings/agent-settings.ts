// The settings of sub-agents (issue #52): the named sub-agents a run may call as tools, and how deep they may nest:
// rows of the settings table (settings.ts spreads them in).
import * as check from './setting-checks';
import type { Setting } from './setting-types';
import type { JsonSchema } from '../validation/validate';

/** The deepest `max_agent_depth` may go: a sub-agent of a sub-agent … ten levels down is already past any real need. */
export const MAX_AGENT_DEPTH = 10;

/** A sub-agent's name, as the parent model calls it (a tool name). */
export const AGENT_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,63}$';

/** One named sub-agent: what the parent's model reads, its own instructions, and its own run config. */
export interface SubAgentConfig {
	description: string;
	system?: string;
	config?: Record<string, unknown>;
}

export const AGENTS_SCHEMA: JsonSchema = {
	type: 'object',
	maxProperties: 32,
	propertyNames: { pattern: AGENT_NAME_PATTERN },
	additionalProperties: {
		type: 'object',
		properties: {
			description: { type: 'string', minLength: 1, maxLength: 2000 },
			system: { type: 'string', maxLength: 50_000 },
			config: { type: 'object' },
		},
		required: ['description'],
		additionalProperties: false,
	},
};

/** Sub-agents and their depth. */
export const AGENT_SETTINGS = {
	/** Named sub-agents: each is the tool of its name (args `{"task": string}`), run only when allowed_tools names it. */
	agents: {
		check: check.bySchema<Record<string, SubAgentConfig>>(
			AGENTS_SCHEMA,
			'{"researcher":{"description":"Finds facts on the web","config":{"allowed_tools":["http_request"]}}}',
		),
		meaning:
			'named sub-agents: `{"<name>": {"description", "system"?, "config"?}}`; each is the tool `<name>` with args ' +
			'`{"task": string}`, called only when `allowed_tools` names it; its `config` (a run config, checked with the ' +
			"parent's; `model` defaults to the parent's) runs its own loop on the parent's model client (see *Sub-agents*)",
	},
	/** How deep sub-agents may nest: a call past it is not run, and its observation says so. */
	max_agent_depth: {
		default: 3,
		check: check.integer(1, MAX_AGENT_DEPTH),
		meaning: `1–${MAX_AGENT_DEPTH}: how deep sub-agents may nest (a run is depth 0, its sub-agent 1, …); a call past it is not run and its observation says so`,
		panel: {
			collection: 'options',
			name: 'maxAgentDepth',
			displayName: 'Max Sub-Agent Depth',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_AGENT_DEPTH },
			since: 2,
			description:
				'How deep Agent Core sub-agents may nest below this one; a sub-agent called past it is not run',
		},
	},
} satisfies Record<string, Setting>;
