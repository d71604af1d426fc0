// The words of the run's lifecycle hooks (issue #50): the points, what a hook sees there and what it may decide.
import type { ChatMessage } from '../../core/messages';
import type { HookPoint as TraceHookPoint } from '../../trace/types';

export type { GuardrailDecision } from '../../trace/types';

/** The hook points, in the order a run meets them (the names are a contract: workflows and the audit use them). */
export const HOOK_POINTS = [
	'before_run',
	'before_model',
	'after_model',
	'before_tool',
	'after_tool',
	'after_run',
	'on_failure',
] as const;
export type HookPoint = (typeof HOOK_POINTS)[number] & TraceHookPoint;

/** The library hook's method for each point. */
export const HOOK_METHODS = {
	before_run: 'beforeRun',
	before_model: 'beforeModel',
	after_model: 'afterModel',
	before_tool: 'beforeTool',
	after_tool: 'afterTool',
	after_run: 'afterRun',
	on_failure: 'onFailure',
} as const satisfies Record<HookPoint, string>;

/** What a hook sees: the point, the run and step, and the point's content. A copy: changing it changes nothing. */
export interface HookData {
	point: HookPoint;
	/** The run's key, when it has one (a durable run's `runKey`). */
	run_id?: string;
	/** The step (0 before the first model call). */
	step: number;
	/** before_run: the user's message. */
	input?: string;
	/** before_model: the messages this one model call sends (the protocol's system message first). */
	messages?: ChatMessage[];
	/** after_model: the model's reply as it came. */
	reply?: string;
	/** before_tool, after_tool: the call (its args validated against the tool's schema). */
	tool?: string;
	args?: Record<string, unknown>;
	/** after_tool: what the call returned, as the model would see it. */
	observation?: string;
	/** after_run: the final answer (text, or with output_schema the value that matched). */
	answer?: unknown;
	/** on_failure: how the run ended without an answer. */
	finish_reason?: string;
	stop_detail?: string;
}

/** A hook's decision; nothing (undefined) is `allow`. Which decisions and which field fit depends on the point. */
export interface HookDecision {
	decision: 'allow' | 'deny' | 'modify' | 'block';
	reason?: string;
	input?: string;
	messages?: ChatMessage[];
	args?: Record<string, unknown>;
	observation?: string;
	answer?: unknown;
}

type HookMethod = (data: HookData) => HookDecision | void | Promise<HookDecision | void>;

/**
 * A library hook (`runAgent({ hooks })`): any of the point methods. Hooks run in the order given, then the
 * built-in guardrails; the first `block` or `deny` ends the chain for that point.
 */
export interface AgentHook {
	/** How the trace, the audit and a block's detail name it (default `hook <n>`). */
	name?: string;
	beforeRun?: HookMethod;
	beforeModel?: HookMethod;
	afterModel?: HookMethod;
	beforeTool?: HookMethod;
	afterTool?: HookMethod;
	afterRun?: HookMethod;
	onFailure?: HookMethod;
}
