// Character tests the finders share, by code for ASCII (the hot path), by Unicode property beyond it.

const NON_ASCII_WORD = /^[\p{L}\p{M}\p{N}\p{Pc}]$/u;

/** A digit 0–9. */
export function isDigit(character: string | undefined): boolean {
	if (character === undefined) return false;
	const code = character.charCodeAt(0);
	return code >= 0x30 && code <= 0x39;
}

/** An ASCII letter. */
export function isAsciiLetter(character: string | undefined): boolean {
	if (character === undefined) return false;
	const code = character.charCodeAt(0) | 0x20;
	return code >= 0x61 && code <= 0x7a;
}

/** A letter, mark, digit or connector (`_`) of any script: a character of a word. */
export function isWordCharacter(character: string | undefined): boolean {
	if (character === undefined) return false;
	const code = character.charCodeAt(0);
	if (code < 0x80) return isDigit(character) || isAsciiLetter(character) || code === 0x5f;
	return NON_ASCII_WORD.test(character);
}
