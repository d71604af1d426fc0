// The replies of a session's atomic operations (Redis' scripts, the memory store's twins) read into results or refusals, one way for both stores.
import { ConversationError } from './errors';
import type { PersistResult, PreparedHistory, RewindResult } from './store';

/** What PERSIST_SCRIPT (or the memory store's persist) answers. */
export type PersistReply =
	| ['stored', number, number, number]
	| ['busy']
	| ['superseded']
	| ['changed']
	| ['ahead', number]
	| ['behind', number];

/** What REWIND_SCRIPT answers: `done` with `moved:restored:dropped:live`. */
export type RewindReply = ['done', string] | ['not_found'] | ['busy'] | ['range', number];

/** What READ_SCRIPT answers: `busy`, or the entries, length, system message, TTL, summary, counter and lock token. */
export type ReadReply =
	| ['busy']
	| ['read', string[], number, string | null, number, string | null, string | null, string | null];

/** What SNAPSHOT_SCRIPT answers: live and archived entries, system, summary, counter, busy, TTLs. */
export type SnapshotReply = [
	string[],
	string[],
	string | null,
	string | null,
	string | null,
	number,
	number,
	number,
];

/** The persist's result, or the refusal it met (naming `session`, the summary's `through_seq` at `summaryPath`). */
export function persistOutcome(
	reply: PersistReply,
	session: string,
	throughSeq: number,
	summaryPath: string,
): PersistResult {
	switch (reply[0]) {
		case 'stored':
			return {
				stored: true,
				seq: Number(reply[1]),
				storedTurns: Number(reply[2]),
				archivedTurns: Number(reply[3]),
			};
		case 'busy':
			throw new ConversationError({ code: 'busy', session, policy: 'persist' });
		case 'superseded':
		case 'changed':
			return { stored: false, reason: reply[0] };
		case 'ahead':
			throw new ConversationError({
				code: 'through_seq_ahead',
				session,
				throughSeq,
				newest: Number(reply[1]),
				path: summaryPath,
			});
		case 'behind':
			throw new ConversationError({
				code: 'through_seq_behind',
				session,
				throughSeq,
				stored: Number(reply[1]),
				path: summaryPath,
			});
	}
}

/** The rewind's result, or its refusal. */
export function rewindOutcome(reply: RewindReply, session: string, toTurn: number): RewindResult {
	switch (reply[0]) {
		case 'done': {
			const [archived, restored, dropped, live] = reply[1].split(':').map(Number);
			return { archived, restored, summary_dropped: dropped === 1, live_turns: live };
		}
		case 'not_found':
			throw new ConversationError({ code: 'not_found', session });
		case 'busy':
			throw new ConversationError({ code: 'busy', session, policy: 'reject' });
		case 'range':
			throw new ConversationError({
				code: 'turn_out_of_range',
				session,
				turn: toTurn,
				least: 0,
				last: Number(reply[1]),
			});
	}
}

/** Refuses a turn number that is not a whole number from `least` up, before anything is read. */
export function assertTurnNumber(turn: unknown, least: number, session: string): number {
	if (typeof turn === 'number' && Number.isSafeInteger(turn) && turn >= least) return turn;
	throw new ConversationError({ code: 'bad_turn', session, turn: String(turn), least });
}

/** The busy refusal of a prepare whose lock was taken. */
export function busyRefusal(session: string): ConversationError {
	return new ConversationError({ code: 'busy', session, policy: 'reject' });
}

/** PreparedHistory's busyToken, when the read took the lock. */
export function withToken(
	history: PreparedHistory,
	token: string | null | false | undefined,
): PreparedHistory {
	return token ? { ...history, busyToken: token } : history;
}
