// The settings of the protocol between the run, the model and the tools (tool settings, JSON output mode,
// examples, the answer's schema): rows of the settings table (settings.ts spreads them in), declared once here.
import * as check from './setting-checks';
import type { Setting } from './setting-types';

/** How replies are asked for and read, and what each tool is told. */
export const PROTOCOL_SETTINGS = {
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
} satisfies Record<string, Setting>;

/** The shape the final answer must have. */
export const ANSWER_SCHEMA_SETTINGS = {
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
} satisfies Record<string, Setting>;
