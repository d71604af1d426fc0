// The run configuration: its type, defaults and checks derived from the settings table, resolveConfig, and tool_settings' engine key `timeout`.
import { ConfigError } from '../core/config-error';
import type { ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/tool';
import { validateAgainst } from '../validation/validate';
import { type Check, isPlainObject, nonFiniteNumberProblem } from './setting-checks';
import { type ConfigOfSettings, type KeyWithValue, settingEntries } from './settings';

export { REASONING_EFFORTS } from './settings';
export { ConfigError };

/**
 * The run configuration: model, tools, limits and prompt settings, plus `tool_settings`, `json_mode` and
 * `prompt_examples`. Declared by the settings table (./settings.ts): each key's type is what its check accepts.
 */
export interface AgentConfig extends ConfigOfSettings {}

/** How the provider's JSON output mode is used; the text protocol stays the contract either way. */
export type JsonMode = AgentConfig['json_mode'];

/** The defaults of every key that has one, from the settings table. */
export const DEFAULT_CONFIG = Object.fromEntries(
	settingEntries().flatMap(([key, setting]) =>
		'default' in setting ? [[key, setting.default]] : [],
	),
) as Omit<Pick<AgentConfig, KeyWithValue>, 'model'>;

/** Keys that may be absent (the provider's own default then applies): neither a default nor required. */
const OPTIONAL_KEYS = new Set<string>(
	settingEntries().flatMap(([key, setting]) =>
		'default' in setting || setting.required ? [] : [key],
	),
);

const CHECKS = Object.fromEntries(
	settingEntries().map(([key, setting]) => [key, setting.check]),
) as Record<keyof AgentConfig, Check>;

/**
 * Checks a raw configuration (from a JSON file, the node panel or code), fills defaults and returns it.
 * Throws `ConfigError` naming the first offending key. Tools named in `allowed_tools` and `tool_settings`
 * must exist in the registry, and each tool's settings must match its settings schema.
 */
export function resolveConfig(raw: unknown, registry: ToolRegistry): AgentConfig {
	if (!isPlainObject(raw))
		throw new ConfigError(
			'config',
			'config must be a JSON object',
			'Write the config as one JSON object of settings, e.g. {"model":"gpt-4o-mini","max_steps":5}.',
		);
	const input = { ...raw };
	if (input.json_mode === true) input.json_mode = 'json_object';
	if (input.json_mode === false) input.json_mode = 'off';

	for (const key of Object.keys(input)) {
		// Own properties only: "constructor", "toString" or "__proto__" are unknown keys like any other.
		if (!Object.prototype.hasOwnProperty.call(CHECKS, key)) {
			throw new ConfigError(
				key,
				`unknown config key "${key}" (known keys: ${Object.keys(CHECKS).join(', ')})`,
			);
		}
	}
	if (input.model === undefined)
		throw new ConfigError('model', 'model is required (the model id, e.g. "gpt-4o-mini")');

	// A copy of the defaults: a caller that changes its config's allowed_tools or tool_settings must not change every later run's.
	const config = { ...structuredClone(DEFAULT_CONFIG), ...input } as AgentConfig;
	for (const [key, check] of Object.entries(CHECKS)) {
		// A default left in place is not checked: each passes its own check (test/settings/setting-defaults.test.ts).
		if (!Object.hasOwn(input, key)) continue;
		const value = config[key as keyof AgentConfig];
		// An absent optional key, or null / "" from an empty panel field, means the provider's default.
		if (OPTIONAL_KEYS.has(key) && (value === undefined || value === null || value === '')) {
			delete config[key as keyof AgentConfig];
			continue;
		}
		// Every number first, nested ones included: a NaN or Infinity must not reach a check that compares it.
		const problem = nonFiniteNumberProblem(value, key, check) ?? check(value, key);
		if (problem) throw new ConfigError(key, problem);
	}

	// A cost limit's prices (catalogue or `prices`) are checked per model that may answer, by Spending (shared-budget.ts).
	const unallowed = config.approval_required.find((name) => !config.allowed_tools.includes(name));
	if (unallowed !== undefined) {
		throw new ConfigError(
			'approval_required',
			`approval_required names "${unallowed}", which is not in allowed_tools; list only tools the agent may call`,
		);
	}
	const available = registry.names();
	for (const name of config.allowed_tools) {
		if (!registry.get(name)) {
			throw new ConfigError(
				'allowed_tools',
				`allowed_tools names unknown tool "${name}" (available: ${available.join(', ') || 'none'})`,
			);
		}
	}
	for (const [name, settings] of Object.entries(config.tool_settings)) {
		const tool = registry.get(name);
		if (!tool) {
			throw new ConfigError(
				'tool_settings',
				`tool_settings names unknown tool "${name}" (available: ${available.join(', ') || 'none'})`,
			);
		}
		checkToolTimeout(name, settings);
		const problems = toolSettingsProblems(tool, settings);
		if (problems.length > 0) throw new ConfigError(`tool_settings.${name}`, problems.join('; '));
	}
	return config;
}

/**
 * What is wrong with one tool's settings entry, as `tool_settings.<tool>.<path>: problem` lines: its schema's
 * issues, else the problems the schema cannot express (the tool's own checks). Empty when it is fine. The
 * engine's `timeout` key is checked apart (checkToolTimeout), never by the tool.
 */
export function toolSettingsProblems(tool: Tool, given: unknown): string[] {
	const root = `tool_settings.${tool.name}`;
	// The engine's own `timeout` (checkToolTimeout) is not the tool's to check.
	const settings = isPlainObject(given) ? ownToolSettings(given) : given;
	if (tool.settingsSchema) {
		const result = validateAgainst(tool.settingsSchema, settings, root);
		if (!result.ok) return result.issues;
	}
	const problems = tool.checkSettings?.(settings as Record<string, unknown>) ?? [];
	return problems.map((problem) => `${root}.${problem}`);
}

/**
 * The key in a tool's settings that the engine reads itself, `tool_settings.<tool>.timeout` (issue #42): one
 * tool's time limit in seconds, overriding single_call_timeout for it. The tool never sees it.
 */
export const TOOL_TIMEOUT_KEY = 'timeout';
const TIMEOUT_MINIMUM = 0.001;
const TIMEOUT_MAXIMUM = 3600;

/** A tool's settings without the engine's `timeout`: what the tool's own schema checks and the tool receives. */
export function ownToolSettings(settings: Record<string, unknown>): Record<string, unknown> {
	if (!(TOOL_TIMEOUT_KEY in settings)) return settings;
	const { [TOOL_TIMEOUT_KEY]: _timeout, ...own } = settings;
	return own;
}

/** Refuses a `timeout` that is not a number of seconds in range, naming the field and the fix. */
export function checkToolTimeout(name: string, settings: Record<string, unknown>): void {
	if (!(TOOL_TIMEOUT_KEY in settings)) return;
	const value = settings[TOOL_TIMEOUT_KEY];
	if (
		typeof value === 'number' &&
		Number.isFinite(value) &&
		value >= TIMEOUT_MINIMUM &&
		value <= TIMEOUT_MAXIMUM
	)
		return;
	const field = `tool_settings.${name}.${TOOL_TIMEOUT_KEY}`;
	const given = JSON.stringify(value)?.slice(0, 40) ?? String(value);
	throw new ConfigError(
		field,
		`${field} must be a number of seconds from ${TIMEOUT_MINIMUM} to ${TIMEOUT_MAXIMUM} (it replaces ` +
			`single_call_timeout for ${name}), but it was ${given}`,
	);
}

/** The time limit of one call to `name`, in seconds: its own `timeout`, else single_call_timeout. */
export function toolTimeout(
	settings: Record<string, unknown> | undefined,
	singleCallTimeout: number,
): number {
	const own = settings?.[TOOL_TIMEOUT_KEY];
	return typeof own === 'number' ? own : singleCallTimeout;
}
