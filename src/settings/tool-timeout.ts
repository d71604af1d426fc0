// `tool_settings.<tool>.timeout` (issue #42): one tool's time limit in seconds, overriding single_call_timeout for it.
import { ConfigError } from '../core/config-error';

/** The key in a tool's settings that the engine reads itself; the tool never sees it. */
export const TOOL_TIMEOUT_KEY = 'timeout';
const MINIMUM = 0.001;
const MAXIMUM = 3600;

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
	if (typeof value === 'number' && Number.isFinite(value) && value >= MINIMUM && value <= MAXIMUM)
		return;
	const field = `tool_settings.${name}.${TOOL_TIMEOUT_KEY}`;
	const given = JSON.stringify(value)?.slice(0, 40) ?? String(value);
	throw new ConfigError(
		field,
		`${field} must be a number of seconds from ${MINIMUM} to ${MAXIMUM} (it replaces ` +
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
