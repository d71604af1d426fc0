// Markup found the way browsers sniff it, past comments, processing instructions and a doctype (issue #48).
import { sniffType } from '../../src/files';

const licence = `<!--\n${'Licensed under the Apache License, Version 2.0. '.repeat(40)}\n-->\n`;

describe('markup past comments, instructions and a doctype is refused', () => {
	it.each([
		[
			'an HTML page saved by a browser, named invoice.png',
			'<!-- saved from url=(0022)https://example.com/ -->\n<html><body>Pay</body></html>',
			'an HTML page',
		],
		[
			'an SVG after a licence comment over 1 KB',
			`${licence}<svg viewBox="0 0 1 1"/>`,
			'an SVG image',
		],
		[
			'an XML declaration, then an SVG',
			'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>',
			'an SVG image',
		],
		['a doctype, then html', '<!DOCTYPE html>\n<html lang="en"></html>', 'an HTML page'],
		['a doctype alone names html', '<!doctype HTML>\nhello', 'an HTML page'],
		[
			'an SVG doctype with an internal subset holding ">"',
			'<!DOCTYPE svg [ <!ENTITY e "a>b"> ]>\n<svg/>',
			'an SVG image',
		],
		[
			'an SVG behind an XML instruction holding ">"',
			'<?xml-stylesheet href="a>b"?><svg/>',
			'an SVG image',
		],
		[
			'a script after a comment HTML ends at --!>',
			'<!-- x --!><script>alert(1)</script> -->',
			'an HTML page',
		],
		[
			'a prefixed SVG root',
			`<?xml version="1.0"?>${licence}<svg:svg xmlns:svg="x"/>`,
			'an SVG image',
		],
		[
			'HTML after comments, a BOM and blank lines',
			'\ufeff\n\n<!-- a --><!-- b -->\r\n\t<HEAD><title>x</title></HEAD>',
			'an HTML page',
		],
		['a comment that never closes', '<!-- everything after this is hidden\n<svg/>', 'markup whose'],
	])('%s', (_, text, what) => {
		const sniffed = sniffType(Buffer.from(text), 'invoice.png', 'image/png');
		expect(sniffed).toMatchObject({ ok: false });
		expect((sniffed as { what: string }).what).toContain(what);
	});
});

describe('text that merely holds markup stays text', () => {
	it.each([
		[
			'a "<" later in the text',
			'if a < b then <b>bold</b>\n<svg viewBox="0 0 1 1"> in prose',
			'notes.txt',
		],
		['Markdown that opens with a comment', '<!-- template -->\n# Title\n<svg/>', 'README.md'],
		[
			'Markdown that opens with inline HTML',
			'<div align="center"><img src="x.png"></div>\n# T',
			'README.md',
		],
		['an XML document of another kind', '<?xml version="1.0"?>\n<order id="1"/>', 'order.xml'],
		['a lone "<"', '<', 'a.txt'],
	])('%s', (_, text, name) => {
		expect(sniffType(Buffer.from(text), name)).toMatchObject({ ok: true, kind: 'text' });
	});
});

describe('pathological inputs are read in one pass', () => {
	const big = 20 * 1024 * 1024;
	const repeated = (piece: string) => Buffer.from(piece.repeat(Math.ceil(big / piece.length)));
	it('20 MB of "<!--" that never ends is refused', () => {
		const bytes = repeated('<!--');
		expect(sniffType(bytes, 'a.txt')).toMatchObject({
			ok: false,
			what: expect.stringContaining('never closes'),
		});
	});
	it('20 MB of empty comments, then an SVG, is an SVG', () => {
		const bytes = Buffer.concat([repeated('<!---->'), Buffer.from('<svg/>')]);
		expect(sniffType(bytes, 'a.txt')).toMatchObject({ ok: false, what: 'an SVG image' });
	});
	it('20 MB of "<?" and "--" pieces that never close are refused', () => {
		const bytes = Buffer.concat([Buffer.from('<?'), repeated('-- ?-')]);
		expect(sniffType(bytes, 'a.txt')).toMatchObject({
			ok: false,
			what: expect.stringContaining('never closes'),
		});
	});
	it('20 MB of comments each holding "--" then text stays text', () => {
		const bytes = Buffer.concat([repeated('<!-- -- - -->'), Buffer.from('plain')]);
		expect(sniffType(bytes, 'a.txt')).toMatchObject({ ok: true, kind: 'text' });
	});
});
