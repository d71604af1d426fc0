// The window prepare reads: which stored turns go to the model, by number of turns and characters, after the system message and summary.
import { newestTurnsThatFit } from '../core/history-window';
import type { ChatMessage } from '../core/messages';
import type { ValidationResult } from '../validation/validate';
import {
	DEFAULT_MAX_HISTORY_CHARACTERS,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_MAX_TURNS,
	InvalidContextInputError,
	type HistoryWindow,
	type PreparedHistory,
	type StoredTurn,
} from './store';
import { decodeNumberedTurns, decodeSummary, summaryMessage } from './turn-codec';

/**
 * Named character budgets for the history handed to the model. `full` means the default cap
 * (DEFAULT_MAX_HISTORY_CHARACTERS); the others
 * are sized for small-context models (roughly 4k, 1.5k and 500 tokens of history).
 */
export const HISTORY_CHARACTER_LEVELS = {
	full: 0,
	normal: 16000,
	compact: 6000,
	minimal: 2000,
} as const;

export type HistoryCharacterLevel = keyof typeof HISTORY_CHARACTER_LEVELS;

/** Resolves a named level or a custom number of characters (0 = the default cap) into a budget. */
export function resolveCharacterBudget(
	level: HistoryCharacterLevel | number | string,
): ValidationResult<number> {
	if (typeof level === 'number') {
		return Number.isInteger(level) && level >= 0
			? { ok: true, value: level }
			: {
					ok: false,
					issues: [
						`maxCharacters: must be 0 (the default cap) or a positive integer, got ${level}`,
					],
				};
	}
	if (Object.prototype.hasOwnProperty.call(HISTORY_CHARACTER_LEVELS, level)) {
		return { ok: true, value: HISTORY_CHARACTER_LEVELS[level as HistoryCharacterLevel] };
	}
	const names = Object.keys(HISTORY_CHARACTER_LEVELS).join(', ');
	return {
		ok: false,
		issues: [`maxCharacters: must be one of ${names} or a number, got "${level}"`],
	};
}

/** Fills in defaults (20 turns, no character budget) and checks the numbers. */
export function validateHistoryWindow(
	input: Partial<HistoryWindow> = {},
): ValidationResult<HistoryWindow> {
	const window: HistoryWindow = {
		maxTurns: input.maxTurns ?? DEFAULT_MAX_TURNS,
		maxCharacters: input.maxCharacters ?? 0,
		maxScannedTurns: input.maxScannedTurns ?? DEFAULT_MAX_STORED_TURNS,
	};
	const issues: string[] = [];
	for (const [field, value] of Object.entries(window) as Array<[string, number]>) {
		if (!Number.isInteger(value) || value < 0)
			issues.push(`${field}: must be 0 or a positive integer, got ${value}`);
	}
	if (window.maxScannedTurns === 0) issues.push('maxScannedTurns: must be a positive integer');
	if (input.allLiveTurns !== undefined && typeof input.allLiveTurns !== 'boolean')
		issues.push('allLiveTurns: must be true or false');
	if (input.allLiveTurns === true) window.allLiveTurns = true;
	return issues.length === 0 ? { ok: true, value: window } : { ok: false, issues };
}

/** Throws `InvalidContextInputError` for a bad window; returns it with defaults filled in otherwise. */
export function assertHistoryWindow(window: Partial<HistoryWindow>): HistoryWindow {
	const result = validateHistoryWindow(window);
	if (!result.ok) throw new InvalidContextInputError('history window', result.issues);
	return result.value;
}

/**
 * How many of the newest stored entries `prepare` reads: exactly `maxTurns` when there is a turn
 * limit, otherwise (or for every live turn) the bounded scan. This is what keeps prepare's cost independent
 * of history length.
 */
export function entriesToRead(window: HistoryWindow): number {
	if (window.maxTurns > 0 && window.allLiveTurns !== true) return window.maxTurns;
	return window.maxScannedTurns && window.maxScannedTurns > 0
		? window.maxScannedTurns
		: DEFAULT_MAX_STORED_TURNS;
}

/** Characters a turn costs against the budget: its message contents and the observations and errors of its tool results. */
export function turnCharacters(turn: StoredTurn): number {
	let total = 0;
	for (const message of turn.messages) {
		total += message.content.length;
		for (const result of message.tool_results ?? [])
			total += result.observation.length + (result.error?.length ?? 0);
	}
	return total;
}

/** A stored turn's messages as prepare hands them on: the turn's number on its opening user message. */
export function turnMessages(turn: StoredTurn & { seq: number }): ChatMessage[] {
	return turn.messages.map((message, index) =>
		index === 0 && message.role === 'user' ? { ...message, seq: turn.seq } : { ...message },
	);
}

/** What the store read for prepare: the newest entries, the list's length, and the session's system message, summary and counter. */
export interface WindowInput {
	entries: readonly string[];
	storedTurns: number;
	systemMessage?: string | null;
	summary?: string | null;
	/** The session's counter (the newest number given); 0 or absent for a session numbered on read only. */
	lastSeq?: number;
}

/**
 * Builds the model's history from the newest stored entries (chronological, as read): the system message, the
 * summary (an assistant message carrying `summary`), then the window's turns, numbered (see numberEntries).
 *
 * The turns are cut by the one history window (core/history-window.ts), counting characters: when the
 * newest turn alone is over budget, no turn is included and `truncated` is set. The system message and the
 * summary are always included, first, and count toward neither limit.
 * Unreadable entries are skipped and counted; they do not use up the turn limit's slots in the
 * output, but they did use a slot of the read, so a window can hold fewer than `maxTurns` turns.
 */
export function applyHistoryWindow(input: WindowInput, window: HistoryWindow): PreparedHistory {
	const decoded = decodeNumberedTurns(input.entries, input.storedTurns - input.entries.length + 1);
	// A turn stored without an answer (persist's storeUnanswered) is kept for `get` but never replayed:
	// its question followed by the next one would reach the model as two user messages in a row.
	const turns = decoded.turns.filter((turn) => turn.unanswered !== true);
	const skippedCorrupt = decoded.skippedCorrupt;
	const budget = window.maxCharacters > 0 ? window.maxCharacters : DEFAULT_MAX_HISTORY_CHARACTERS;
	const cut = newestTurnsThatFit(turns.map(turnCharacters), {
		maxTurns: window.allLiveTurns ? 0 : window.maxTurns,
		budget,
	});
	const included = turns.slice(turns.length - cut.kept);
	const characters = cut.used;

	const messages: ChatMessage[] = [];
	if (input.systemMessage) messages.push({ role: 'system', content: input.systemMessage });
	const summary = decodeSummary(input.summary);
	if (summary) messages.push(summaryMessage(summary));
	for (const turn of included) messages.push(...turnMessages(turn));
	const newestRead = decoded.turns.at(-1)?.seq ?? 0;
	return {
		messages,
		turns: included.length,
		characters,
		storedTurns: input.storedTurns,
		skippedCorrupt,
		truncated:
			included.length + skippedCorrupt + (decoded.turns.length - turns.length) < input.storedTurns,
		lastSeq: Math.max(input.lastSeq ?? 0, newestRead, summary?.through_seq ?? 0),
		...(summary ? { summaryThroughSeq: summary.through_seq } : {}),
	};
}
