import type { Redactor } from '../../../trace/redact';
import { secretSpellings } from '../../../trace/secret-spellings';
import { FinalAnswerExtractor } from './answer-stream';
import { ReleaseCuts } from './release-cuts';
import type { AgentEvent } from '../../base/events';

/**
 * Hands one model reply's answer text to the run's listener as it arrives, without ever sending anything
 * the final output redacts: decoded answer text is released only up to a cut that ReleaseCuts names safe
 * (no redaction rule can span it, whatever text follows), that lies at least `holdBack` characters before
 * the newest text, and where redacting across the cut gives what redacting each side gives (known secrets
 * spelled with whitespace, see holdBackFor). So a secret split across pieces is held until it is whole and
 * then sent as `[REDACTED]`. When the reply ends, `finish` sends the rest, so that the pieces equal the
 * redacted final answer, or voids what was sent with `answer_restart`. With a `holdBack` of Infinity
 * (RunAgentOptions.streamAnswer 'checked') nothing is sent before the reply has closed as a checked answer.
 */
export class AnswerRelease {
	private extractor = new FinalAnswerExtractor();
	/** Decoded answer text not released yet. */
	private pending = '';
	/** Redacted text released since the last restart. */
	private released = '';
	private cuts = new ReleaseCuts();
	/** Safe cuts into `pending` not yet checked against the hold-back window, ascending. */
	private candidates: number[] = [];
	private ended = false;

	constructor(
		private readonly redactor: Redactor,
		private readonly holdBack: number,
		private readonly emit: (event: AgentEvent) => void,
	) {}

	/** A piece of the reply's text. Pieces arriving after the reply ended (a late adapter callback) are ignored. */
	text(piece: string): void {
		if (this.ended) return;
		const decoded = this.extractor.push(piece);
		if (decoded === '') return;
		if (this.holdBack === Infinity) {
			// Held whole until the reply closes as an answer (streamAnswer 'checked'): no cut to look for.
			this.pending += decoded;
			return;
		}
		this.cuts.read(decoded, this.pending.length, (cut) => this.candidates.push(cut));
		this.pending += decoded;
		this.releaseSafePart();
	}

	/** The text so far is void: the adapter retries the call. */
	reset(reason: string): void {
		if (this.ended) return;
		this.extractor = new FinalAnswerExtractor();
		this.pending = '';
		this.cuts = new ReleaseCuts();
		this.candidates = [];
		this.restart(reason);
	}

	/** The reply ended as this final answer: send what was not sent yet, or start over if it differs. */
	finishWithAnswer(answer: string): void {
		if (this.ended) return;
		this.ended = true;
		const expected = this.redactor.text(answer);
		if (!expected.startsWith(this.released))
			this.restart('the streamed text differed from the parsed answer');
		const rest = expected.slice(this.released.length);
		if (rest !== '') this.send(rest);
	}

	/** The reply ended without a final answer (an action, a protocol error, a failed call): void any text sent. */
	finishWithoutAnswer(reason: string): void {
		if (this.ended) return;
		this.ended = true;
		this.restart(reason);
	}

	private restart(reason: string): void {
		if (this.released === '') return;
		this.released = '';
		this.emit({ type: 'answer_restart', reason });
	}

	private send(text: string): void {
		this.released += text;
		this.emit({ type: 'answer_delta', text });
	}

	/**
	 * Releases up to the last candidate cut that has `holdBack` characters after it and passes the window
	 * check. A cut that fails the check fails for good (the text around it no longer changes): it is dropped,
	 * so each candidate is checked once.
	 */
	private releaseSafePart(): void {
		const limit = this.pending.length - this.holdBack;
		let cut = 0;
		let checked = 0;
		while (checked < this.candidates.length && this.candidates[checked] <= limit) {
			if (this.isSafeCut(this.candidates[checked])) cut = this.candidates[checked];
			checked++;
		}
		this.candidates = this.candidates.slice(checked).map((candidate) => candidate - cut);
		if (cut === 0) return;
		const piece = this.redactor.text(this.pending.slice(0, cut));
		this.pending = this.pending.slice(cut);
		if (piece !== '') this.send(piece);
	}

	/** No known secret spelled with whitespace spans the cut: redacting across it changes nothing. */
	private isSafeCut(cut: number): boolean {
		if (this.holdBack === 0) return true;
		const left = this.pending.slice(Math.max(0, cut - this.holdBack), cut);
		const right = this.pending.slice(cut, cut + this.holdBack);
		return (
			this.redactor.text(left + right) === this.redactor.text(left) + this.redactor.text(right)
		);
	}
}

/**
 * How much answer text to hold back for these known secrets: their longest spelling that contains
 * whitespace, or nothing. Text is cut only just after a whitespace character, so a spelling without
 * whitespace, like every credential shape the Redactor knows (`sk-…`, `AIza…`, JWTs), can never straddle
 * a cut: it always ends up whole in one released piece and is redacted there. That keeps a long API key
 * (OpenAI project keys run past 160 characters) from delaying every answer by its length, and lets the
 * first word go out as soon as the whitespace after it arrives.
 */
export function holdBackFor(knownSecrets: Iterable<string | undefined>): number {
	let longest = 0;
	for (const secret of knownSecrets) {
		if (typeof secret !== 'string' || !/\s/.test(secret)) continue;
		for (const spelling of secretSpellings(secret)) {
			if (/\s/.test(spelling)) longest = Math.max(longest, spelling.length);
		}
	}
	return longest;
}
