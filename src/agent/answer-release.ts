import type { Redactor } from '../trace/redact';
import { secretSpellings } from '../trace/secret-spellings';
import { FinalAnswerExtractor } from './answer-stream';
import type { AgentEvent } from './events';

/**
 * Hands one model reply's answer text to the run's listener as it arrives, without ever sending a secret:
 * decoded answer text is released only up to just after a whitespace that lies at least `holdBack`
 * characters before the newest text (see holdBackFor), and only where redacting across the
 * cut gives what redacting each side gives, so a secret split across pieces is held until it is whole
 * and then sent as `[REDACTED]`. When the reply ends, `finish` sends the rest, so that the pieces equal
 * the redacted final answer, or voids what was sent with `answer_restart`.
 */
export class AnswerRelease {
  private extractor = new FinalAnswerExtractor();
  /** Decoded answer text not released yet. */
  private pending = '';
  /** Redacted text released since the last restart. */
  private released = '';
  /** Below this index of `pending` no usable cut exists (a cut, once unsafe, stays so): the next search stops here. */
  private searchedTo = 0;
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
    this.pending += decoded;
    this.releaseSafePart();
  }

  /** The text so far is void: the adapter retries the call. */
  reset(reason: string): void {
    if (this.ended) return;
    this.extractor = new FinalAnswerExtractor();
    this.pending = '';
    this.searchedTo = 0;
    this.restart(reason);
  }

  /** The reply ended as this final answer: send what was not sent yet, or start over if it differs. */
  finishWithAnswer(answer: string): void {
    if (this.ended) return;
    this.ended = true;
    const expected = this.redactor.text(answer);
    if (!expected.startsWith(this.released)) this.restart('the streamed text differed from the parsed answer');
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

  private releaseSafePart(): void {
    const limit = this.pending.length - this.holdBack;
    let cut = limit;
    while (cut > this.searchedTo) {
      cut = lastWhitespaceCut(this.pending, cut, this.searchedTo);
      if (cut <= this.searchedTo || this.isSafeCut(cut)) break;
      cut--;
    }
    if (cut <= this.searchedTo) {
      this.searchedTo = Math.max(this.searchedTo, limit);
      return;
    }
    this.searchedTo = 0;
    const piece = this.redactor.text(this.pending.slice(0, cut));
    this.pending = this.pending.slice(cut);
    if (piece !== '') this.send(piece);
  }

  /** No secret spelling or secret shape spans the cut: redacting across it changes nothing. */
  private isSafeCut(cut: number): boolean {
    const left = this.pending.slice(Math.max(0, cut - this.holdBack), cut);
    const right = this.pending.slice(cut, cut + this.holdBack);
    return this.redactor.text(left + right) === this.redactor.text(left) + this.redactor.text(right);
  }
}

/** The index just after the last whitespace character in text[floor, limit), or `floor` when there is none. */
function lastWhitespaceCut(text: string, limit: number, floor: number): number {
  for (let index = Math.min(limit, text.length) - 1; index >= floor; index--) {
    if (/\s/.test(text[index])) return index + 1;
  }
  return floor;
}

/** Held back at least this much, so a credential shape (`sk-` and 16 characters, `AIza` and 35) is whole before it is sent. */
const MIN_HOLD_BACK = 48;

/**
 * How much answer text to hold back for these known secrets: their longest spelling that contains
 * whitespace, at least MIN_HOLD_BACK. Text is cut only just after a whitespace character, so a spelling
 * without whitespace can never straddle a cut; it always ends up whole in one released piece and is
 * redacted there. That keeps a long API key (OpenAI project keys run past 160 characters) from delaying
 * every answer by its length.
 */
export function holdBackFor(knownSecrets: Iterable<string | undefined>): number {
  let longest = MIN_HOLD_BACK;
  for (const secret of knownSecrets) {
    if (typeof secret !== 'string' || !/\s/.test(secret)) continue;
    for (const spelling of secretSpellings(secret)) {
      if (/\s/.test(spelling)) longest = Math.max(longest, spelling.length);
    }
  }
  return longest;
}
