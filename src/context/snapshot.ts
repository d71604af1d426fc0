// A whole session read at one moment (live turns, archive, summary, counter), and what list and fork make of it — the same for every store.
import { ConversationError } from './errors';
import type { ArchivedTurn, ListedTurn, SessionListing, StoredTurn } from './store';
import {
	decodeArchivedTurns,
	decodeNumberedTurns,
	decodeSummary,
	numberedEntry,
	numberEntries,
	readArchivedEntry,
} from './turn-codec';

/** A session's keys as one read returned them (Redis' SNAPSHOT_SCRIPT, or the memory store's session). */
export interface RawSession {
	/** Live entries, oldest first. */
	turns: readonly string[];
	archive: readonly string[];
	system: string | null;
	summary: string | null;
	/** The session's counter; null for a session never written since turns were numbered (or none at all). */
	counter: number | null;
	busy: boolean;
}

/** What fork writes into the new session. */
export interface ForkPlan {
	/** Numbered live entries, oldest first. */
	live: string[];
	/** Archived entries the summary stands for (so a rewind in the fork can bring them back). */
	archive: string[];
	summary: string | null;
	system: string | null;
	lastSeq: number;
	/** Summarised turns made live again because the fork point lies inside the summary. */
	restored: number;
}

/** Whether anything of the session is stored. */
export function sessionExists(raw: RawSession): boolean {
	return (
		raw.turns.length > 0 || raw.archive.length > 0 || raw.summary !== null || raw.counter !== null
	);
}

/** Live entries with the numbers they carry or are given on read, as they would be stored numbered. */
function numberedLive(raw: RawSession): Array<{ seq: number; entry: string }> {
	const numbers = numberEntries(raw.turns, 1);
	return raw.turns.map((entry, index) => ({
		seq: numbers[index],
		entry: entry.startsWith('{"seq":') ? entry : numberedEntry(entry, numbers[index]),
	}));
}

/** The session's turns, live and archived, in order of seq, with its summary. */
export function listingOf(raw: RawSession): SessionListing {
	const live = decodeNumberedTurns(raw.turns, 1);
	const archived = decodeArchivedTurns(raw.archive);
	const listed = [
		...live.turns.map((turn) => listedTurn(turn, 'live')),
		...archived.turns.map((turn) => listedTurn(turn, turn.archived)),
	];
	listed.sort((left, right) => left.seq - right.seq);
	const summary = decodeSummary(raw.summary);
	const { content, ...meta } = summary ?? { content: '' };
	const highest = Math.max(
		0,
		raw.counter ?? 0,
		summary?.through_seq ?? 0,
		...listed.map((turn) => turn.seq),
	);
	return {
		turns: listed,
		summary: summary
			? { ...(meta as Omit<typeof summary, 'content'>), characters: content.length }
			: null,
		live_turns: live.turns.length,
		archived_turns: archived.turns.length,
		last_seq: highest,
		skipped_corrupt: live.skippedCorrupt + archived.skippedCorrupt,
		busy: raw.busy,
	};
}

function listedTurn(turn: StoredTurn & { seq: number }, state: ListedTurn['state']): ListedTurn {
	const archivedAt = (turn as Partial<ArchivedTurn>).archived_at;
	return {
		seq: turn.seq,
		at: turn.at,
		state,
		messages: turn.messages.map((message) => ({
			role: message.role,
			characters: message.content.length,
		})),
		tool_results: turn.messages.reduce(
			(count, message) => count + (message.tool_results?.length ?? 0),
			0,
		),
		...(turn.unanswered ? { unanswered: true as const } : {}),
		...(archivedAt ? { archived_at: archivedAt } : {}),
	};
}

/**
 * The turns a fork at `atTurn` holds: the live turns up to it and, when the summary covers only turns up to it,
 * the summary (with the archived turns it stands for); when the summary reaches past it, the summarised turns up
 * to `atTurn` from the archive instead, so the fork loses nothing and knows nothing of later turns. `atTurn` runs
 * from the first turn the session still has (1 with a summary) to the newest. Refusals name `session`.
 */
export function planFork(raw: RawSession, atTurn: number, session: string): ForkPlan {
	if (!sessionExists(raw)) throw new ConversationError({ code: 'not_found', session });
	const live = numberedLive(raw);
	const summary = decodeSummary(raw.summary);
	const through = summary?.through_seq ?? 0;
	const newest = Math.max(live.at(-1)?.seq ?? 0, through);
	const least = summary ? 1 : (live[0]?.seq ?? 1);
	if (!Number.isSafeInteger(atTurn) || atTurn < least || atTurn > newest) {
		throw new ConversationError({
			code: 'turn_out_of_range',
			session,
			turn: atTurn,
			least,
			last: newest,
		});
	}
	const liveUpTo = live.filter((turn) => turn.seq <= atTurn).map((turn) => turn.entry);
	const summarised = raw.archive
		.map(readArchivedEntry)
		.filter((entry) => entry?.reason === 'summarised') as Array<
		NonNullable<ReturnType<typeof readArchivedEntry>>
	>;
	const base = { system: raw.system, lastSeq: atTurn };
	if (summary && through <= atTurn) {
		const archive = raw.archive.filter(
			(entry) => readArchivedEntry(entry)?.reason === 'summarised',
		);
		return { ...base, live: liveUpTo, archive, summary: raw.summary, restored: 0 };
	}
	const back = summarised
		.filter((entry) => entry.seq <= atTurn)
		.sort((left, right) => left.seq - right.seq);
	return {
		...base,
		live: [...back.map((entry) => entry.live), ...liveUpTo],
		archive: [],
		summary: null,
		restored: back.length,
	};
}
