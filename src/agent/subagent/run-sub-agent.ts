// A sub-agent's call (issue #52): its own run inside what the parent has left, its answer as the parent's observation,
// its tokens, tool calls and cost added to the parent's, its steps under the parent's call.
import type { AgentConfig } from '../../settings/config';
import { DEFAULT_CONFIG } from '../../settings/config';
import { roundCost } from '../../budget/model-catalogue';
import type { Tool } from '../../tools/tool';
import type { Redactor } from '../../trace/redact';
import type { AgentResult, SubRun } from '../../trace/types';
import type { TokenUsage } from '../../core/usage';
import type { AgentEventListener } from '../base/events';
import type { RunAgentOptions } from '../base/run-options';
import type { RunLedger } from '../base/run-ledger';
import { subAgentAudit } from '../../audit/parent-run';
import { subAgentOf } from './agent-tool';
import { startLog } from './call-log';
import { childConfig } from './configure-agents';
import { rememberedRun } from './remembered-run';

/** How deep a run is (0: the run a caller started) and the deepest its sub-agents may go; carried in the options. */
export interface AgentDepth {
	depth: number;
	maxDepth: number;
}

/** Where a run's depth travels: a symbol key, so it is no option a caller can give (nor one they could mistype). */
export const AGENT_DEPTH = Symbol.for('agent-core.agent-depth');

/** The depth a run's options carry: a run a caller started is depth 0. */
export const depthOf = (options: object): AgentDepth =>
	(options as { [AGENT_DEPTH]?: AgentDepth })[AGENT_DEPTH] ?? { depth: 0, maxDepth: Infinity };

/** Where a sub-agent's resume travels to its run: the state it paused with and the person's decision. */
export const AGENT_RESUME = Symbol.for('agent-core.agent-resume');

/** A sub-agent run resumed by its parent (see resumedRun): its signed state and the decision carried down. */
export interface ChildResume {
	runState: unknown;
	decision: unknown;
}

/**
 * A sub-agent that paused for a person (issue #52): its signed state, the exact config it ran with (its state is
 * bound to it), and what waits, as its own output said (`pending_action`, or `pending_plan`).
 */
export interface ChildPause {
	agent: string;
	run_state: unknown;
	config: Record<string, unknown> & { model: string };
	/** What the parent already counted of the sub-agent's run (its run goes on from there: only the rest is added). */
	counted: { usage: TokenUsage; toolCalls: number };
	pending_action?: Record<string, unknown> & { tool: string; args: Record<string, unknown> };
	pending_plan?: { steps: unknown[] };
}

/** What a sub-agent's call came to, as a tool's outcome is, with the sub-agent's run, or its pause. */
export type SubAgentOutcome =
	| { ok: true; observation: string; elapsedMs: number; subRun?: SubRun }
	| {
			ok: false;
			error: { type: 'tool_error'; message: string };
			elapsedMs: number;
			runAborted: false;
			subRun?: SubRun;
			/** The sub-agent waits for a person: the parent pauses with it, and resumes it with the decision. */
			paused?: ChildPause;
	  };

/** The parent run, as a sub-agent's call needs it: lent as values, and the one function that starts a run. */
export interface SubAgentParent {
	options: RunAgentOptions;
	config: AgentConfig;
	ledger: RunLedger;
	redactor: Redactor;
	runSignal: AbortSignal;
	/** When the parent's timeout ends (performance.now()). */
	deadline: number;
	/** What the parent's model calls (its sub-agents' included) cost so far, USD. */
	spent: () => number;
	/** The parent's run id (its audit row's), decided when its run started: a sub-agent's row names it. */
	runId: string;
	/** runAgent: a sub-agent's run is a run, started with the options built here. */
	start: (options: RunAgentOptions) => Promise<AgentResult>;
}

/**
 * Runs the sub-agent `tool` on `task`: not at all past max_agent_depth (the smaller of every level's), or when the
 * parent has no tokens, cost or time left; otherwise as a run of its own on the parent's model client (unless it has
 * its own), with its config's limits narrowed to what the parent has left, the parent's signal (a cancelled or timed
 * out parent stops it), secrets, signing key and shared budget ledger. Its tokens and tool calls are added to the
 * parent's ledger at once; its cost reaches the parent's through the returned run (see runCost).
 */
export async function runSubAgent(
	parent: SubAgentParent,
	tool: Tool,
	task: string,
	resume?: { paused: ChildPause; decision: unknown },
	call?: number, // the call's number in a batch (1-based); absent for one action
): Promise<SubAgentOutcome> {
	// The host's log of the call (SubAgentSpec.onCall): started however the call goes, ended with what it came to.
	const log = startLog(subAgentOf(tool)!, task);
	try {
		const outcome = await runCall(parent, tool, task, resume, call);
		// What the parent reads: the answer (redacted, as its observation is), or the error; a pause is no failure.
		if (outcome.ok) log.end({ response: parent.redactor.text(outcome.observation) });
		else if (outcome.paused) log.end({ response: outcome.error.message });
		else log.end({ error: outcome.error.message });
		return outcome;
	} catch (error) {
		log.end({ error: parent.redactor.text((error as Error)?.message ?? String(error)) });
		throw error;
	}
}

/** runSubAgent's call, unlogged. */
async function runCall(
	parent: SubAgentParent,
	tool: Tool,
	task: string,
	resume: { paused: ChildPause; decision: unknown } | undefined,
	call: number | undefined,
): Promise<SubAgentOutcome> {
	const spec = subAgentOf(tool)!;
	const started = performance.now();
	const failed = (message: string, subRun?: SubRun): SubAgentOutcome => ({
		ok: false,
		error: { type: 'tool_error', message },
		elapsedMs: performance.now() - started,
		runAborted: false,
		...(subRun ? { subRun } : {}),
	});
	const { depth: parentDepth, maxDepth: above } = depthOf(parent.options);
	const depth = parentDepth + 1;
	const maxDepth = Math.min(above, parent.config.max_agent_depth);
	if (depth > maxDepth)
		return failed(
			`${spec.name} was not run: it would run ${depth} levels below the run that started it, past max_agent_depth (${maxDepth})`,
		);
	// A resumed sub-agent runs with the exact config its state was signed for (its time starts again).
	const limits = resume
		? { config: resume.paused.config }
		: childLimits(childConfig(parent.config, spec), parent);
	if ('problem' in limits) return failed(`${spec.name} was not run: ${limits.problem}`);
	const { options } = parent;
	const fallbackModel = spec.model ? spec.fallbackModel : options.fallbackModel;
	const child: RunAgentOptions & { [AGENT_DEPTH]: AgentDepth } = {
		model: spec.model ?? options.model,
		...(fallbackModel ? { fallbackModel } : {}),
		config: limits.config,
		...(resume ? {} : { prompt: task }),
		...(spec.system ? { developerText: spec.system } : {}),
		...((spec.tools ?? options.extraTools) ? { extraTools: spec.tools ?? options.extraTools } : {}),
		signal: parent.runSignal,
		...(options.secrets ? { secrets: options.secrets } : {}),
		...(options.stateSecret ? { stateSecret: options.stateSecret } : {}),
		...(options.budgetLedger ? { budgetLedger: options.budgetLedger } : {}),
		...(options.onEvent ? { onEvent: callEvents(options.onEvent, spec.name, parent) } : {}),
		// An audited parent's sub-agent writes its own row, naming the parent's run and call (issue #52).
		...(options.audit ? subAgentAudit(options.audit, parent.runId, parent.ledger.trace, call) : {}),
		[AGENT_DEPTH]: { depth, maxDepth },
		...(resume
			? { [AGENT_RESUME]: { runState: resume.paused.run_state, decision: resume.decision } }
			: {}),
	};
	// With a conversation of its own, a new call starts from it (a resumed one from its state) and saves once it ended.
	let remembered: Awaited<ReturnType<typeof rememberedRun>>;
	try {
		remembered = await rememberedRun(
			spec.memory,
			task,
			(history) => parent.start(history ? { ...child, messages: history } : child),
			{ resumed: resume !== undefined },
		);
	} catch (error) {
		return failed(`${spec.name} could not run: ${parent.redactor.text((error as Error).message)}`);
	}
	const { result } = remembered;
	addToParent(parent.ledger, result, resume?.paused.counted);
	const unsaved = remembered.unsaved && parent.redactor.text(remembered.unsaved.message);
	const subRun: SubRun = {
		agent: spec.name,
		finish_reason: result.finish_reason,
		...(result.stop_detail ? { stop_detail: result.stop_detail } : {}),
		steps: result.trace,
		usage: result.usage,
		cost: result.cost,
		cost_details: result.cost_details,
		trace_digest: result.trace_digest,
		depth,
		...(result.audit ? { run_id: result.audit.run_id } : {}),
	};
	if (unsaved !== undefined)
		return failed(
			`${spec.name} ran, but its memory could not save this call's turn: ${unsaved}`,
			subRun,
		);
	if (result.finish_reason === 'awaiting_approval' && result.run_state !== undefined) {
		const paused: ChildPause = {
			agent: spec.name,
			run_state: result.run_state,
			config: limits.config,
			counted: { usage: { ...result.usage }, toolCalls: toolCallsOf(result) },
			...(result.pending_action ? { pending_action: result.pending_action } : {}),
			...(result.pending_plan ? { pending_plan: result.pending_plan } : {}),
		};
		return {
			...failed(`${spec.name} waits for a person's approval`, subRun),
			paused,
		} as SubAgentOutcome;
	}
	if (result.finish_reason !== 'final') {
		const why = result.stop_detail ? `: ${result.stop_detail}` : '';
		return failed(
			`${spec.name} did not answer (finish_reason ${result.finish_reason})${why}`,
			subRun,
		);
	}
	const elapsedMs = performance.now() - started;
	return { ok: true, observation: result.final_answer, elapsedMs, subRun };
}

/** The sub-agent's tokens and tool calls, counted in the parent's ledger (less what was counted before a pause): one budget. */
function addToParent(
	ledger: RunLedger,
	result: AgentResult,
	counted?: ChildPause['counted'],
): void {
	const before = counted?.usage;
	ledger.usage.prompt_tokens += result.usage.prompt_tokens - (before?.prompt_tokens ?? 0);
	ledger.usage.completion_tokens +=
		result.usage.completion_tokens - (before?.completion_tokens ?? 0);
	ledger.usage.total_tokens += result.usage.total_tokens - (before?.total_tokens ?? 0);
	ledger.toolCalls += toolCallsOf(result) - (counted?.toolCalls ?? 0);
}

const toolCallsOf = (result: AgentResult) =>
	Object.values(result.used_tools).reduce((sum, used) => sum + used.count, 0);

/**
 * The sub-agent's config with each limit the smaller of its own and what the parent has left: total_token_budget and
 * max_cost (0 is "none", so a parent with a limit gives its remainder), timeout (seconds to the parent's deadline) and
 * max_tool_calls. A parent with nothing left of a limit starts no sub-agent: a problem naming the limit.
 */
export function childLimits(
	config: Record<string, unknown>,
	parent: Pick<SubAgentParent, 'config' | 'ledger' | 'deadline' | 'spent'>,
): { config: Record<string, unknown> & { model: string } } | { problem: string } {
	const own = <Key extends keyof typeof DEFAULT_CONFIG>(key: Key) =>
		(config[key] ?? DEFAULT_CONFIG[key]) as number;
	const smaller = (mine: number, left: number) => (mine > 0 ? Math.min(mine, left) : left);
	const limits: Record<string, number> = {};
	const { total_token_budget, max_cost, max_tool_calls } = parent.config;
	if (total_token_budget > 0) {
		const left = total_token_budget - parent.ledger.usage.total_tokens;
		if (left <= 0)
			return { problem: `the run's total_token_budget (${total_token_budget}) is used up` };
		limits.total_token_budget = smaller(own('total_token_budget'), left);
	}
	if (max_cost > 0) {
		// To the millionth, as costs are reported: 0.05 - 0.02 would name 0.030000000000000002 USD to the child.
		const left = roundCost(max_cost - parent.spent());
		if (left <= 0) return { problem: `the run's max_cost (${max_cost} USD) is spent` };
		limits.max_cost = smaller(own('max_cost'), left);
	}
	const seconds = (parent.deadline - performance.now()) / 1000;
	if (seconds < 0.001) return { problem: "the run's timeout has passed" };
	limits.timeout = Math.min(own('timeout'), seconds);
	limits.max_tool_calls = Math.min(own('max_tool_calls'), max_tool_calls - parent.ledger.toolCalls);
	return { config: { ...config, ...limits } as Record<string, unknown> & { model: string } };
}

/**
 * What the parent's listener hears of a sub-agent's run: its calls, as they start and end, named by their path
 * (`researcher › lookup`, deeper levels adding theirs) at the parent's step. Its model turns, answer text and ending
 * stay inside: its answer reaches the parent as the call's observation, which the parent's own events report.
 */
function callEvents(
	listener: AgentEventListener,
	agent: string,
	parent: Pick<SubAgentParent, 'ledger'>,
): AgentEventListener {
	const step = parent.ledger.trace[parent.ledger.trace.length - 1]?.step ?? 0;
	return (event) => {
		if (event.type === 'action' || event.type === 'observation')
			listener({ ...event, step, tool: `${agent} › ${event.tool}` });
	};
}
