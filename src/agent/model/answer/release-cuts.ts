/**
 * Where streamed answer text may be cut so that redacting each piece gives what redacting the whole gives,
 * whatever text arrives later: it reads the text once, character by character, and names the safe cuts.
 *
 * A cut lies just after a whitespace character. Every rule of the Redactor (src/trace/redact.ts) that
 * matches no whitespace (API-key formats, JWTs, `name=value` parameters, known secrets spelled without
 * whitespace) then finds its match whole on one side of the cut. The rules that span whitespace are
 * tracked here, so that no cut falls inside one:
 * - an auth scheme word (`Bearer`, `Basic`, `Token`) and the token after its whitespace: no cut while the
 *   last word before the whitespace is such a word, however long the whitespace;
 * - a JSON field `"key" : "value"` (the Redactor blanks the values of secret-named keys, and only once the
 *   closing quote has arrived): no cut from a key's closing quote to its value's closing quote. Any quoted
 *   text counts as a key, whatever its name or spelling (escapes, case), and every quote starts a new
 *   candidate key, since the Redactor's search also starts at every quote;
 * - known secrets spelled with whitespace: checked by AnswerRelease against a window of text around the cut.
 * A new Redactor rule that matches across whitespace needs its state here.
 */

/** After a field's key: `key` (only whitespace so far) or `colon` (whitespace, one colon, whitespace). */
type AfterKey = 'none' | 'key' | 'colon';

const SCHEME_WORD = /(?:bearer|basic|token)$/i;
/** Longest scheme word: the last word is kept up to this many characters. */
const WORD_TAIL = 6;

export class ReleaseCuts {
	/** Inside a field's value string (opened after `"key":`), and whether the next character is escaped. */
	private inValue = false;
	private escaped = false;
	/** A quote was seen: the text since the last quote may be a key. */
	private keyOpen = false;
	private afterKey: AfterKey = 'none';
	/** The end of the last run of non-whitespace characters, and whether whitespace followed it. */
	private lastWord = '';
	private inWhitespace = false;

	/**
	 * Reads the next `text` of the answer (earlier text was read by earlier calls, in order), which starts at
	 * index `offset` of the caller's text, and calls `cut` with each index there at which it may be cut.
	 */
	read(text: string, offset: number, cut: (index: number) => void): void {
		for (let index = 0; index < text.length; index++) {
			const character = text[index];
			if (/\s/.test(character)) {
				this.inWhitespace = true;
				if (this.inValue) this.inValueCharacter(character);
				if (this.afterKey === 'none' && !this.inValue && !SCHEME_WORD.test(this.lastWord))
					cut(offset + index + 1);
				continue;
			}
			if (this.inWhitespace) {
				this.inWhitespace = false;
				this.lastWord = '';
			}
			this.lastWord = (this.lastWord + character).slice(-WORD_TAIL);
			if (character === '"') this.quote();
			else {
				if (this.inValue) this.inValueCharacter(character);
				if (this.afterKey === 'key' && character === ':') this.afterKey = 'colon';
				else this.afterKey = 'none';
			}
		}
	}

	private quote(): void {
		// The quote ends an open value unless escaped; the Redactor's value scan skips `\` and the next character.
		if (this.inValue) {
			if (this.escaped) this.escaped = false;
			else this.inValue = false;
		}
		// It opens a value after `"key":`; a value's opening quote cannot be escaped (it follows `:` or whitespace).
		if (this.afterKey === 'colon') {
			this.inValue = true;
			this.escaped = false;
		}
		// It closes the candidate key opened by the previous quote, and opens a new one.
		this.afterKey = this.keyOpen ? 'key' : 'none';
		this.keyOpen = true;
	}

	private inValueCharacter(character: string): void {
		if (this.escaped) this.escaped = false;
		else if (character === '\\') this.escaped = true;
	}
}
