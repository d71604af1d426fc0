// One checked tool call as the run makes it: the tool's own settings, its own timeout, the run's signal and redactor.
import {
	type AgentConfig,
	ownToolSettings,
	TOOL_TIMEOUT_KEY,
	toolTimeout,
} from '../../settings/config';
import type { Tool } from '../../tools/tool';
import type { Redactor } from '../../trace/redact';
import { runTool, type ToolOutcome } from './execute-tool';

/** What every call of a run shares. */
export interface ToolCallContext {
	tools: ReadonlyMap<string, Tool>;
	config: AgentConfig;
	redactor: Redactor;
	trustedText: string;
	sessionId?: string;
	runSignal: AbortSignal;
}

/**
 * Runs one checked call under its own timeout: `tool_settings.<tool>.timeout` when set, else the tool's own
 * (an MCP server's timeout), else single_call_timeout; the error names the one that applied. The tool receives
 * its settings without the engine's key.
 */
export function callTool(
	context: ToolCallContext,
	tool: Tool,
	name: string,
	args: Record<string, unknown>,
	idempotencyKey?: string,
): Promise<ToolOutcome> {
	const { config } = context;
	const settings = settingsOf(config, name);
	return runTool(tool, {
		tools: context.tools,
		name,
		args,
		redactor: context.redactor,
		trustedText: context.trustedText,
		sessionId: context.sessionId,
		runSignal: context.runSignal,
		settings: ownToolSettings(settings),
		...timeoutOf(tool, name, settings, config.single_call_timeout),
		observationMaxLength: config.observation_max_len,
		idempotencyKey,
	});
}

/** Why `tool` would refuse this call before running it (Tool.refusalBeforeRun), given its own settings; undefined when it would not. */
export function refusalBeforeRun(
	context: Pick<ToolCallContext, 'config' | 'trustedText'>,
	tool: Tool,
	name: string,
	args: Record<string, unknown>,
): string | undefined {
	if (!tool.refusalBeforeRun) return undefined;
	const settings = settingsOf(context.config, name);
	return tool.refusalBeforeRun(args, {
		settings: ownToolSettings(settings),
		trustedText: context.trustedText,
	});
}

/** The run's `tool_settings` entry of `name` (its own key only), or none. */
function settingsOf(config: AgentConfig, name: string): Record<string, unknown> {
	return Object.prototype.hasOwnProperty.call(config.tool_settings, name)
		? config.tool_settings[name]
		: {};
}

/** A call's time limit in seconds and, when it is not single_call_timeout, the setting that set it. */
function timeoutOf(
	tool: Tool,
	name: string,
	settings: Record<string, unknown>,
	singleCallTimeout: number,
): { singleCallTimeout: number; timeoutSetting?: string } {
	if (TOOL_TIMEOUT_KEY in settings)
		return {
			singleCallTimeout: toolTimeout(settings, singleCallTimeout),
			timeoutSetting: `tool_settings.${name}.timeout`,
		};
	if (tool.callTimeout)
		return {
			singleCallTimeout: tool.callTimeout.seconds,
			timeoutSetting: tool.callTimeout.setting,
		};
	return { singleCallTimeout };
}
