// What a run starts from: its input checked and split, and its ledger (a new conversation, or a paused run's).
import { parseMessages, type ChatMessage } from '../core/messages';
import { InputError } from '../core/input-error';
import type { AgentConfig } from '../settings/config';
import type { Tool } from '../tools/tool';
import type { RunFile } from '../files';
import type { RunLedger } from './base/run-ledger';
import { FailureStreak, RepeatedCalls } from './base/streaks';
import { reattachFiles } from './setup/input-files';
import { replayHistory, splitHistory } from './memory/memory';
import type { RunProgress } from './pause/paused-run';
import { buildConversation } from './protocol/prompt';

/**
 * Checks the run input and splits it into the history and the new user message (the one this run answers).
 * `messages` may be an array or a JSON string of one, as n8n expressions often produce text.
 */
export function normaliseInput(
	prompt: unknown,
	messages: unknown,
): { history: ChatMessage[]; newUserMessage: ChatMessage } {
	if (prompt !== undefined && prompt !== null && typeof prompt !== 'string') {
		throw new InputError(
			'prompt',
			`prompt must be text, but it was ${Array.isArray(prompt) ? 'an array' : typeof prompt}`,
		);
	}
	const promptText = typeof prompt === 'string' && prompt.trim() !== '' ? prompt : undefined;
	const history =
		messages === undefined || messages === null || messages === '' ? [] : parseMessages(messages);

	if (promptText !== undefined) {
		const newUserMessage: ChatMessage = { role: 'user', content: promptText };
		return { history: [...history, newUserMessage], newUserMessage };
	}
	if (history.length === 0) {
		throw new InputError(
			'prompt',
			"no input: set prompt to the user's request, or messages_json to the conversation (an array of {role, content})",
		);
	}
	const last = history[history.length - 1];
	if (last.role !== 'user') {
		throw new InputError(
			'messages_json',
			`messages_json must end with a user message (the request to answer), but it ends with a ${last.role} message; append the user's message or set prompt`,
		);
	}
	return { history, newUserMessage: last };
}

/**
 * What the people behind a run wrote, for tools that must not be steered by observations: the
 * instructions, the conversation's system text and every user turn. Assistant turns are left out: they
 * may repeat what a tool returned.
 */
export function trustedTextOf(
	history: readonly ChatMessage[],
	newUserMessage: ChatMessage,
	developerText?: string,
): string {
	const written = history
		.filter((message) => message.role !== 'assistant')
		.map((message) => message.content);
	return [developerText ?? '', ...written, newUserMessage.content].join('\n');
}

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
