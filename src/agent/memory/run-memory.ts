// A run's history before its first step (issue #31): fitted to its token budget, compacted when it must be, and what the output says about it.
import type { ChatMessage } from '../../core/messages';
import { fitHistory, historyBudget, type CompactionRun } from './compaction';
import { rememberedToolResults, type MemoryMessage } from './memory';
import { protocolAssistantMessage } from '../protocol/prompt';
import type { RunMemoryReport, TraceStep } from '../../trace/types';

/**
 * What the run keeps of its history's fitting: the output's `memory` report, with the summary message written
 * (also the first of `messages`, for the store).
 */
export type RunMemory = Omit<RunMemoryReport, 'summary'> & { summary?: MemoryMessage };

/**
 * Fits the conversation's history (everything between the system message and the new question) into its
 * budget: the conversation is rebuilt in place from the plan. A run with no history, or with history_fit
 * "off", is left as it is.
 */
export async function fitRunHistory(
	run: CompactionRun & { conversation: ChatMessage[]; provider: string },
	history: readonly MemoryMessage[],
): Promise<RunMemory | undefined> {
	const earlier = history.slice(0, -1);
	if (run.config.history_fit === 'off' || !earlier.some((message) => message.role !== 'system'))
		return undefined;
	const question = history[history.length - 1];
	// What every call sends beside the history: the system message (conversation[0]) and the question.
	const { window, source, budget } = historyBudget(run.config, run.provider, [
		run.conversation[0],
		question,
	]);
	const { plan, summary, notices } = await fitHistory(run, earlier, { budget, window });
	const turns = plan.history
		.filter((message) => message.role !== 'system')
		.map((message) =>
			message.role === 'assistant'
				? { role: message.role, content: protocolAssistantMessage(message.content) }
				: message,
		);
	run.conversation.splice(1, run.conversation.length - 1, ...turns, {
		role: 'user',
		content: question.content,
		...(question.files ? { files: question.files } : {}),
	});
	return {
		context_window: window,
		context_window_from: source,
		budget_tokens: budget,
		history_tokens: plan.tokens,
		kept_turns: plan.kept,
		left_out_turns: plan.dropped,
		...(summary ? { summary } : {}),
		...(notices.length ? { notices } : {}),
	};
}

/** This run's tool calls and what they returned, for the answer in `messages`: a store keeps them with the turn (redacted with the output). */
export function runToolResults(
	trace: readonly TraceStep[],
): NonNullable<MemoryMessage['tool_results']> {
	const results = trace.flatMap((entry) => {
		if (entry.step <= 0) return [];
		// A batch ("actions"): each call that came back with an observation or an error, in call order.
		const calls =
			entry.calls ??
			(entry.action
				? [{ ...entry.action, observation: entry.observation, error: entry.error }]
				: []);
		return calls.flatMap((call) =>
			call.observation !== undefined || call.error
				? [
						{
							step: entry.step,
							tool: call.tool,
							args: call.args,
							observation: call.observation ?? '',
							...(call.error && call.observation === undefined
								? { error: call.error.message }
								: {}),
						},
					]
				: [],
		);
	});
	return rememberedToolResults(results);
}
