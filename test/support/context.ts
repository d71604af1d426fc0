import type { ChatMessage } from '../../src/core/messages';
import type { HistoryWindow, PersistOptions, StoredTurn } from '../../src/context/store';

export const PERSIST: PersistOptions = { maxStoredTurns: 200, ttlSeconds: 3600 };
export const WINDOW: HistoryWindow = { maxTurns: 20, maxCharacters: 0 };

/** One stored exchange: a question and its answer, labelled. */
export function exchange(label: string | number, extra: Partial<StoredTurn> = {}): StoredTurn {
	return {
		messages: [
			{ role: 'user', content: `question ${label}` },
			{ role: 'assistant', content: `answer ${label}` },
		],
		at: new Date().toISOString(),
		...extra,
	};
}

/** Messages as "role: content" lines, easy to compare. */
export function contents(messages: ChatMessage[]): string[] {
	return messages.map((message) => `${message.role}: ${message.content}`);
}
