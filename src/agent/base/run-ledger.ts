// The run's own record as it goes: what a checkpoint or a paused state keeps, lent to the rooms that add to it.
import type { ChatMessage } from '../../core/messages';
import type { TokenUsage } from '../../core/usage';
import type { ToolUsage, TraceStep } from '../../trace/types';
import type { FailureStreak, RepeatedCalls } from './streaks';
import type { PlanRun } from './plan-run';

/**
 * What a run has done so far: the conversation the model sees, the trace, the tokens and tools used, the
 * calls counted against max_tool_calls, the loop breaker's and the failure streak's memory, and what the
 * user and the workflow wrote. One value, owned by the run and passed down to the rooms that add to it
 * (the call path, the checkpoints); none of them calls back into the loop.
 */
export interface RunLedger {
	readonly conversation: ChatMessage[];
	readonly newUserMessage: ChatMessage;
	readonly trace: TraceStep[];
	readonly usage: TokenUsage;
	readonly usedTools: Record<string, ToolUsage>;
	/** Calls counted against max_tool_calls. */
	toolCalls: number;
	readonly repeats: RepeatedCalls;
	readonly failures: FailureStreak;
	/** What the user and the workflow wrote (see ToolContext.trustedText). */
	readonly trustedText: string;
	/** The files the conversation holds, counted once when a tool first returns one (the caps on the next). */
	filesHeld?: FilesHeld;
	/** Plan mode (issue #51): the plan the run executes, once one was accepted. */
	plan?: PlanRun;
}

/** How many files, of how many bytes, the run holds so far: its own and those tools returned. */
export interface FilesHeld {
	count: number;
	bytes: number;
}
