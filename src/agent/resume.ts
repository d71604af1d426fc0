import type { AgentResult } from '../trace/types';
import { RunStateError } from '../run-state/signed-state';
import type { UsedStates } from '../run-state/used-states';
import { configureRun } from './setup/configure-run';
import { USED_STATE_TTL_SECONDS, type ApprovalDecision } from './pause/paused-run';
import { openResumed } from './resumed-run';
import { AgentRun } from './run-agent';
import { takeFiles } from './setup/input-files';
import { DurableRun } from './pause/checkpoints';
import { checkRunOptions, RUN_AGENT_OPTIONS, type RunAgentOptions } from './base/run-options';
import type { OptionNames } from '../core/known-options';
import { withMcpServers } from './setup/configure-run';
import { checkHooks } from './hooks';
import type { PlanDecision } from './plan';

/** `files`: the files the paused run held, given again (its state keeps only their references; matched by SHA-256). */
export interface ResumeAgentOptions extends Omit<RunAgentOptions, 'prompt' | 'messages'> {
	/** The `run_state` of the output that ended `awaiting_approval`, unchanged (the object, or its JSON text). */
	runState: unknown;
	/** A person's decision on the paused call(s), or on the paused plan (plan mode with approve_plan). */
	decision: ApprovalDecision | PlanDecision;
	/**
	 * Where used states are kept, so one cannot be resumed twice: RedisUsedStates across processes and n8n
	 * workers. Without it, nothing stops a state from being replayed; say so to whoever runs it.
	 */
	usedStates?: UsedStates;
}

const { prompt: _prompt, messages: _messages, ...RUN_OPTIONS_KEPT } = RUN_AGENT_OPTIONS;

/** resumeAgent's option names: runAgent's but the request (the state holds it), and the resume's own. */
export const RESUME_AGENT_OPTIONS = {
	...RUN_OPTIONS_KEPT,
	runState: true,
	decision: true,
	usedStates: true,
} satisfies OptionNames<ResumeAgentOptions>;

/**
 * Continues a run that paused for approval: the state is checked (size, signature, age, config, sealed
 * part, one-time use), then the person's decision is the paused step's outcome — `approve` runs the pending
 * call exactly once, as the model asked for it (the state's sealed part holds its arguments unredacted),
 * `deny` tells the model it was refused and why, `edit` runs it with the new arguments, checked like any
 * call — and the loop goes on with the same conversation, trace (steps numbered on), counters and token
 * usage; the run timeout starts again. Works on another model than the one the run paused on. With the
 * run's `runKey` (a durable run), the resumed run is checkpointed under it, and a retry of the resume goes on
 * from its last completed step, or gets its result, instead of using the state a second time.
 */
export const resumeAgent = async (given: ResumeAgentOptions): Promise<AgentResult> => {
	// Before the state is opened or anything connected: an unknown option is a typo, not a no-op.
	checkRunOptions('resumeAgent', given, RESUME_AGENT_OPTIONS);
	if (given.hooks !== undefined) checkHooks(given.hooks);
	return withMcpServers(given, resumeWithTools);
};

async function resumeWithTools(options: ResumeAgentOptions): Promise<AgentResult> {
	const { config, allowed } = configureRun(options);
	// The decision is checked (and applied to a plan) before the state is used up, so a typo can be fixed.
	const { id, paused, decision } = openResumed(options, config, allowed);
	// The state holds its files by reference: the same files given again go back to the model (matched by hash).
	const taken = takeFiles(options, config);
	// A durable run's key may already hold this resume's own progress or result: a retry of the resume gets that.
	const durable = await DurableRun.open(options, config, paused.new_user_message);
	const { finished, resumed } = durable?.found ?? {};
	if (finished && !pausedBy(finished, id)) return finished;
	if (resumed)
		return new AgentRun(
			options,
			config,
			allowed,
			[],
			paused.new_user_message,
			resumed,
			durable,
			taken,
		).run();
	if (options.usedStates && !(await options.usedStates.markUsed(id, USED_STATE_TTL_SECONDS))) {
		throw new RunStateError(
			'run_state was already used to resume this run; a paused run resumes once',
		);
	}
	return new AgentRun(
		options,
		config,
		allowed,
		[],
		paused.new_user_message,
		{ paused, decision },
		durable,
		taken,
	).run();
}

/** Whether a durable run's kept result is the pause of the state `id` (not yet resumed), rather than what came of resuming it. */
function pausedBy(result: AgentResult, id: string): boolean {
	return (
		result.finish_reason === 'awaiting_approval' &&
		(result.run_state as { payload?: { id?: unknown } } | undefined)?.payload?.id === id
	);
}
