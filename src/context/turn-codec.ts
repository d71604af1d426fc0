// How turns, archived turns and summaries are written as text (Redis values, memory entries) and read back.
import { chatMessageProblem, cleanMessage } from '../core/messages';
import { InvalidContextInputError } from '../redis/errors';
import type { ArchivedTurn, ArchiveReason, StoredSummary, StoredTurn } from './store';

/*
 * The number comes first in every entry the store writes — `{"seq":12,"messages":…}`, and for the archive
 * `{"seq":12,"archived":"rewound","archived_at":"…","messages":…}` — so a Lua script reads, sets and changes it
 * with a pattern, without decoding (or re-encoding, which cjson does lossily) the turn's JSON. A summary starts
 * with `{"through_seq":N,` for the same reason.
 */
const SEQ = /^\{"seq":(\d+),/;
const ARCHIVED = /^\{"seq":(\d+),"archived":"([a-z]+)","archived_at":"([^"]*)",/;

/** The number an entry carries, or undefined (written before turns were numbered, or not a turn). */
export function seqOfEntry(entry: string): number | undefined {
	const match = SEQ.exec(entry);
	return match ? Number(match[1]) : undefined;
}

/** An entry without a number (as encodeStoredTurn writes it) given one. */
export function numberedEntry(entry: string, seq: number): string {
	return `{"seq":${seq},${entry.slice(1)}`;
}

/** A live entry as the archive keeps it, marked with why and when it was moved. */
export function archivedEntry(entry: string, reason: ArchiveReason, at: string): string {
	const match = SEQ.exec(entry);
	if (!match) throw new Error('only numbered entries are archived');
	return `{"seq":${match[1]},"archived":"${reason}","archived_at":"${at}",${entry.slice(match[0].length)}`;
}

/** An archived entry's number, reason and the entry as it was live; undefined for anything else. */
export function readArchivedEntry(
	entry: string,
): { seq: number; reason: string; live: string } | undefined {
	const match = ARCHIVED.exec(entry);
	if (!match) return undefined;
	return {
		seq: Number(match[1]),
		reason: match[2],
		live: `{"seq":${match[1]},${entry.slice(match[0].length)}`,
	};
}

/** Serialises a turn for storage after checking its shape, so only readable turns are written; the store adds the number. */
export function encodeStoredTurn(turn: StoredTurn): string {
	const issues = describeTurnProblems(turn);
	if (issues.length > 0) throw new InvalidContextInputError('turn', issues);
	// The number is the store's to give; a seq on a message is the turn's, added when it is read.
	const messages = turn.messages.map((message) => {
		const { seq: _seq, ...rest } = cleanMessage(message);
		return rest;
	});
	const entry: StoredTurn = { messages, at: turn.at };
	if (turn.unanswered === true) entry.unanswered = true;
	if (turn.steps !== undefined) entry.steps = turn.steps;
	try {
		return JSON.stringify(entry);
	} catch (error) {
		throw new InvalidContextInputError('turn', [
			`steps: cannot be stored as JSON (${(error as Error).message})`,
		]);
	}
}

/** Parses a stored entry; undefined when it is not JSON or not a turn (the caller counts it as corrupt). */
export function decodeStoredTurn(raw: string): StoredTurn | undefined {
	let value: unknown;
	try {
		value = JSON.parse(raw);
	} catch {
		return undefined;
	}
	if (describeTurnProblems(value).length > 0) return undefined;
	const turn = value as StoredTurn;
	if (turn.seq !== undefined && !(Number.isSafeInteger(turn.seq) && turn.seq >= 1))
		return undefined;
	return turn;
}

/** Decodes entries in order, dropping and counting the unreadable ones. */
export function decodeStoredTurns(entries: readonly string[]): {
	turns: StoredTurn[];
	skippedCorrupt: number;
} {
	const turns: StoredTurn[] = [];
	for (const entry of entries) {
		const turn = decodeStoredTurn(entry);
		if (turn) turns.push(turn);
	}
	return { turns, skippedCorrupt: entries.length - turns.length };
}

/**
 * The number of each entry of a run of consecutive live entries, `firstPosition` being the first one's place in
 * the whole list (1 = the oldest). An entry keeps the number it carries. One without (written before turns were
 * numbered) is numbered by its place: one less than the numbered entry after it, one more than the one before it,
 * or, where none is numbered, its position in the list (1, 2, …) — which is also how the stores number such
 * entries for good, on the first write to the session (see the `number_all` Lua function and numberAll).
 */
export function numberEntries(entries: readonly string[], firstPosition: number): number[] {
	const own = entries.map(seqOfEntry);
	const firstNumbered = own.findIndex((seq) => seq !== undefined);
	if (firstNumbered === -1) return entries.map((_, index) => firstPosition + index);
	const numbers: number[] = new Array<number>(entries.length);
	for (let index = firstNumbered; index >= 0; index--)
		numbers[index] = own[index] ?? numbers[index + 1] - 1;
	for (let index = firstNumbered + 1; index < entries.length; index++)
		numbers[index] = own[index] ?? numbers[index - 1] + 1;
	return numbers;
}

/** Live entries decoded with their numbers (see numberEntries), the unreadable ones counted. */
export function decodeNumberedTurns(
	entries: readonly string[],
	firstPosition: number,
): { turns: Array<StoredTurn & { seq: number }>; skippedCorrupt: number } {
	const numbers = numberEntries(entries, firstPosition);
	const turns: Array<StoredTurn & { seq: number }> = [];
	entries.forEach((entry, index) => {
		const turn = decodeStoredTurn(entry);
		if (turn) turns.push({ ...turn, seq: numbers[index] });
	});
	return { turns, skippedCorrupt: entries.length - turns.length };
}

/** Archived entries decoded (an entry that is not one is counted, not thrown). */
export function decodeArchivedTurns(entries: readonly string[]): {
	turns: ArchivedTurn[];
	skippedCorrupt: number;
} {
	const turns: ArchivedTurn[] = [];
	for (const entry of entries) {
		const turn = decodeStoredTurn(entry) as ArchivedTurn | undefined;
		if (
			turn &&
			turn.seq !== undefined &&
			(turn.archived === 'summarised' || turn.archived === 'rewound') &&
			typeof turn.archived_at === 'string'
		)
			turns.push(turn);
	}
	return { turns, skippedCorrupt: entries.length - turns.length };
}

/** A summary as stored: `through_seq` first (see above). */
export function encodeSummary(summary: StoredSummary): string {
	const { through_seq, replaced_turns, model, tokens_before, tokens_after, at, content } = summary;
	return JSON.stringify({
		through_seq,
		replaced_turns,
		model,
		tokens_before,
		tokens_after,
		at,
		content,
	});
}

/** A stored summary, or undefined when the value is not one. */
export function decodeSummary(raw: string | null | undefined): StoredSummary | undefined {
	if (raw === null || raw === undefined) return undefined;
	try {
		const value = JSON.parse(raw) as StoredSummary;
		const problem = chatMessageProblem(
			{ role: 'assistant', content: value.content, summary: value },
			'summary',
		);
		return problem ? undefined : value;
	} catch {
		return undefined;
	}
}

/** The summary as the first message after the system message of prepare's output. */
export function summaryMessage(summary: StoredSummary): {
	role: 'assistant';
	content: string;
	summary: Omit<StoredSummary, 'content'>;
} {
	const { content, ...meta } = summary;
	const { through_seq, replaced_turns, model, tokens_before, tokens_after, at } = meta;
	return {
		role: 'assistant',
		content,
		summary: { through_seq, replaced_turns, model, tokens_before, tokens_after, at },
	};
}

function describeTurnProblems(value: unknown): string[] {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		return ['turn: must be an object'];
	const turn = value as Record<string, unknown>;
	const issues: string[] = [];
	if (typeof turn.at !== 'string' || Number.isNaN(Date.parse(turn.at)))
		issues.push('at: must be an ISO 8601 time');
	if (!Array.isArray(turn.messages) || turn.messages.length === 0) {
		issues.push('messages: must be a non-empty list');
		return issues;
	}
	turn.messages.forEach((message: unknown, index) => {
		const problem = chatMessageProblem(message, `messages[${index}]`);
		if (problem) issues.push(problem);
		else if ((message as { summary?: unknown }).summary !== undefined)
			issues.push(
				`messages[${index}].summary: a turn holds no summary; the session keeps it apart`,
			);
	});
	return issues;
}
