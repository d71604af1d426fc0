// What a conversation refuses: a busy session, an unknown one, a turn out of range, a fork onto an existing session, a summary that does not fit.
import { AgentCoreError } from '../core/agent-core-error';

/**
 * Why a conversation operation was refused. Each names the field to change as the engine calls it
 * (`session_id`, `turn`, `to_session`, `messages`) and says the fix; the node and the CLI show it under their
 * own names for the field.
 */
export type ConversationRefusal =
	| { code: 'busy'; session: string; policy: 'reject' | 'wait' | 'persist'; waitedMs?: number }
	| { code: 'not_found'; session: string }
	| { code: 'turn_out_of_range'; session: string; turn: number; last: number; least: number }
	| { code: 'bad_turn'; session: string; turn: string; least: number }
	| { code: 'target_exists'; target: string }
	| { code: 'through_seq_ahead'; session: string; throughSeq: number; newest: number; path: string }
	| {
			code: 'through_seq_behind';
			session: string;
			throughSeq: number;
			stored: number;
			path: string;
	  };

/** A refused conversation operation; `refusal` holds its facts. Nothing was written. */
export class ConversationError extends AgentCoreError {
	override readonly name = 'ConversationError';
	constructor(readonly refusal: ConversationRefusal) {
		const { message, field, fix } = describeRefusal(refusal);
		super(message, { field, fix });
	}

	/** The same refusal naming the session as the caller knows it (the store only knows its key). */
	renamed(session: string, target?: string): ConversationError {
		const refusal = { ...this.refusal } as ConversationRefusal;
		if ('session' in refusal) refusal.session = session;
		if (refusal.code === 'target_exists' && target !== undefined) refusal.target = target;
		return new ConversationError(refusal);
	}
}

/** The sentence, field and fix of each refusal. */
function describeRefusal(refusal: ConversationRefusal): {
	message: string;
	field: string;
	fix: string;
} {
	switch (refusal.code) {
		case 'busy':
			return {
				message:
					refusal.policy === 'persist'
						? `session "${refusal.session}" is busy with another run, and this persist carries no busy token ` +
							'from its prepare, so it cannot show that the run is its own; nothing was stored'
						: `session "${refusal.session}" is busy with another run; try again when it answered` +
							(refusal.waitedMs ? ` (waited ${Math.round(refusal.waitedMs / 1000)} s)` : ''),
				field: 'session_id',
				fix:
					refusal.policy === 'persist'
						? "Pass prepare's busy_token to persist (Agent Context's Options → Busy Lock From Prepare), or let the lock expire."
						: 'Send the message again once the earlier one is answered, or set the busy policy to wait or latest.',
			};
		case 'not_found':
			return {
				message: `session "${refusal.session}" has no stored conversation (it never existed, was cleared or has expired)`,
				field: 'session_id',
				fix: 'Check the session ID.',
			};
		case 'turn_out_of_range':
			return {
				message:
					`turn ${refusal.turn} is out of range: session "${refusal.session}" has turns ${refusal.least} to ${refusal.last}` +
					(refusal.last < refusal.least ? ' (none)' : ''),
				field: 'turn',
				fix: `Give a whole number from ${refusal.least} to ${refusal.last}; list the session's turns to see them.`,
			};
		case 'bad_turn':
			return {
				message: `turn ${refusal.turn} is not a turn number of session "${refusal.session}": a turn is a whole number from ${refusal.least} up`,
				field: 'turn',
				fix: `Give a whole number from ${refusal.least} up; list the session's turns to see them.`,
			};
		case 'target_exists':
			return {
				message: `session "${refusal.target}" already exists; a fork only creates a new session`,
				field: 'to_session',
				fix: 'Choose a new session ID for the fork, or clear that session first.',
			};
		case 'through_seq_ahead':
			return {
				message:
					`${refusal.path} is ${refusal.throughSeq}, but session "${refusal.session}" has no turn after ${refusal.newest}: ` +
					'a summary can only cover turns that are stored',
				field: 'messages',
				fix: "Persist Agent Core's own messages output: only Agent Core writes a summary, of turns prepare gave it.",
			};
		case 'through_seq_behind':
			return {
				message:
					`${refusal.path} is ${refusal.throughSeq}, but session "${refusal.session}" already has a summary ` +
					`through turn ${refusal.stored}: a new summary must cover at least as much`,
				field: 'messages',
				fix: "Persist Agent Core's own messages output: only Agent Core writes a summary, of turns prepare gave it.",
			};
	}
}
