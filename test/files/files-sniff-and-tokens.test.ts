// A file's type from its bytes, its measure from its header, and its tokens by each provider's published rule (issue #40).
import { fileTokens, measureFile, RunFile, sniffType } from '../../src/files';
import { jpeg, pdf, png } from '../support/files';

const gif = (width: number, height: number) =>
	Buffer.concat([
		Buffer.from('GIF89a'),
		Buffer.from([width & 0xff, width >> 8, height & 0xff, height >> 8]),
		Buffer.alloc(20),
	]);
const webpLossless = (width: number, height: number) => {
	const bytes = Buffer.alloc(30);
	bytes.write('RIFF', 0, 'latin1');
	bytes.write('WEBPVP8L', 8, 'latin1');
	bytes[20] = 0x2f;
	bytes.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 21);
	return bytes;
};

describe('the type a file is, by its bytes', () => {
	it.each([
		['a PNG', png(), 'x.bin', undefined, 'image/png'],
		['a JPEG named .png', jpeg(), 'x.png', 'image/png', 'image/jpeg'],
		['a GIF', gif(10, 10), 'x', undefined, 'image/gif'],
		['a WebP', webpLossless(10, 10), 'x', undefined, 'image/webp'],
		['a PDF', pdf(), 'x', undefined, 'application/pdf'],
		['CSV by its extension', Buffer.from('a,b\n1,2\n'), 'orders.csv', undefined, 'text/csv'],
		[
			'JSON by its declared type',
			Buffer.from('{"a":1}'),
			'data',
			'application/json; charset=utf-8',
			'application/json',
		],
		[
			'Markdown with a byte-order mark',
			Buffer.from('\ufeff# Title\n'),
			'notes.md',
			undefined,
			'text/markdown',
		],
		['text without a name or type', Buffer.from('hello'), 'file-1', undefined, 'text/plain'],
	])('%s', (_, bytes, name, declared, type) => {
		expect(sniffType(bytes, name, declared)).toMatchObject({ ok: true, type });
	});

	it.each([
		[
			'a ZIP (an Office file)',
			Buffer.from('PK\x03\x04rest'),
			'a ZIP archive',
			'Word, Excel and other Office files',
		],
		[
			'a Windows executable',
			Buffer.concat([Buffer.from('MZ'), Buffer.alloc(60)]),
			'a Windows executable',
			undefined,
		],
		[
			'a PDF behind other bytes',
			Buffer.from('junk%PDF-1.7\n'),
			'a PDF with bytes before its header',
			undefined,
		],
		['invalid UTF-8', Buffer.from([0x68, 0xc3, 0x28]), 'binary data of an unknown type', undefined],
		['text with a NUL', Buffer.from('a\u0000b'), 'binary data of an unknown type', undefined],
		[
			'an SVG behind comments',
			Buffer.from('<!-- logo -->\n<svg viewBox="0 0 1 1"/>'),
			'an SVG image',
			'SVG can carry script',
		],
	])('refuses %s, naming what the bytes are', (_, bytes, what, hint) => {
		const sniffed = sniffType(bytes, 'x.png', 'image/png');
		expect(sniffed).toMatchObject({ ok: false, what });
		if (hint) expect((sniffed as { hint: string }).hint).toContain(hint);
	});

	it('refuses text declared as an image', () => {
		expect(sniffType(Buffer.from('hello'), 'x.png', 'image/png')).toMatchObject({
			ok: false,
			what: 'text, though it was declared image/png',
		});
	});
});

describe("a file's measure", () => {
	it.each([
		['PNG', png(1200, 800), 'image/png', { width: 1200, height: 800 }],
		['JPEG', jpeg(800, 600), 'image/jpeg', { width: 800, height: 600 }],
		['GIF', gif(320, 200), 'image/gif', { width: 320, height: 200 }],
		['WebP', webpLossless(4000, 3000), 'image/webp', { width: 4000, height: 3000 }],
		['PDF', pdf(7), 'application/pdf', { pages: 7 }],
	])('%s from its header', (_, bytes, type, measure) => {
		expect(measureFile(bytes, type)).toEqual(measure);
	});

	it('a truncated JPEG has no measure and does not throw', () => {
		expect(measureFile(jpeg().subarray(0, 12), 'image/jpeg')).toEqual({});
	});
});

describe('tokens of a file by provider', () => {
	const image = (width: number, height: number) =>
		RunFile.of('a.png', 'image/png', 'image', png(width, height));
	it("OpenAI's example: 1024×1024 at high detail is 765 tokens", () => {
		expect(fileTokens(image(1024, 1024), 'openai')).toBe(765);
		// 2048×4096 → 1024×2048 → 768×1536: 2×3 tiles.
		expect(fileTokens(image(2048, 4096), 'openai')).toBe(85 + 170 * 6);
	});
	it("Anthropic's rule: width × height / 750 after fitting 1568 px", () => {
		expect(fileTokens(image(1000, 1000), 'anthropic')).toBe(1334);
		expect(fileTokens(image(3136, 3136), 'langchain:anthropic')).toBe(
			Math.ceil((1568 * 1568) / 750),
		);
	});
	it("Gemini's rule: 258 up to 384 px, else 258 per 768-px tile; 258 per PDF page", () => {
		expect(fileTokens(image(300, 300), 'gemini')).toBe(258);
		expect(fileTokens(image(1024, 1024), 'gemini')).toBe(258 * 4);
		expect(fileTokens(RunFile.of('a.pdf', 'application/pdf', 'pdf', pdf(3)), 'gemini')).toBe(
			3 * 258,
		);
	});
});
