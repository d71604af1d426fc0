/**
 * The `keywords` check: whole words or phrases, case-insensitive, word boundaries as Unicode reads them (letters,
 * marks, digits and connectors of any script make words). The text is read once as a list of words, and each word
 * walks a tree of the keywords' words: the work is the text's words × the longest keyword's words, whatever the
 * number of keywords (no regular expression built from them).
 */
import type { Span } from '../core/spans';

const WORD = /[\p{L}\p{M}\p{N}\p{Pc}]+/gu;
/** What may stand between two words of one phrase: spaces, or one hyphen. */
const PHRASE_GAP = /^(?:\s+|\s*-\s*)$/;

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

/** Each keyword found as whole words; where keywords overlap, the longest from each start. */
export function findKeywords(text: string, tree: WordNode): Span[] {
	// Lower-casing keeps the length of almost all text; where it does not (`İ`), positions are read word by word.
	const lower = text.toLowerCase();
	const words: { word: string; start: number; end: number }[] = [];
	if (lower.length === text.length)
		for (const match of lower.matchAll(WORD))
			words.push({
				word: match[0].normalize('NFC'),
				start: match.index,
				end: match.index + match[0].length,
			});
	else
		for (const match of text.matchAll(WORD))
			words.push({
				word: match[0].toLowerCase().normalize('NFC'),
				start: match.index,
				end: match.index + match[0].length,
			});
	const found: Span[] = [];
	for (let first = 0; first < words.length; first += 1) {
		let node = tree.next.get(words[first].word);
		let end = -1;
		for (let index = first; node !== undefined; ) {
			if (node.ends) end = words[index].end;
			index += 1;
			if (index >= words.length) break;
			if (!PHRASE_GAP.test(text.slice(words[index - 1].end, words[index].start))) break;
			node = node.next.get(words[index].word);
		}
		if (end >= 0) found.push({ start: words[first].start, end });
	}
	return found;
}
