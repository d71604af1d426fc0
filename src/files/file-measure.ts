/**
 * What a provider's token rule needs of a file, read from its header once when the run takes it: an image's
 * width and height, a PDF's page count. Every read is bounded by the file's length and never throws.
 */

export interface FileMeasure {
	width?: number;
	height?: number;
	pages?: number;
}

const u16be = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u16le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u24le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32be = (b: Uint8Array, at: number) =>
	((b[at] << 24) >>> 0) + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);

/** JPEG: the first start-of-frame segment (SOF0–SOF15 but DHT C4, JPG C8, DAC CC) holds height then width. */
function jpegSize(b: Uint8Array): FileMeasure {
	let at = 2;
	while (at + 9 < b.length) {
		if (b[at] !== 0xff) return {};
		const marker = b[at + 1];
		if (marker === 0xff) {
			at += 1; // fill byte
			continue;
		}
		if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
			return { height: u16be(b, at + 5), width: u16be(b, at + 7) };
		const length = u16be(b, at + 2);
		if (length < 2) return {};
		at += 2 + length;
	}
	return {};
}

/** WebP (RFC 9649): VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk. */
function webpSize(b: Uint8Array): FileMeasure {
	const chunk = String.fromCharCode(b[12], b[13], b[14], b[15]);
	if (chunk === 'VP8 ' && b.length >= 30)
		return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
	if (chunk === 'VP8L' && b.length >= 25) {
		const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
		return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
	}
	if (chunk === 'VP8X' && b.length >= 30)
		return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
	return {};
}

/**
 * A PDF's pages: the objects typed /Page (not /Pages), or the largest /Count of a page tree when that is more
 * (pages inside compressed object streams are not visible). Searched in the bytes, no copy of them made.
 */
function pdfPages(b: Uint8Array): FileMeasure {
	const buffer = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
	let pages = 0;
	for (let at = buffer.indexOf('/Type'); at !== -1; at = buffer.indexOf('/Type', at + 5)) {
		let next = at + 5;
		while (
			next < buffer.length &&
			(buffer[next] === 0x20 || buffer[next] === 0x0a || buffer[next] === 0x0d)
		)
			next++;
		if (buffer.toString('latin1', next, next + 6).startsWith('/Page') && buffer[next + 5] !== 0x73)
			pages++;
	}
	let count = 0;
	for (let at = buffer.indexOf('/Count'); at !== -1; at = buffer.indexOf('/Count', at + 6)) {
		const digits = /^\s*(\d{1,7})/.exec(buffer.toString('latin1', at + 6, at + 20));
		if (digits) count = Math.max(count, Number(digits[1]));
	}
	return { pages: Math.max(pages, count, 1) };
}

/** The measure of a file of `type` (as sniffType read it); {} when its header does not say. */
export function measureFile(b: Uint8Array, type: string): FileMeasure {
	switch (type) {
		case 'image/png':
			return b.length >= 24 ? { width: u32be(b, 16), height: u32be(b, 20) } : {};
		case 'image/gif':
			return b.length >= 10 ? { width: u16le(b, 6), height: u16le(b, 8) } : {};
		case 'image/jpeg':
			return jpegSize(b);
		case 'image/webp':
			return b.length >= 16 ? webpSize(b) : {};
		case 'application/pdf':
			return pdfPages(b);
		default:
			return {};
	}
}
