// The binary data of items a tool returned (a sub-workflow's output) as files for the model (issue #40).
import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { readStreamBounded, shownFileName, WithFiles } from '../../../../src/run-path';

type FileInput = WithFiles['files'][number];

/** Files one tool call may return; the rest are left out with a note. */
export const MAX_TOOL_BINARY_FILES = 20;
/** The largest binary a tool call may give (read no further); the engine's max_file_bytes applies after. */
export const MAX_TOOL_BINARY_BYTES = 20 * 1024 * 1024;

/** Declared types returned as files; the engine still reads the real type from the bytes. */
const FILE_TYPE = /^(image\/(png|jpeg|gif|webp)|application\/pdf)$/;

const size = (bytes: number) => `${bytes.toLocaleString('en-US')} bytes`;

/**
 * `observation` with the image and PDF binaries of `items` as files (a WithFiles), or `observation` as it is when
 * the items hold none. Each binary property of each item is one line after the observation: a file returned to the
 * model (`[file 1: image/png, 12,345 bytes, returned as a file] binary property "data" of item 1`) or why it is
 * not (another type, over MAX_TOOL_BINARY_BYTES, past MAX_TOOL_BINARY_FILES). Bytes come from n8n's binary data
 * service when the binary has an id (filesystem, database and S3 modes), read no further than the cap; an item
 * held in memory is checked by its base64 length before it is decoded.
 */
export async function withItemBinaries(
	context: IExecuteFunctions,
	items: readonly INodeExecutionData[],
	observation: unknown,
	source: string,
): Promise<unknown> {
	const lines: string[] = [];
	const files: FileInput[] = [];
	let leftOut = 0;
	for (const [itemIndex, item] of items.entries()) {
		for (const [property, binary] of Object.entries(item.binary ?? {})) {
			const where = `binary property "${shownFileName(property)}" of item ${itemIndex + 1}`;
			const mimeType = String(binary?.mimeType ?? '')
				.split(';')[0]
				.trim()
				.toLowerCase();
			if (!FILE_TYPE.test(mimeType)) {
				lines.push(`[${where} (${mimeType || 'no type'}): not an image or PDF, not shown]`);
				continue;
			}
			if (files.length >= MAX_TOOL_BINARY_FILES) {
				leftOut++;
				continue;
			}
			const data = await readBinary(context, binary);
			if (data === 'too_large') {
				lines.push(
					`[${where} (${mimeType}): over the ${size(MAX_TOOL_BINARY_BYTES)} a tool's file may have, left out]`,
				);
				continue;
			}
			if (data === undefined || data.length === 0) {
				lines.push(`[${where} (${mimeType}): its data could not be read, left out]`);
				continue;
			}
			const number = files.length + 1;
			files.push({
				...(binary.fileName ? { name: binary.fileName } : {}),
				mimeType,
				data,
				label: `${where} of ${source}'s result`,
			});
			lines.push(
				`[file ${number}: ${mimeType}, ${size(data.length)}, returned as a file] ${where}`,
			);
		}
	}
	if (leftOut > 0)
		lines.push(
			`[${leftOut} more images or PDFs left out: a tool call carries at most ${MAX_TOOL_BINARY_FILES} files]`,
		);
	if (lines.length === 0) return observation;
	const text = `${typeof observation === 'string' ? observation : JSON.stringify(observation)}\n${lines.join('\n')}`;
	return files.length > 0 ? new WithFiles(text, files) : text;
}

/** The bytes of a binary, at most MAX_TOOL_BINARY_BYTES of them ('too_large' past that), or undefined. */
async function readBinary(
	context: IExecuteFunctions,
	binary: IBinaryData,
): Promise<Uint8Array | 'too_large' | undefined> {
	if (typeof binary.bytes === 'number' && binary.bytes > MAX_TOOL_BINARY_BYTES) return 'too_large';
	if (binary.id) {
		const read = await readStreamBounded(
			await context.helpers.getBinaryStream(binary.id),
			MAX_TOOL_BINARY_BYTES,
		);
		return read.ok ? read.bytes : 'too_large';
	}
	if (typeof binary.data !== 'string') return undefined;
	if (binary.data.length > Math.ceil(MAX_TOOL_BINARY_BYTES / 3) * 4 + 4) return 'too_large';
	const bytes = Buffer.from(binary.data, 'base64');
	return bytes.length > MAX_TOOL_BINARY_BYTES ? 'too_large' : bytes;
}
