/**
 * The markup a text file opens with, found the way browsers sniff it (WHATWG MIME Sniffing §7.1, "identifying a
 * resource with an unknown MIME type"): past a byte-order mark, whitespace, comments `<!-- … -->`, processing
 * instructions `<? … ?>` and a doctype, the first tag says what the file is — at any depth, never at a fixed
 * offset. The prolog is read twice, as an HTML parser ends its parts (a `<?…>` and a doctype at the first `>`,
 * a comment also at `--!>`) and as an XML parser does (`?>`, a doctype's quotes and internal subset), and markup
 * by either reading counts: a file cannot hide a tag from one parser behind what the other calls a comment.
 * Every search moves forward only, so a file of any length is read in linear time.
 */

/** What the bytes open with: an HTML page, an SVG image, a prolog that never closes, or no markup (text). */
export type Markup = 'html' | 'svg' | 'unclosed' | undefined;

/**
 * First tags that make a page rather than Markdown with inline HTML: the document's own elements, and those that
 * run, load or embed content. `<div>`, `<p>`, `<img>` or `<a>` first stay text (Markdown READMEs open with them).
 */
const PAGE_TAGS = new Set(
	(
		'html head body title meta link base style script noscript iframe frame frameset object embed ' +
		'applet form template'
	).split(' '),
);

type Parser = 'html' | 'xml';
const isSpace = (byte: number | undefined): boolean =>
	byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d;
const isLetter = (byte: number | undefined): boolean =>
	byte !== undefined && (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a;

/** Where a comment opened at `at` (`<!--`) ends, or -1 when it never does: one forward pass over its bytes. */
function commentEnd(bytes: Buffer, at: number, parser: Parser): number {
	const from = at + 4;
	// HTML's abruptly closed comments: `<!-->` and `<!--->`.
	if (parser === 'html' && bytes[from] === 0x3e) return from + 1;
	if (parser === 'html' && bytes[from] === 0x2d && bytes[from + 1] === 0x3e) return from + 2;
	for (let index = from; index < bytes.length - 2; index++) {
		if (bytes[index] !== 0x2d || bytes[index + 1] !== 0x2d) continue;
		if (bytes[index + 2] === 0x3e) return index + 3;
		if (parser === 'html' && bytes[index + 2] === 0x21 && bytes[index + 3] === 0x3e)
			return index + 4;
	}
	return -1;
}

/** Where a doctype opened at `at` ends for an XML parser: past quoted literals and a `[ … ]` internal subset. */
function xmlDoctypeEnd(bytes: Buffer, at: number): number {
	let quote = 0;
	let subset = false;
	for (let index = at + 2; index < bytes.length; index++) {
		const byte = bytes[index];
		if (quote) {
			if (byte === quote) quote = 0;
		} else if (byte === 0x22 || byte === 0x27) quote = byte;
		else if (byte === 0x5b) subset = true;
		else if (byte === 0x5d) subset = false;
		else if (byte === 0x3e && !subset) return index + 1;
	}
	return -1;
}

/** The lowercase name of the tag or doctype at `at` (letters, digits, `-`, `:`, `.`, `_`; at most 64). */
function nameAt(bytes: Buffer, at: number): string {
	let end = at;
	while (end < bytes.length && end - at < 64 && /[\w:.-]/.test(String.fromCharCode(bytes[end])))
		end++;
	return bytes.toString('latin1', at, end).toLowerCase();
}

/** A tag's name says HTML or SVG (`svg:svg` is an SVG too), or neither. */
function tagKind(name: string): Markup {
	const local = name.slice(name.lastIndexOf(':') + 1);
	if (local === 'svg') return 'svg';
	return PAGE_TAGS.has(name) ? 'html' : undefined;
}

/** The markup the bytes open with, as one parser ends the prolog's parts. */
function readAs(bytes: Buffer, parser: Parser): Markup {
	let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
	for (;;) {
		while (isSpace(bytes[at])) at++;
		if (bytes[at] !== 0x3c) return undefined;
		const next = bytes[at + 1];
		let end: number;
		if (next === 0x21 && bytes[at + 2] === 0x2d && bytes[at + 3] === 0x2d) {
			end = commentEnd(bytes, at, parser);
		} else if (next === 0x21 && nameAt(bytes, at + 2) === 'doctype') {
			let name = at + 9;
			while (isSpace(bytes[name])) name++;
			const kind = tagKind(nameAt(bytes, name));
			if (kind) return kind;
			end = parser === 'html' ? bytes.indexOf(0x3e, at) + 1 || -1 : xmlDoctypeEnd(bytes, at);
		} else if (next === 0x3f) {
			end = parser === 'html' ? bytes.indexOf(0x3e, at) + 1 || -1 : bytes.indexOf('?>', at + 2);
			if (parser === 'xml' && end >= 0) end += 2;
		} else if (isLetter(next)) {
			return tagKind(nameAt(bytes, at + 1));
		} else return undefined;
		if (end < 0) return 'unclosed';
		at = end;
	}
}

/** The markup `bytes` (already known to be UTF-8 text) open with: HTML, SVG, a prolog that never closes, or none. */
export function markupKind(bytes: Uint8Array): Markup {
	const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const html = readAs(buffer, 'html');
	if (html === 'html' || html === 'svg') return html;
	return readAs(buffer, 'xml') ?? html;
}
