/**
 * Reads the final answer's text out of a reply while the reply is still arriving, piece by piece.
 *
 * It only speaks once the reply's opening is unambiguously `{"type":"final","answer":"` (after the
 * leniency the protocol parser allows: a BOM, whitespace, a leading `<think>…</think>` block, one
 * fence line with any language tag), so nothing of an action, of reasoning or of prose is ever taken for answer text. Any other
 * opening (keys in another order, an action, plain text) makes it fall silent for the rest of the reply;
 * the engine then sends the parsed answer whole when the reply has ended.
 *
 * So it speaks only while the reply so far is the prefix of a final object with no key twice (its only keys
 * so far are `type` and `answer`, in that order). After the answer's closing quote it says nothing more; what
 * follows can still make the reply no final answer (a second `"type"`, trailing text), which only the whole
 * reply shows: the parser then refuses it, and AnswerRelease voids the text sent with `answer_restart`.
 */

/** `partial`: the opening may still become the final answer's; `mismatch`: it cannot. */
const PARTIAL = -1;
const MISMATCH = -2;

/** What must follow the opening brace, with any JSON whitespace between the tokens. */
const OPENING_TOKENS = ['{', '"type"', ':', '"final"', ',', '"answer"', ':', '"'];

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/**
 * An opening is short; whitespace beyond this after the reasoning block is not worth waiting on, and the
 * limit keeps the re-scan of the undecided text per piece bounded.
 */
const MAX_OPENING_LENGTH = 256;

/** The one-character escapes of a JSON string. */
const SIMPLE_ESCAPES: Record<string, string> = {
	'"': '"',
	'\\': '\\',
	'/': '/',
	b: '\b',
	f: '\f',
	n: '\n',
	r: '\r',
	t: '\t',
};

const isJsonWhitespace = (character: string) =>
	character === ' ' || character === '\t' || character === '\n' || character === '\r';
/** What String.prototype.trim removes (the parser trims the reply), BOM included. */
const isAnyWhitespace = (character: string) => /\s/.test(character);

/**
 * `reading-opening` until the opening is decided; `answer` while inside the answer string; `closed` after
 * its closing quote; `silent` when the reply is not (or no longer) a well-formed final answer.
 */
export type ExtractorState = 'reading-opening' | 'answer' | 'closed' | 'silent';

/** Feed it the reply's pieces in order; each call returns the answer text those pieces completed. */
export class FinalAnswerExtractor {
	private currentState: ExtractorState = 'reading-opening';
	/** The reply's text while the opening is undecided. */
	private undecided = '';
	/** Set once a leading `<think>` block is known to be closed (or known to be absent). */
	private reasoningDone = false;
	/** An escape sequence split across pieces: "\" or "\u12". */
	private escape = '';

	get state(): ExtractorState {
		return this.currentState;
	}

	/** The decoded answer text that `piece` completes; '' while undecided, silent or closed. */
	push(piece: string): string {
		if (this.currentState === 'answer') return this.decode(piece);
		if (this.currentState !== 'reading-opening') return '';
		this.undecided += piece;
		if (!this.reasoningDone && !this.skipReasoning()) return '';
		const end = matchOpening(this.undecided);
		if (end === PARTIAL) {
			if (this.undecided.length > MAX_OPENING_LENGTH) this.fallSilent();
			return '';
		}
		if (end === MISMATCH) {
			this.fallSilent();
			return '';
		}
		const rest = this.undecided.slice(end);
		this.undecided = '';
		this.currentState = 'answer';
		return this.decode(rest);
	}

	/**
	 * Drops a leading BOM, whitespace and `<think>` block from the undecided text; false while the block
	 * (or whether there is one) is still open. The search resumes near where it stopped, so a long
	 * reasoning block costs linear time.
	 */
	private skipReasoning(): boolean {
		let start = 0;
		while (start < this.undecided.length && isAnyWhitespace(this.undecided[start])) start++;
		const head = this.undecided.slice(start, start + THINK_OPEN.length);
		if (head.length < THINK_OPEN.length && THINK_OPEN.startsWith(head)) return false;
		if (head !== THINK_OPEN) {
			this.reasoningDone = true;
			return true;
		}
		const close = this.undecided.indexOf(THINK_CLOSE, start + THINK_OPEN.length);
		if (close === -1) {
			// Keep only what a closing tag split across pieces needs, after the opening tag.
			const keep = Math.max(start + THINK_OPEN.length, this.undecided.length - THINK_CLOSE.length);
			this.undecided = THINK_OPEN + this.undecided.slice(keep);
			return false;
		}
		this.undecided = this.undecided.slice(close + THINK_CLOSE.length);
		this.reasoningDone = true;
		return true;
	}

	private fallSilent(): void {
		this.currentState = 'silent';
		this.undecided = '';
	}

	/** Decodes the answer string's characters up to its closing quote; an invalid string makes it fall silent. */
	private decode(text: string): string {
		let decoded = '';
		let runStart = 0;
		for (let index = 0; index < text.length; index++) {
			const character = text[index];
			if (this.escape !== '') {
				this.escape += character;
				const value = this.finishEscape();
				if (value === undefined) continue;
				if (value === null) {
					this.fallSilent();
					return decoded;
				}
				decoded += value;
				runStart = index + 1;
				continue;
			}
			if (character === '\\') {
				decoded += text.slice(runStart, index);
				this.escape = '\\';
				continue;
			}
			if (character === '"') {
				decoded += text.slice(runStart, index);
				this.currentState = 'closed';
				return decoded;
			}
			if (character < ' ') {
				// A raw control character is not valid inside a JSON string: the reply will not parse.
				decoded += text.slice(runStart, index);
				this.fallSilent();
				return decoded;
			}
		}
		if (this.escape === '') decoded += text.slice(runStart);
		return decoded;
	}

	/** The escape's value once complete; undefined while it needs more characters; null when invalid. */
	private finishEscape(): string | null | undefined {
		const kind = this.escape[1];
		if (kind !== 'u') {
			this.escape = '';
			return SIMPLE_ESCAPES[kind] ?? null;
		}
		if (this.escape.length < 6) return undefined;
		const hex = this.escape.slice(2);
		this.escape = '';
		return /^[0-9a-fA-F]{4}$/.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : null;
	}
}

/**
 * Where the answer string starts in `text` (after the reasoning block), or PARTIAL / MISMATCH. Accepts
 * what `parseTurn` accepts before the object: whitespace and one fence line, whatever its language tag.
 */
function matchOpening(text: string): number {
	let at = skip(text, 0, isAnyWhitespace);
	if (at < text.length && text[at] === '`') {
		at = literal(text, at, '```');
		if (at < 0) return at;
		// Any language tag, as unfence (reply-fence.ts) accepts it: the rest of the fence line, without a backtick or a brace.
		at = skip(text, at, (character) => character === '`');
		at = skip(
			text,
			at,
			(character) => character !== '\n' && character !== '`' && character !== '{',
		);
		at = literal(text, at, '\n');
		if (at < 0) return at;
		at = skip(text, at, isAnyWhitespace);
	}
	for (const token of OPENING_TOKENS) {
		if (token !== '{') at = skip(text, at, isJsonWhitespace);
		at = literal(text, at, token);
		if (at < 0) return at;
	}
	return at;
}

function skip(text: string, at: number, matches: (character: string) => boolean): number {
	while (at < text.length && matches(text[at])) at++;
	return at;
}

/** The index after `expected` at `at`; PARTIAL when the text ends inside it, MISMATCH when it differs. */
function literal(text: string, at: number, expected: string): number {
	for (let offset = 0; offset < expected.length; offset++) {
		if (at + offset >= text.length) return PARTIAL;
		if (text[at + offset] !== expected[offset]) return MISMATCH;
	}
	return at + expected.length;
}
