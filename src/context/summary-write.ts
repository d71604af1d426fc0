// A summary given to persist, checked and encoded the one way both stores write it.
import { chatMessageProblem } from '../core/messages';
import { InvalidContextInputError } from '../redis/errors';
import type { StoredSummary } from './store';
import { encodeSummary } from './turn-codec';

/** The summary as persist writes it (`encoded` empty and `throughSeq` 0 without one). */
export function summaryWrite(summary: StoredSummary | undefined): {
	encoded: string;
	throughSeq: number;
} {
	if (summary === undefined) return { encoded: '', throughSeq: 0 };
	const problem = chatMessageProblem(
		{ role: 'assistant', content: summary.content, summary },
		'summary',
	);
	if (problem)
		throw new InvalidContextInputError('summary', [
			problem.replace(/^summary\.summary\./, 'summary.'),
		]);
	return { encoded: encodeSummary(summary), throughSeq: summary.through_seq };
}
