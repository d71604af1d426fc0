// Ranges of a text found by a scan (a secret, a card number): merged and replaced by the one helper finders share.

/** The characters `[start, end)` of a text. */
export interface Span {
	start: number;
	end: number;
}

/** `spans` sorted by start, overlapping and touching ones joined; linear after the sort. */
export function mergeSpans<T extends Span>(spans: readonly T[]): Span[] {
	const sorted = [...spans].sort((left, right) => left.start - right.start || right.end - left.end);
	const merged: Span[] = [];
	for (const span of sorted) {
		const last = merged[merged.length - 1];
		if (last !== undefined && span.start <= last.end) last.end = Math.max(last.end, span.end);
		else merged.push({ start: span.start, end: span.end });
	}
	return merged;
}

/** `text` with each span replaced by `replacement`; the spans must be sorted and apart (mergeSpans' result). */
export function replaceSpans(text: string, spans: readonly Span[], replacement: string): string {
	if (spans.length === 0) return text;
	const pieces: string[] = [];
	let copiedUpTo = 0;
	for (const span of spans) {
		pieces.push(text.slice(copiedUpTo, span.start), replacement);
		copiedUpTo = span.end;
	}
	pieces.push(text.slice(copiedUpTo));
	return pieces.join('');
}
