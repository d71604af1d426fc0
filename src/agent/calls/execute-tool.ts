// One tool call's execution: checked against the whitelist and its schema, run under its own settings and timeout, its result read for the model.
import { TruncatedText, WithFiles, type Tool } from '../../tools/tool';
import type { FileInput } from '../../files';
import { validateAgainst } from '../../validation/validate';
import { secretsInSettings, type Redactor } from '../../trace/redact';
import type { StepError, SubRun, ToolUsage } from '../../trace/types';
import { callLimit, describeAbort } from '../base/run-clock';
import { truncateObservation } from '../../core/messages';
import {
	type AgentConfig,
	ownToolSettings,
	TOOL_TIMEOUT_KEY,
	toolTimeout,
} from '../../settings/config';

/** A tool's error message fed back to the model is cut to this many characters. */
const MAX_TOOL_ERROR_LENGTH = 2000;

/** What one requested tool call came to; `runAborted` says the whole run was stopped while it ran. */
/** What a call came to; a sub-agent's call (issue #52) also carries the sub-agent's run. */
export type ToolOutcome =
	| {
			ok: true;
			observation: string;
			elapsedMs: number;
			files?: readonly FileInput[];
			subRun?: SubRun;
	  }
	| { ok: false; error: StepError; elapsedMs: number; runAborted: boolean; subRun?: SubRun };

export interface ToolCallRequest {
	tools: ReadonlyMap<string, Tool>;
	name: string;
	args: Record<string, unknown>;
	settings: Record<string, unknown>;
	runSignal: AbortSignal;
	singleCallTimeout: number;
	/** The setting that gave the timeout, for the error (`tool_settings.<tool>.timeout`); absent: single_call_timeout. */
	timeoutSetting?: string;
	observationMaxLength: number;
	sessionId?: string;
	/** The user's turns and the instructions (see ToolContext.trustedText). */
	trustedText?: string;
	/** The run's redactor: applied to observations before they are cut, so no cut leaves a secret's first characters. */
	redactor: Redactor;
	/** A durable run's key for this call (see ToolContext.idempotencyKey). */
	idempotencyKey?: string;
}

/**
 * The secrets in a run's tool settings: what each allowed tool declares (`secretsIn`), and what any
 * tool's settings hold in fixed headers or secret-named fields.
 */
export function toolSecrets(
	tools: ReadonlyMap<string, Tool>,
	toolSettings: Record<string, Record<string, unknown>>,
): string[] {
	const declared = [...tools.values()].flatMap((tool) =>
		tool.secretsIn && Object.hasOwn(toolSettings, tool.name)
			? tool.secretsIn(toolSettings[tool.name])
			: [],
	);
	return [...declared, ...secretsInSettings(toolSettings)];
}

/** Checks the whitelist and the args schema; returns an error for the model, or the tool to run. */
export function checkToolCall(
	tools: ReadonlyMap<string, Tool>,
	name: string,
	args: Record<string, unknown>,
): { tool: Tool } | { error: StepError } {
	const tool = tools.get(name);
	if (!tool) {
		const available = [...tools.keys()];
		return {
			error: {
				type: 'tool_not_allowed',
				message:
					`tool "${name}" is not available. ` +
					(available.length
						? `Available tools: ${available.join(', ')}.`
						: 'No tools are available; reply with a final answer.'),
			},
		};
	}
	const validation = validateAgainst(tool.parameters, args);
	if (!validation.ok) {
		return {
			error: {
				type: 'invalid_args',
				message: `${name} args are invalid: ${validation.issues.join('; ')}`,
			},
		};
	}
	return { tool };
}

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

/** Runs a checked tool under its own timeout and the run's signal; failures come back as outcomes, never thrown. */
export async function runTool(tool: Tool, request: ToolCallRequest): Promise<ToolOutcome> {
	const started = performance.now();
	const call = callLimit(request.runSignal, request.singleCallTimeout);
	try {
		const work = Promise.resolve().then(() =>
			tool.execute(request.args, {
				// Made when the tool reads it: most tools never do.
				get signal() {
					return call.signal;
				},
				settings: request.settings,
				sessionId: request.sessionId,
				trustedText: request.trustedText,
				...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
			}),
		);
		const result = await call.race(work);
		// An observation with files (see WithFiles): its text is read as any result, its files are the run's to check.
		const files = result instanceof WithFiles ? result.files : undefined;
		return {
			ok: true,
			observation: observationOf(result, request.redactor, request.observationMaxLength),
			elapsedMs: performance.now() - started,
			...(files?.length ? { files } : {}),
		};
	} catch (error) {
		const elapsedMs = performance.now() - started;
		if (request.runSignal.aborted) {
			return {
				ok: false,
				elapsedMs,
				runAborted: true,
				error: { type: 'timeout', message: describeAbort(request.runSignal.reason) },
			};
		}
		if (call.timedOut()) {
			return {
				ok: false,
				elapsedMs,
				runAborted: false,
				error: {
					type: 'tool_timeout',
					message: `${tool.name} did not finish within ${request.timeoutSetting ?? 'single_call_timeout'} (${request.singleCallTimeout} s)`,
				},
			};
		}
		return {
			ok: false,
			elapsedMs,
			runAborted: false,
			error: { type: 'tool_error', message: toolErrorOf(tool.name, error, request.redactor) },
		};
	} finally {
		call.dispose();
	}
}

/**
 * What the model reads of a tool's result: rendered, redacted, then cut to the observation length, in that
 * order, so that no cut leaves part of a secret that redaction would no longer recognise.
 */
export function observationOf(given: unknown, redactor: Redactor, maxLength: number): string {
	// An observation with files is read by its text; the files are the run's to check (see runTool).
	const result = given instanceof WithFiles ? given.observation : given;
	const redacted =
		result instanceof TruncatedText
			? redactor.textCutAtEnd(result.text)
			: redactor.text(renderResult(result));
	return truncateObservation(redacted, maxLength);
}

/** What the model reads of a tool's failure: named after the tool, redacted, then cut. */
export function toolErrorOf(toolName: string, error: unknown, redactor: Redactor): string {
	const message = error instanceof Error ? error.message : String(error);
	// Tools that already name themselves ("http_request refused: …") are not prefixed twice.
	const text = message.startsWith(toolName) ? message : `${toolName} failed: ${message}`;
	return truncateObservation(redactor.text(text), MAX_TOOL_ERROR_LENGTH);
}

function renderResult(result: unknown): string {
	if (typeof result === 'string') return result;
	if (result === undefined) return '(the tool returned nothing)';
	try {
		return JSON.stringify(result) ?? String(result);
	} catch {
		return String(result);
	}
}

/** One more run of `name` in the run's `used_tools`, taking `ms`, failed or not. */
export function countToolUse(
	usedTools: Record<string, ToolUsage>,
	name: string,
	ms: number,
	ok: boolean,
): void {
	const usage = (usedTools[name] ??= { count: 0, total_ms: 0, avg_ms: 0, failures: 0 });
	usage.count++;
	usage.total_ms += ms;
	usage.avg_ms = Math.round(usage.total_ms / usage.count);
	if (!ok) usage.failures++;
}
