/**
 * Card numbers (Luhn-checked) and IBANs (ISO 13616 mod-97-checked): a number that fails its checksum is not one.
 * Each is found by one pass over the text with a bounded look at each candidate, never a backtracking pattern.
 */
import type { Span } from '../core/spans';
import { isAsciiLetter, isDigit, isWordCharacter as isAlphanumeric } from './characters';

/** The Luhn check over a string of digits. */
export function passesLuhn(digits: string): boolean {
	let sum = 0;
	for (let index = 0; index < digits.length; index += 1) {
		let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
		if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
		sum += digit;
	}
	return sum % 10 === 0;
}

/** Whether `text[at]` is a point or comma between digits (`3.14159…`, `1,000`): the digits are part of a number. */
const inDecimal = (text: string, at: number) =>
	(text[at] === '.' || text[at] === ',') && isDigit(text[at - 1]) && isDigit(text[at + 1]);

/** A group of digits in a run: where it starts and ends. */
interface Group {
	start: number;
	end: number;
}

/**
 * Card numbers: 13–19 digits, in groups apart by one space or one dash, Luhn-valid, not inside a longer word or
 * number. A run of groups may hold a card among other numbers (`4111 1111 1111 1111 2025`): from each group, the
 * longest run of following groups of 13–19 digits that passes Luhn is one.
 */
export function findCardNumbers(text: string): Span[] {
	const found: Span[] = [];
	// Groups of digits apart by single separators: linear, as a separator can never be read as a digit.
	const runs = /\d+(?:[ -]\d+)*/g;
	for (let run = runs.exec(text); run; run = runs.exec(text)) {
		const start = run.index;
		const end = start + run[0].length;
		if (run[0].length < 13 || isAlphanumeric(text[start - 1]) || inDecimal(text, start - 1))
			continue;
		if (isAlphanumeric(text[end]) || inDecimal(text, end)) continue;
		const groups: Group[] = [];
		for (const group of run[0].matchAll(/\d+/g))
			groups.push({ start: start + group.index, end: start + group.index + group[0].length });
		cardsInGroups(text, groups, found);
	}
	return found;
}

function cardsInGroups(text: string, groups: readonly Group[], found: Span[]): void {
	for (let first = 0; first < groups.length; first += 1) {
		let digits = '';
		let card: Span | undefined;
		for (let last = first; last < groups.length; last += 1) {
			digits += text.slice(groups[last].start, groups[last].end);
			if (digits.length > 19) break;
			if (digits.length >= 13 && passesLuhn(digits))
				card = { start: groups[first].start, end: groups[last].end };
		}
		if (card === undefined) continue;
		found.push(card);
		while (first + 1 < groups.length && groups[first + 1].start < card.end) first += 1;
	}
}

/** ISO 13616: the IBAN with its first four characters moved to the end, letters as 10–35, is 1 modulo 97. */
export function passesMod97(iban: string): boolean {
	const moved = iban.slice(4) + iban.slice(0, 4);
	let remainder = 0;
	for (const character of moved) {
		const value = parseInt(character, 36);
		remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
	}
	return remainder === 1;
}

const isAsciiAlphanumeric = (character: string | undefined) =>
	isAsciiLetter(character) || isDigit(character);

/** The shortest IBAN (Norway) and the longest the standard allows. */
const MIN_IBAN = 15;
const MAX_IBAN = 34;

/**
 * IBANs: two letters, two check digits, then up to 30 letters or digits, written together or in groups of four
 * apart by one space; either case. The longest reading that passes mod 97 is the match (a grouped IBAN may be
 * followed by a word of four letters, which the reading tries with and without).
 */
export function findIbans(text: string): Span[] {
	const found: Span[] = [];
	const openings = /[A-Za-z]{2}\d{2}/g;
	for (let opening = openings.exec(text); opening; opening = openings.exec(text)) {
		if (isAlphanumeric(text[opening.index - 1])) {
			openings.lastIndex = opening.index + 1;
			continue;
		}
		const iban = ibanAt(text, opening.index);
		openings.lastIndex = iban === undefined ? opening.index + 1 : iban.end;
		if (iban !== undefined) found.push(iban);
	}
	return found;
}

function ibanAt(text: string, start: number): Span | undefined {
	let compact = '';
	let position = start;
	let inGroup = 0;
	/** Readings that may end here: the compact characters so far and where they end in the text. */
	const ends: { length: number; end: number }[] = [];
	while (compact.length < MAX_IBAN + 1) {
		const character = text[position];
		if (isAsciiAlphanumeric(character)) {
			compact += character.toUpperCase();
			position += 1;
			inGroup += 1;
			continue;
		}
		if (!isAlphanumeric(character)) ends.push({ length: compact.length, end: position });
		if (character === ' ' && inGroup === 4 && isAsciiAlphanumeric(text[position + 1])) {
			position += 1;
			inGroup = 0;
			continue;
		}
		break;
	}
	for (let index = ends.length - 1; index >= 0; index -= 1) {
		const { length, end } = ends[index];
		if (length >= MIN_IBAN && length <= MAX_IBAN && passesMod97(compact.slice(0, length)))
			return { start, end };
	}
	return undefined;
}
