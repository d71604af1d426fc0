/**
 * A file's type read from its bytes (magic numbers), never from its name or declared MIME type: a `.png` that is
 * an executable or an HTML page is what its bytes say it is. Signatures: PNG (ISO/IEC 15948 §5.2), JPEG (SOI
 * FF D8 FF), GIF ("GIF87a"/"GIF89a"), WebP (RIFF….WEBP, RFC 9649 §2), PDF ("%PDF-", ISO 32000-1 §7.5.2), and
 * the executables and archives that must never pass for either.
 */
import { isUtf8 } from 'node:buffer';
import { markupKind } from './markup';
import type { FileKind } from './run-file';

/** What the bytes are: a type a model can take (with its kind), or a named thing that is refused. */
export type Sniffed =
	| { ok: true; type: string; kind: FileKind }
	| { ok: false; what: string; hint?: string };

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0): boolean =>
	bytes.length >= at + signature.length &&
	signature.every((byte, index) => bytes[at + index] === byte);
const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

const IMAGES: ReadonlyArray<[string, (bytes: Uint8Array) => boolean]> = [
	['image/png', (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
	['image/jpeg', (b) => startsWith(b, [0xff, 0xd8, 0xff])],
	['image/gif', (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a'))],
	['image/webp', (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)],
];

/** Binaries that are refused by name, so the error says what the bytes really are. */
const REFUSED: ReadonlyArray<[string, (bytes: Uint8Array) => boolean, string?]> = [
	['an ELF executable', (b) => startsWith(b, [0x7f, 0x45, 0x4c, 0x46])],
	['a Windows executable', (b) => startsWith(b, ascii('MZ'))],
	[
		'a Mach-O executable',
		(b) =>
			[0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].some(
				(magic) => b.length >= 4 && new DataView(b.buffer, b.byteOffset, 4).getUint32(0) === magic,
			),
	],
	[
		'a ZIP archive',
		(b) => startsWith(b, ascii('PK\x03\x04')) || startsWith(b, ascii('PK\x05\x06')),
		'Word, Excel and other Office files are ZIP archives: export them as PDF or CSV',
	],
	['a gzip archive', (b) => startsWith(b, [0x1f, 0x8b])],
	['a BMP image', (b) => startsWith(b, ascii('BM'))],
	['a TIFF image', (b) => startsWith(b, ascii('II*\x00')) || startsWith(b, ascii('MM\x00*'))],
	[
		'an ISO media file (HEIC, AVIF or MP4)',
		(b) => startsWith(b, ascii('ftyp'), 4),
		'convert an image to PNG or JPEG',
	],
];

/** Text types that go to the model as text, by declared type or by the name's extension. */
const TEXT_TYPES: Readonly<Record<string, string>> = {
	txt: 'text/plain',
	text: 'text/plain',
	log: 'text/plain',
	md: 'text/markdown',
	markdown: 'text/markdown',
	csv: 'text/csv',
	tsv: 'text/tab-separated-values',
	json: 'application/json',
	jsonl: 'application/jsonl',
	ndjson: 'application/x-ndjson',
};
const TEXT_MIME =
	/^(text\/(?!html\b)[\w.+-]+|application\/(json|x-ndjson|jsonl|csv)|[\w.+-]+\/[\w.+-]+\+json)$/i;

/** The bytes hold UTF-8 text: valid UTF-8 with no NUL and no control character but tab, line feed, form feed and carriage return. */
function isPlainText(bytes: Uint8Array): boolean {
	for (let index = 0; index < bytes.length; index++) {
		const byte = bytes[index];
		if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d)
			return false;
		if (byte === 0x7f) return false;
	}
	return isUtf8(bytes);
}

/** The text type for a file whose bytes are text: from its declared type when that is text, else its extension. */
function textType(name: string, declared?: string): string | undefined {
	const mime = declared?.split(';')[0].trim().toLowerCase();
	if (mime && TEXT_MIME.test(mime)) return mime;
	const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
	if (extension && TEXT_TYPES[extension]) return TEXT_TYPES[extension];
	if (!mime || mime === 'application/octet-stream') return 'text/plain';
	return undefined;
}

/** What `bytes` are; `name` and `declared` only choose among text types once the bytes are known to be text. */
export function sniffType(bytes: Uint8Array, name: string, declared?: string): Sniffed {
	for (const [type, matches] of IMAGES)
		if (matches(bytes)) return { ok: true, type, kind: 'image' };
	// A PDF may have bytes before its header (ISO 32000-1 §7.5.2 allows a reader to find it within the first 1024).
	const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
	if (head.startsWith('%PDF-')) return { ok: true, type: 'application/pdf', kind: 'pdf' };
	for (const [what, matches, hint] of REFUSED) if (matches(bytes)) return { ok: false, what, hint };
	if (head.includes('%PDF-'))
		return {
			ok: false,
			what: 'a PDF with bytes before its header',
			hint: 'save it again from a PDF reader',
		};
	if (!isPlainText(bytes)) return { ok: false, what: 'binary data of an unknown type' };
	const markup = markupKind(bytes);
	if (markup === 'svg')
		return {
			ok: false,
			what: 'an SVG image',
			hint: 'SVG can carry script and no model reads it as an image: convert it to PNG',
		};
	if (markup === 'html')
		return { ok: false, what: 'an HTML page', hint: 'print the page to PDF, or copy its text' };
	if (markup === 'unclosed')
		return {
			ok: false,
			what: 'markup whose opening comment, doctype or <?…?> never closes',
			hint: 'send the text without it',
		};
	const type = textType(name, declared);
	if (!type)
		return {
			ok: false,
			what: `text, though it was declared ${declared}`,
			hint: 'declare it as text/plain',
		};
	return { ok: true, type, kind: 'text' };
}
