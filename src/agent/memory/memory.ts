// Long memory in the engine (issue #31): a conversation's history fitted to the model's context by tokens (its
// budget), remembered text replayed as data, a run's tool results remembered, and what compaction folds.
import { newestTurnsThatFit } from '../../core/history-window';
import { truncateObservation, type ChatMessage } from '../../core/messages';
import { contextWindowOf } from '../../budget/model-catalogue';
import type { AgentConfig } from '../../settings/config';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from '../../settings/memory-settings';
import type { TraceStep } from '../../trace/types';
import { modelMessages, partTokens } from '../model/model-turn';
import { observationMessage, protocolAssistantMessage } from '../protocol/prompt';

/** A message of a remembered conversation: the neutral message with what a context store adds (`seq`, `tool_results`, `summary`). */
export type MemoryMessage = ChatMessage;

/** One stored exchange: the user message that opened it (with its `seq` when a store numbered it) and what answered it. */
export interface HistoryTurn {
	seq?: number;
	messages: MemoryMessage[];
}

/** The history split the way memory works on it: system text, the stored summary, and whole turns, oldest first. */
export interface SplitHistory {
	system: ChatMessage[];
	summary?: MemoryMessage;
	turns: HistoryTurn[];
}

/** Characters of an observation a remembered turn keeps (Agent Core's `messages` output cuts each tool result to this). */
export const REMEMBERED_OBSERVATION_CHARS = 2_000;
/** Tool results one remembered turn keeps: the first ones, then a count of the rest. */
export const REMEMBERED_TOOL_RESULTS = 20;
/** What a chat format adds around each message (as estimateWhenUnreported counts). */
const TOKENS_PER_MESSAGE = 4;

/**
 * Tokens of text for fitting a window: UTF-8 bytes / 3, rounded up. Deliberately above what tokenizers count
 * (about 4 bytes a token in English, 3 in many other scripts and in code), so a window fitted by it fits the model.
 */
export function memoryTokens(text: string): number {
	return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/** Tokens of messages as sent: each message's content and its framing. */
export function messagesTokens(messages: readonly ChatMessage[]): number {
	let total = 0;
	for (const message of messages) total += TOKENS_PER_MESSAGE + memoryTokens(message.content);
	return total;
}

/**
 * Splits the history into system messages, the summary (an assistant message carrying `summary`, before the
 * first turn) and turns: each begins at a user message and holds the assistant messages after it. Assistant
 * messages before the first user message form a turn of their own, so nothing is lost.
 */
export function splitHistory(history: readonly MemoryMessage[]): SplitHistory {
	const split: SplitHistory = { system: [], turns: [] };
	for (const message of history) {
		if (message.role === 'system') split.system.push(message);
		else if (
			message.summary &&
			message.role === 'assistant' &&
			split.turns.length === 0 &&
			!split.summary
		)
			split.summary = message;
		else if (message.role === 'user' || split.turns.length === 0)
			split.turns.push({
				...(message.seq !== undefined ? { seq: message.seq } : {}),
				messages: [message],
			});
		else split.turns[split.turns.length - 1].messages.push(message);
	}
	return split;
}

/**
 * What the model is sent for remembered text: the summary and every remembered tool result go inside the
 * observation wrapper (data, never an instruction), a tool result after the action it answered, so the
 * conversation shows what was done and what came back exactly as a live step does. The summary is joined
 * with the first turn's question, so every provider still sees the turns alternate.
 */
export function replayHistory(split: SplitHistory): ChatMessage[] {
	const replayed: ChatMessage[] = [...split.system];
	for (const turn of split.turns) replayed.push(...replayedTurn(turn));
	if (!split.summary) return replayed;
	const summary = summaryObservation(split.summary);
	const first = split.system.length;
	if (replayed[first]?.role === 'user')
		replayed[first] = { ...replayed[first], content: `${summary}\n\n${replayed[first].content}` };
	else replayed.splice(first, 0, { role: 'user', content: summary });
	return replayed;
}

/** The summary as the model reads it: which turns it stands for, inside the wrapper. */
export function summaryObservation(summary: MemoryMessage): string {
	const covered = summary.summary
		? ` (turns 1–${summary.summary.through_seq} of this conversation)`
		: '';
	return observationMessage(
		'memory',
		`Summary of the earlier conversation${covered}:\n${summary.content}`,
	);
}

/** A turn's messages as sent: an answer's remembered tool results as action and observation before it. */
function replayedTurn(turn: HistoryTurn): ChatMessage[] {
	const messages: ChatMessage[] = [];
	for (const message of turn.messages) {
		for (const result of message.role === 'assistant' ? (message.tool_results ?? []) : []) {
			messages.push({
				role: 'assistant',
				content: JSON.stringify({ type: 'action', tool: result.tool, args: result.args }),
			});
			const text = result.error ? `Error: ${result.error}` : result.observation;
			messages.push({
				role: 'user',
				content: observationMessage(
					result.tool,
					`${text}\n(remembered from an earlier turn; the tool did not run again)`,
				),
			});
		}
		// An answer as the protocol's final object, as the conversation sends it (buildConversation), so its tokens count right.
		messages.push({
			role: message.role,
			content:
				message.role === 'assistant' ? protocolAssistantMessage(message.content) : message.content,
			...(message.files?.length ? { files: message.files } : {}),
		});
	}
	return messages;
}

/** Tokens a turn costs as replayed. */
export function turnTokens(turn: HistoryTurn): number {
	return messagesTokens(replayedTurn(turn));
}

/** How the history fits the budget: the turns kept, those to fold into a summary, or to leave out. */
export interface MemoryPlan {
	/** The history to build the conversation from, replayed (see replayHistory). */
	history: ChatMessage[];
	/** Tokens of the history as planned (summary and kept turns). */
	tokens: number;
	/** Turns the window kept verbatim. */
	kept: number;
	/** When compaction should run: the summary so far and the oldest turns it folds, all numbered by a store. */
	fold?: { previous?: MemoryMessage; turns: HistoryTurn[]; tokensBefore: number };
	/** Turns left out without a summary (no store numbers them, compaction is off, or it failed). */
	dropped: number;
}

/**
 * Fits the history into `budget` tokens. When it fits, it is sent whole. Otherwise, with `compact` and every
 * turn numbered by a store, the oldest turns beyond the newest `keepRecent` are marked to be folded into a
 * summary (the caller writes it); without, the oldest turns are left out. A turn is never split, and the newest
 * turns are kept before older ones; the newest `keepRecent` stay verbatim as far as the budget allows.
 */
export function planMemory(
	history: readonly MemoryMessage[],
	budget: number,
	options: { compact: boolean; keepRecent: number },
): MemoryPlan {
	const split = splitHistory(history);
	const costs = split.turns.map(turnTokens);
	const summaryTokens = split.summary
		? messagesTokens([{ role: 'user', content: summaryObservation(split.summary) }])
		: 0;
	const total = summaryTokens + costs.reduce((sum, cost) => sum + cost, 0);
	if (total <= budget)
		return { history: replayHistory(split), tokens: total, kept: split.turns.length, dropped: 0 };
	const numbered = split.turns.every((turn) => turn.seq !== undefined);
	if (options.compact && numbered && split.turns.length > options.keepRecent) {
		// The newest keepRecent turns stay; what is older is folded, with the summary so far.
		const first = split.turns.length - options.keepRecent;
		const kept = keepNewest(split.turns.slice(first), costs.slice(first), budget);
		const turns = split.turns.slice(0, split.turns.length - kept.length);
		return {
			history: replayHistory({ system: split.system, turns: kept }),
			tokens: kept.reduce((sum, turn) => sum + turnTokens(turn), 0),
			kept: kept.length,
			fold: {
				...(split.summary ? { previous: split.summary } : {}),
				turns,
				tokensBefore:
					summaryTokens + costs.slice(0, turns.length).reduce((sum, cost) => sum + cost, 0),
			},
			dropped: 0,
		};
	}
	const room = Math.max(0, budget - summaryTokens);
	const kept = keepNewest(split.turns, costs, room);
	const summary = summaryTokens <= budget ? split.summary : undefined;
	const tokens =
		(summary ? summaryTokens : 0) + kept.reduce((sum, turn) => sum + turnTokens(turn), 0);
	return {
		history: replayHistory({ system: split.system, ...(summary ? { summary } : {}), turns: kept }),
		tokens,
		kept: kept.length,
		dropped: split.turns.length - kept.length,
	};
}

/** The newest turns whose tokens add up to at most `budget`: the one history window's cut (core/history-window.ts). */
function keepNewest(turns: HistoryTurn[], costs: number[], budget: number): HistoryTurn[] {
	return turns.slice(turns.length - newestTurnsThatFit(costs, { budget }).kept);
}

/** A turn's tool results as a store keeps them: redacted by the caller, each observation cut, at most REMEMBERED_TOOL_RESULTS. */
export function rememberedToolResults(
	results: NonNullable<MemoryMessage['tool_results']>,
): NonNullable<MemoryMessage['tool_results']> {
	return results.slice(0, REMEMBERED_TOOL_RESULTS).map((result) => ({
		...result,
		observation: truncateObservation(result.observation, REMEMBERED_OBSERVATION_CHARS),
	}));
}

/** Share of the context window the history may take; the rest is for the system message, the question, the run's own steps and the answer. */
export const HISTORY_SHARE = 0.5;

/** What the system message and the question take as sent: their text, text files included, and their images and PDFs. */
function fixedTokens(
	config: AgentConfig,
	provider: string | undefined,
	fixed: readonly ChatMessage[],
): number {
	const sent = modelMessages(fixed, config.observation_max_len);
	return messagesTokens(sent) + partTokens(sent, provider ?? '');
}

/** The history's budget for a run: its context window (setting, catalogue, or the default) and what the history may take of it. */
export function historyBudget(
	config: AgentConfig,
	provider: string | undefined,
	fixed: readonly ChatMessage[],
): { window: number; source: 'setting' | 'catalogue' | 'default'; budget: number } {
	const catalogue =
		config.context_window_tokens > 0 ? undefined : contextWindowOf(config.model, provider);
	const window =
		config.context_window_tokens > 0
			? config.context_window_tokens
			: (catalogue ?? DEFAULT_CONTEXT_WINDOW_TOKENS);
	const source = config.context_window_tokens > 0 ? 'setting' : catalogue ? 'catalogue' : 'default';
	return {
		window,
		source,
		budget: Math.max(0, Math.floor(window * HISTORY_SHARE) - fixedTokens(config, provider, fixed)),
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
