// A run's ledger as it starts: a fresh conversation, or the one a paused run or a checkpoint kept, with its counters.
import type { ChatMessage } from '../core/messages';
import type { AgentConfig } from '../settings/config';
import type { Tool } from '../tools/tool';
import type { RunFile } from '../files';
import type { RunLedger } from './base/run-ledger';
import { FailureStreak, RepeatedCalls } from './base/streaks';
import { trustedTextOf } from './setup/input';
import { reattachFiles } from './setup/input-files';
import { replayHistory, splitHistory } from './memory/memory';
import type { RunProgress } from './pause/paused-run';
import { buildConversation } from './protocol/prompt';

/**
 * The ledger a run starts with: what `paused` (a paused run's state, a durable run's checkpoint) kept, or a
 * new conversation — the protocol's system message, the history (remembered text back inside the observation
 * wrapper), the user's message — with every counter at zero.
 */
export function newLedger(
	start: {
		config: AgentConfig;
		tools: readonly Tool[];
		history: ChatMessage[];
		newUserMessage: ChatMessage;
		developerText?: string;
		/** The files the caller gave: a restored conversation holds references, these give back their bytes. */
		files: readonly RunFile[];
	},
	paused?: RunProgress,
): RunLedger {
	const { config, history, newUserMessage, developerText } = start;
	const conversation =
		paused?.conversation ??
		buildConversation(
			[...start.tools],
			replayHistory(splitHistory(history)),
			developerText,
			config.prompt_examples,
			config.output_schema,
			config.max_parallel_calls,
			config.mode === 'plan' ? { maxPlanSteps: config.max_plan_steps } : undefined,
		);
	if (paused) reattachFiles(conversation, start.files);
	return {
		conversation,
		newUserMessage,
		trace: [...(paused?.trace ?? [])],
		usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, ...paused?.usage },
		usedTools: { ...paused?.used_tools },
		toolCalls: paused?.tool_calls ?? 0,
		repeats: new RepeatedCalls(config.loop_limit, paused?.repeats),
		failures: new FailureStreak(paused?.failures),
		trustedText: paused?.trusted_text ?? trustedTextOf(history, newUserMessage, developerText),
		...(paused?.plan ? { plan: paused.plan } : {}),
	};
}
