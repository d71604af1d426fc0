// Every run setting once: key, default, check, meaning, panel facts and CLI flag; config, panel, node and README derive from it.
import type { ReasoningEffort } from '../providers/chat-model';
import { MAX_COST_USD } from '../budget/model-catalogue';
import { USED_STATE_MEMORY_DAYS } from '../run-state/signed-state';
import type { PriceTable } from '../budget/model-catalogue';
import type { SharedBudgetConfig } from '../budget/ledger';
import * as check from './setting-checks';
import type { Check } from './setting-checks';
import type { PanelFacts, Setting } from './setting-types';
import { MEMORY_SETTINGS } from './memory-settings';
import { MCP_SETTINGS } from './mcp-settings';
import { FILE_SETTINGS } from './file-settings';

export type { PanelChoice, PanelFacts, Setting } from './setting-types';

/** The values `reasoning_effort` takes. */
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

const limit = (name: string, displayName: string, description: string): PanelFacts => ({
	collection: 'limits',
	name,
	displayName,
	type: 'number',
	description,
});

/**
 * The table. Its order is the order keys are checked in, so the first problem reported stays the same. A new
 * setting is one row here: its type, default, check, panel field (with `since`, the node version it arrives in)
 * and node mapping follow; `node scripts/settings-table.js` prints its README row.
 */
export const SETTINGS = {
	/** Model id as the provider names it. */
	model: {
		required: true,
		check: check.nonEmptyString('the model id'),
		meaning: 'model ID as the provider names it',
		panel: {
			collection: 'top',
			name: 'model',
			displayName: 'Model',
			type: 'resourceLocator',
			builtByNode: true,
		},
	},
	/** Sent only when set; absent = the model's own default (GPT-5 and o-series models refuse any other). */
	temperature: {
		check: check.decimal(0, 2),
		meaning:
			"0–2; sent only when set, otherwise the model's own default applies. GPT-5 and o-series models " +
			'accept only their default: when an endpoint refuses a set temperature (HTTP 400 naming it), the ' +
			"call is retried once without it and the step's `notices` say so",
		panel: {
			collection: 'options',
			name: 'temperature',
			displayName: 'Temperature',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 2, numberPrecision: 2 },
			default: 0.2,
			description:
				"Sent only when this option is added; without it the model's own default applies. GPT-5 and o-series " +
				'models accept only their default: a refused temperature is dropped and the call retried, noted in ' +
				'the trace.',
		},
	},
	/** Cap on each reply's tokens (OpenAI `max_completion_tokens`, Gemini `maxOutputTokens`); absent = the provider's default. */
	max_output_tokens: {
		check: check.integer(1, 10_000_000),
		meaning:
			"cap on each reply's tokens, reasoning included (OpenAI `max_completion_tokens`, never the refused `max_tokens`; Gemini `maxOutputTokens`)",
		panel: {
			collection: 'options',
			name: 'maxOutputTokens',
			displayName: 'Max Output Tokens',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			unsetValue: 0,
			description:
				"Cap on each reply's tokens, reasoning included (OpenAI max_completion_tokens, Gemini maxOutputTokens); 0 = the provider's default",
		},
	},
	/** How hard a reasoning model thinks (OpenAI `reasoning_effort`, Gemini thinking budget); absent = the model's default. */
	reasoning_effort: {
		check: check.oneOf(REASONING_EFFORTS, 'one of'),
		meaning:
			'`minimal`, `low`, `medium` or `high`: OpenAI `reasoning_effort`; Gemini a thinking budget of 0 / 1,024 / 8,192 / 24,576 tokens',
		panel: {
			collection: 'options',
			name: 'reasoningEffort',
			displayName: 'Reasoning Effort',
			type: 'options',
			choices: [
				...REASONING_EFFORTS.map((effort) => ({
					name: effort.charAt(0).toUpperCase() + effort.slice(1),
					value: effort,
				})),
				{ name: "Model's Default", value: '' },
			].sort((first, second) => first.name.localeCompare(second.name)),
			default: '',
			unsetValue: '',
			description:
				'How hard a reasoning model thinks (OpenAI reasoning_effort; Gemini: a thinking budget)',
		},
	},
	/** Whole-run timeout, seconds. */
	timeout: {
		default: 120,
		check: check.decimal(0.001, 86_400),
		meaning: 'whole run, seconds → `timeout`',
		panel: limit('timeout', 'Run Timeout (Seconds)', 'Limit for the whole run'),
	},
	/** Maximum model turns (each reply, repair turns included, is a step). */
	max_steps: {
		default: 5,
		check: check.integer(1, 1000),
		meaning: 'model turns, repair turns included → `max_steps`',
		panel: limit('maxSteps', 'Max Steps', 'Most model turns in one run, repair turns included'),
	},
	/** Maximum tool executions. */
	max_tool_calls: {
		default: 10,
		check: check.integer(0, 10_000),
		meaning: 'tool executions → `max_tool_calls`',
		panel: limit(
			'maxToolCalls',
			'Max Tool Calls',
			'Most tool executions in one run; one more request ends the run with finish_reason max_tool_calls',
		),
	},
	/** How many tool calls one reply may ask for (`{"type":"actions","calls":[…]}`, issue #42); 1 = one action per reply. */
	max_parallel_calls: {
		default: 4,
		check: check.integer(1, 16),
		meaning:
			'1–16: tool calls one reply may ask for (`{"type":"actions","calls":[…]}`); calls without side effects run ' +
			'together, the others alone, in order; 1 = one action per reply, as node version 1 always runs (see *The protocol*)',
		panel: {
			collection: 'options',
			name: 'maxParallelToolCalls',
			displayName: 'Max Parallel Tool Calls',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 16 },
			since: 2,
			olderVersions: 1,
			description:
				'Tool calls the model may ask for in one reply (1 = one call per reply). Calls that only read run ' +
				'together: JSON Transform, HTTP Request GET, Redis Context get and list, and the workflow tools, tool ' +
				'sub-nodes and MCP tools named in Read-Only Tools. Any other call waits for those before it and runs ' +
				"alone, in order. A reply's calls are one step of the output's trace (its calls, in order) and one " +
				'Intermediate Steps entry each',
		},
	},
	/** The identical call (same tool, same args) this many times ends the run (`loop`); 0 = never ends it. */
	loop_limit: {
		default: 3,
		check: check.integer(0, 1000),
		meaning:
			'the same call (same tool; the same request as sent, however spelled) this many times ends the run → `loop`; 0 = never (see *Safety*)',
		panel: limit(
			'loopLimit',
			'Loop Limit',
			'The same tool called with the same arguments this many times ends the run with finish_reason loop ' +
				'(0 = never). Repeats before that are answered from the earlier result; a call with side effects ' +
				'never runs twice.',
		),
	},
	/** Tools the model may see and call. */
	allowed_tools: {
		default: [],
		check: check.toolNames,
		meaning: 'the whitelist',
		panel: {
			collection: 'top',
			name: 'allowedTools',
			displayName: 'Allowed Tools',
			type: 'multiOptions',
			builtByNode: true,
		},
	},
	/** Allowed tools whose calls wait for a person: the run pauses (`awaiting_approval`) with a signed run state. */
	approval_required: {
		default: [],
		check: check.toolNames,
		meaning:
			'allowed tools whose calls wait for a person → `awaiting_approval` with `pending_action` and `run_state` (see *Approval of tool calls*)',
		panel: {
			collection: 'top',
			name: 'approvalTools',
			displayName: 'Tools Needing Approval',
			type: 'multiOptions',
			shownWith: 'Require Approval',
			builtByNode: true,
		},
	},
	/** A paused run's state older than this many days is refused on resume (at most 30: used states are remembered 30 days). */
	run_state_max_age_days: {
		default: 7,
		check: check.withMessage(
			check.decimal(0.001, USED_STATE_MEMORY_DAYS),
			(key) =>
				`${key} must be a number of days from 0.001 to ${USED_STATE_MEMORY_DAYS}: a used state is remembered ` +
				`${USED_STATE_MEMORY_DAYS} days, so an older one could be resumed again`,
		),
		meaning:
			"a paused run's `run_state` older than this is refused on resume (exit 2 / `RunStateError` naming " +
			"`run_state`); 0.001 to 30, since a used state is remembered 30 days. The resuming side's config " +
			'decides, and changing it does not invalidate paused runs.',
		panel: {
			collection: 'top',
			name: 'runStateMaxAgeDays',
			displayName: 'Run State Max Age (Days)',
			type: 'number',
			typeOptions: { minValue: 0.001, maxValue: USED_STATE_MEMORY_DAYS, numberPrecision: 3 },
			shownWith: 'Require Approval',
			description:
				'A paused run resumed later than this is refused (its state could have been copied from a log); at most 30 days, as long as a used state is remembered',
		},
	},
	/** Timeout of each model call and each tool call, seconds. */
	single_call_timeout: {
		default: 30,
		check: check.decimal(0.001, 3600),
		meaning: 'each model call and each tool call, seconds',
		panel: limit(
			'singleCallTimeout',
			'Single Call Timeout (Seconds)',
			'Limit for each model call and each tool call',
		),
	},
	/** Stop before the next model call once reported usage reaches this many tokens; 0 = no budget. */
	total_token_budget: {
		default: 0,
		check: check.integer(0),
		meaning:
			'stop before the next model call once usage (reported, or estimated where none was reported) reaches it; 0 = none → `token_budget`',
		panel: {
			...limit(
				'totalTokenBudget',
				'Token Budget',
				'Stop before the next model call once this many tokens were used (0 = no budget)',
			),
			budget: true,
		},
	},
	/** Stop before the next model call once the run's calls cost this many USD (catalogue or `prices`); 0 = no limit. */
	max_cost: {
		default: 0,
		check: check.decimal(0, MAX_COST_USD),
		meaning:
			"stop before the next model call once the run's calls cost this many USD (the bundled catalogue's " +
			'prices, or `prices`); 0 = none → `cost_limit`. A model or fallback without a price is refused ' +
			'before the first call',
		panel: {
			collection: 'limits',
			name: 'maxCost',
			displayName: 'Max Cost per Run (USD)',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 4 },
			description:
				"Stop before the next model call once this run's model calls cost this much, in USD, priced from the bundled model catalogue (0 = no limit)",
			since: 2,
			budget: true,
		},
	},
	/** Observations fed back to the model are cut to this many characters; 0 = no cut. */
	observation_max_len: {
		default: 2000,
		check: check.integer(0, 1_000_000),
		meaning:
			'characters of tool output fed back to the model, cut with a visible `… [cut N of M characters]` ' +
			'marker; 0 = no cut. (The design suggested 256; that cuts most HTTP responses to uselessness.)',
		panel: limit(
			'observationMaxLen',
			'Observation Max Length',
			'Tool output fed back to the model is cut to this many characters (0 = no cut)',
		),
	},
	/**
	 * Kept only so that existing configs stay valid: its one value, `final_answer`, is the field a
	 * synchronous caller reads, and nothing else reads this key.
	 */
	primary_output: {
		default: 'final_answer',
		check: check.oneOf(['final_answer']),
		meaning:
			'accepted for compatibility with older configs; its one value names the field a synchronous caller reads, and changes nothing',
	},
	/** Per-tool settings, e.g. `{ "http_request": { "allowed_domains": ["api.example.com"] } }`. */
	tool_settings: {
		default: {},
		check: check.settingsPerTool,
		meaning: "per-tool settings, checked against each tool's settings schema",
		panel: {
			collection: 'top',
			name: 'toolSettingsJson',
			displayName: 'Tool Settings (JSON)',
			type: 'json',
			builtByNode: true,
		},
	},
	/** How the provider's JSON output mode is used; the text protocol stays the contract either way. */
	json_mode: {
		default: 'json_object',
		check: check.oneOf(['json_object', 'json_schema', 'off']),
		meaning:
			'provider JSON output mode: `json_object` (any JSON object), `json_schema` (the protocol compiled ' +
			'into one output schema, see *Typed answers and the schema mode*), or `off`. When an endpoint ' +
			'rejects the schema, the run falls back to `json_object` once; when it rejects `response_format` ' +
			"altogether, it retries once without it; each says so in the trace step's `notices`",
		panel: {
			collection: 'options',
			name: 'jsonMode',
			displayName: 'JSON Output Mode',
			type: 'options',
			choices: [
				{
					name: 'JSON Object',
					value: 'json_object',
					description:
						"Ask for any JSON object (the provider's JSON mode); the parser checks each reply's shape",
				},
				{
					name: 'JSON Schema',
					value: 'json_schema',
					description:
						'Send the whole protocol as an output schema: the allowed tools with their arguments and the answer ' +
						'(Output Schema when set). Where the endpoint enforces it (OpenAI strict mode), no other tool can ' +
						'even be written. Falls back to JSON Object once if refused.',
				},
				{
					name: 'Off',
					value: 'off',
					description:
						'No JSON mode: the prompt and the repair turn alone (endpoints without JSON mode)',
				},
			],
		},
	},
	/** Few-shot examples in every call's system message (`always`) or only with a protocol repair turn (`on_error`). */
	prompt_examples: {
		default: 'on_error',
		check: check.oneOf(['on_error', 'always']),
		meaning:
			'the few-shot examples (a tool call and its answer, a corrected call, a direct answer): `on_error` ' +
			'sends them only with the repair turn after a reply that broke the protocol, `always` with every ' +
			"model call's system message (about 133 more prompt tokens per call (o200k_base); for models that " +
			'often stray from the JSON format).',
		panel: {
			collection: 'options',
			name: 'promptExamples',
			displayName: 'Examples in Prompt',
			type: 'options',
			choices: [
				{
					name: 'After a Format Error',
					value: 'on_error',
					description:
						'Send example replies only with the repair turn after a reply that is not one valid JSON object (fewest tokens)',
				},
				{
					name: 'Always',
					value: 'always',
					description:
						'Send example replies with every model call: for models that often stray from the JSON format',
				},
			],
		},
	},
	/** A budget shared by every run that names the same scope, per period, counted in a ledger (Redis for many processes). */
	shared_budget: {
		check: check.bySchema<SharedBudgetConfig>(
			check.SHARED_BUDGET_SCHEMA,
			'{"scope":"workflow-7","tokens":200000,"period_seconds":86400}',
		),
		meaning:
			'`{scope, tokens or cost, period_seconds}`: a budget every run of the scope draws on, in Redis → `budget_exhausted` (see *Safety*)',
		panelLabel: 'Limits → Shared Token Budget, Shared Budget Scope, Shared Budget Period (Seconds)',
	},
	/** Per model: USD per million tokens, overriding the catalogue (a model it does not know gets a price this way). */
	prices: {
		check: check.bySchema<PriceTable>(
			check.PRICES_SCHEMA,
			'{"gpt-4o-mini":{"input_per_million":0.15,"output_per_million":0.6}}',
		),
		meaning:
			'per model id, USD per million tokens: `{input_per_million, output_per_million, ' +
			'cached_input_per_million?, cache_write_per_million?}`; overrides the bundled catalogue for that ' +
			'model (see *Cost*)',
	},
	/**
	 * The final answer is a JSON value checked against this JSON Schema (a mismatch gets the repair turn, a
	 * second one ends the run `output_invalid`); the result then carries it as `final_output`. Absent = text.
	 */
	output_schema: {
		check: check.jsonSchema,
		meaning:
			'a JSON Schema the final answer must match (see *Typed answers and the schema mode*); absent = a text answer, exactly as before',
		panel: {
			collection: 'options',
			name: 'outputSchema',
			displayName: 'Output Schema',
			type: 'json',
			shownWith: 'Output Format → JSON Matching a Schema',
			builtByNode: true,
		},
	},
	...MEMORY_SETTINGS,
	...MCP_SETTINGS,
	...FILE_SETTINGS,
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
