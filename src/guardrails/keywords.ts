/**
 * The `keywords` check: whole words or phrases, case-insensitive, word boundaries as Unicode reads them (letters,
 * marks, digits and connectors of any script make words). The text is read once as a list of words, and each word
 * walks a tree of the keywords' words: the work is the text's words × the longest keyword's words, whatever the
 * number of keywords (no regular expression built from them).
 */
import type { Span } from '../core/spans';

const WORD = /[\p{L}\p{M}\p{N}\p{Pc}]+/gu;
/**
 * What may stand between two words of one phrase: up to 16 characters that are no word's (spaces, punctuation,
 * a line break), so `project falcon` is found as `Project-Falcon`, `project  falcon` and `project. Falcon`.
 */
const MAX_PHRASE_GAP = 16;

/** A node of the keywords' tree: the next words, and whether a keyword ends here. */
interface WordNode {
	next: Map<string, WordNode>;
	ends: boolean;
}

/** The words of a keyword (or of a text) as compared: lower case, in Unicode's canonical composition. */
export function keywordWords(text: string): string[] {
	return [...text.normalize('NFC').toLowerCase().matchAll(WORD)].map((match) => match[0]);
}

/** The keywords' tree, built once per guardrail. */
export function keywordTree(keywords: readonly string[]): WordNode {
	const root: WordNode = { next: new Map(), ends: false };
	for (const keyword of keywords) {
		let node = root;
		for (const word of keywordWords(keyword)) {
			let child = node.next.get(word);
			if (child === undefined) {
				child = { next: new Map(), ends: false };
				node.next.set(word, child);
			}
			node = child;
		}
		if (node !== root) node.ends = true;
	}
	return root;
}

/** Words of ASCII text: the same words as WORD finds there, without Unicode's tables. */
const ASCII_WORD = /[A-Za-z0-9_]+/g;

/** Each keyword found as whole words; where keywords overlap, the longest from each start. */
export function findKeywords(text: string, tree: WordNode): Span[] {
	// Lower-casing keeps the length of almost all text; where it does not (`İ`), each word is lowered alone.
	const lower = text.toLowerCase();
	const ascii = !/[^\x00-\x7f]/.test(text);
	const sameLength = lower.length === text.length;
	const source = sameLength ? lower : text;
	const word = (match: RegExpExecArray) =>
		ascii ? match[0] : (sameLength ? match[0] : match[0].toLowerCase()).normalize('NFC');
	const first = ascii ? new RegExp(ASCII_WORD.source, 'g') : new RegExp(WORD.source, 'gu');
	const following = ascii ? new RegExp(ASCII_WORD.source, 'g') : new RegExp(WORD.source, 'gu');
	const found: Span[] = [];
	for (let match = first.exec(source); match; match = first.exec(source)) {
		let node = tree.next.get(word(match));
		if (node === undefined) continue;
		let end = -1;
		let wordEnd = match.index + match[0].length;
		while (node !== undefined) {
			if (node.ends) end = wordEnd;
			if (node.next.size === 0) break;
			following.lastIndex = wordEnd;
			const next = following.exec(source);
			if (next === null || next.index - wordEnd > MAX_PHRASE_GAP) break;
			node = node.next.get(word(next));
			wordEnd = next.index + next[0].length;
		}
		if (end >= 0) found.push({ start: match.index, end });
	}
	return found;
}
