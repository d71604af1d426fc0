/** A reply that opens with a Markdown code fence: the one block's content, or the sentence naming what is wrong with the fences. */

/**
 * For a reply (trimmed) that starts with ```: `{ body }` when it is exactly one fenced block, whatever its
 * language tag (```json, ```python, none: realworld broken-JSON cases bj301, bj302, bj306), else `{ problem }`
 * naming what is wrong: the fence and the object on one line (bj305), a fence never closed (bj303), text after
 * the closing fence, or a second fence. Linear: a few indexOf scans, no backtracking pattern.
 */
export function unfence(text: string): { body: string } | { problem: string } {
	let ticks = 0;
	while (text.charCodeAt(ticks) === 0x60 /* ` */) ticks++;
	const fence = '`'.repeat(ticks);
	const openingEnd = text.indexOf('\n');
	const tag = openingEnd === -1 ? text.slice(ticks) : text.slice(ticks, openingEnd);
	if (openingEnd === -1 || tag.includes('`') || tag.includes('{')) {
		return {
			problem:
				'Your reply put the JSON object on the code fence line itself; send the object alone (a fence is not needed), or put each fence on a line of its own.',
		};
	}
	const lastLineStart = text.lastIndexOf('\n') + 1;
	const lastLine = text.slice(lastLineStart).trim();
	const closesAtEnd =
		lastLineStart > openingEnd && lastLine.length >= ticks && /^`+$/.test(lastLine);
	const body = text.slice(openingEnd + 1, closesAtEnd ? lastLineStart - 1 : text.length);
	const closing = closingFenceLine(body, fence);
	if (closesAtEnd && closing === -1) return { body };
	if (closing === -1)
		return { problem: `Your reply opened a code fence (${fence}) but never closed it.` };
	const after = body.slice(closing).replace(/^`+/, '');
	if (after.includes(fence) || closesAtEnd) {
		return {
			problem: 'Your reply held more than one code fence; send one object, in one fence or none.',
		};
	}
	return {
		problem: 'Your reply had text after the code fence. Do not write prose around the object.',
	};
}

/**
 * Where the first line that starts with `fence` (after spaces) begins in `body`, or -1. Looking back from each
 * fence only over spaces and tabs keeps it linear: no character is looked back over twice.
 */
function closingFenceLine(body: string, fence: string): number {
	for (let at = body.indexOf(fence); at !== -1; at = body.indexOf(fence, at + fence.length)) {
		let before = at - 1;
		while (before >= 0 && (body[before] === ' ' || body[before] === '\t')) before--;
		if (before < 0 || body[before] === '\n') return at;
	}
	return -1;
}
