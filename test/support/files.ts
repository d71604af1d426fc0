// Small real files for the tests of issue #40: their bytes are built here, header by header, never read from disk.
import { createHash } from 'node:crypto';

/** A PNG of `width` × `height` with a valid signature and IHDR chunk (the pixels are not needed by anything read). */
export function png(width = 640, height = 480): Buffer {
	const ihdr = Buffer.alloc(25);
	ihdr.writeUInt32BE(13, 0);
	ihdr.write('IHDR', 4, 'latin1');
	ihdr.writeUInt32BE(width, 8);
	ihdr.writeUInt32BE(height, 12);
	ihdr.set([8, 6, 0, 0, 0], 16);
	const end = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
	return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, end]);
}

/** A JPEG whose SOF0 segment says `width` × `height`, after an APP0 segment. */
export function jpeg(width = 800, height = 600): Buffer {
	const app0 = Buffer.from([
		0xff,
		0xe0,
		0x00,
		0x10,
		...Buffer.from('JFIF\0'),
		1,
		1,
		0,
		0,
		1,
		0,
		1,
		0,
		0,
	]);
	const sof = Buffer.from([
		0xff,
		0xc0,
		0x00,
		0x11,
		8,
		height >> 8,
		height & 0xff,
		width >> 8,
		width & 0xff,
		3,
	]);
	return Buffer.concat([
		Buffer.from([0xff, 0xd8]),
		app0,
		sof,
		Buffer.alloc(9),
		Buffer.from([0xff, 0xd9]),
	]);
}

/** A PDF with `pages` page objects (enough structure for a page count; no reader renders it). */
export function pdf(pages = 2): Buffer {
	const kids = Array.from({ length: pages }, (_, index) => `${index + 3} 0 R`).join(' ');
	const objects = [
		'1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
		`2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
		...Array.from(
			{ length: pages },
			(_, index) => `${index + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj`,
		),
	];
	return Buffer.from(
		`%PDF-1.7\n${objects.join('\n')}\ntrailer << /Root 1 0 R >>\n%%EOF\n`,
		'latin1',
	);
}

export const sha256 = (bytes: Uint8Array): string =>
	createHash('sha256').update(bytes).digest('hex');
