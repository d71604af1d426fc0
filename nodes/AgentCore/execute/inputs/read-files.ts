// Version 2's input files: the item's binary properties (Options → Binary Properties) read into the run's `files`.
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import {
	readStreamBounded,
	SETTINGS,
	shownFileName,
	type AgentConfig,
	type RunAgentOptions,
} from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';

type FileInput = NonNullable<RunAgentOptions['files']>[number];

/** Options → Binary Properties as the error and its fix name it. */
const FIELD = 'Options → Binary Properties';

/** The names Binary Properties lists, in order and each once; none = all of the item's binary properties. */
export function chosenProperties(value: unknown, binary: Record<string, IBinaryData>): string[] {
	const named = String(value ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	return named.length ? [...new Set(named)] : Object.keys(binary);
}

const PRETTY_UNITS: Record<string, number> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 };

/**
 * The fewest bytes a binary can hold, from what n8n says of it without reading it: `bytes` (n8n 2.x) and the
 * base64 text of an item held in memory are exact; the `fileSize` n8n shows ("1.07 GB": pretty-bytes, three
 * significant digits, powers of 1000) gives a bound, less half its last digit. Undefined when n8n says nothing.
 */
export function leastBytes(binary: IBinaryData): { bytes: number; exact: boolean } | undefined {
	if (typeof binary.bytes === 'number' && Number.isFinite(binary.bytes))
		return { bytes: binary.bytes, exact: true };
	if (!binary.id && typeof binary.data === 'string' && binary.data !== '') {
		const padding = binary.data.endsWith('==') ? 2 : binary.data.endsWith('=') ? 1 : 0;
		return { bytes: Math.floor((binary.data.length * 3) / 4) - padding, exact: true };
	}
	const match = /^([\d.]+)\s*(B|kB|MB|GB|TB)$/.exec(String(binary.fileSize ?? '').trim());
	if (!match) return undefined;
	const [, digits, unit] = match;
	const decimals = digits.split('.')[1]?.length ?? 0;
	const bytes = Math.max(0, (Number(digits) - 0.5 * 10 ** -decimals) * PRETTY_UNITS[unit]);
	return { bytes, exact: false };
}

/** A binary property as an error names it: its key and file name, shown safely (shownFileName). */
const shownBinary = (key: string, binary: IBinaryData): string =>
	`binary property "${shownFileName(key)}" ("${shownFileName(binary.fileName ?? key)}")`;

const inMebibytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** A limit of the settings table: the item's config (set from a config in the library and CLI) or its default. */
const limitOf = (config: Partial<AgentConfig>, key: 'max_file_bytes' | 'max_files_bytes') =>
	(config[key] as number | undefined) ?? SETTINGS[key].default;

/**
 * The item's chosen binary properties as the run's files, in order: name and declared type from n8n, the
 * bytes from n8n's binary data service (filesystem, database and S3 modes alike). A named property the item
 * lacks is an error naming it and those it has; a file n8n already knows to be over max_file_bytes (or files
 * over max_files_bytes together) is refused before its bytes are read. The engine checks the rest.
 */
export async function readItemFiles(
	context: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	config: Partial<AgentConfig>,
): Promise<FileInput[]> {
	const binary = context.getInputData()[itemIndex]?.binary ?? {};
	const keys = chosenProperties(options.binaryProperties, binary);
	const missing = keys.filter((key) => !Object.hasOwn(binary, key));
	if (missing.length) {
		const has = Object.keys(binary);
		throw nodeError(
			context,
			`${FIELD} names ${missing.map((key) => `"${shownFileName(key)}"`).join(', ')}, which this item's binary data does not have`,
			itemIndex,
			has.length
				? `The item's binary properties are: ${has.join(', ')}. Name those in ${FIELD}, or leave it empty to send them all.`
				: `The item has no binary data: empty ${FIELD}, or pass the file to this node in the item's binary.`,
		);
	}
	const maxFile = limitOf(config, 'max_file_bytes');
	let total = 0;
	for (const key of keys) {
		const { bytes, exact } = leastBytes(binary[key]) ?? { bytes: 0, exact: true };
		total += bytes;
		if (bytes > maxFile)
			throw nodeError(
				context,
				`${shownBinary(key, binary[key])} is ${exact ? '' : 'at least '}` +
					`${inMebibytes(bytes)}, over the largest file a run takes (${inMebibytes(maxFile)}, max_file_bytes)`,
				itemIndex,
				`Send a smaller file, or leave this property out with ${FIELD}.`,
			);
	}
	const maxTotal = limitOf(config, 'max_files_bytes');
	if (total > maxTotal)
		throw nodeError(
			context,
			`The item's binary properties ${keys.join(', ')} hold at least ${inMebibytes(total)} together, ` +
				`over what a run takes (${inMebibytes(maxTotal)}, max_files_bytes)`,
			itemIndex,
			`Send fewer or smaller files, or choose some with ${FIELD}.`,
		);
	const files: FileInput[] = [];
	for (const key of keys) {
		const { fileName, mimeType } = binary[key];
		files.push({
			...(fileName !== undefined ? { name: fileName } : {}),
			...(mimeType ? { mimeType } : {}),
			data: await readBinary(context, itemIndex, key, maxFile),
			label: `binary property "${key}"`,
		});
	}
	return files;
}

/**
 * A binary's bytes. One held by n8n's binary data service (an id: filesystem, database, S3) is read as a stream,
 * at most max_file_bytes + 1 bytes whatever its metadata says (readStreamBounded), so a file that grew, or one on
 * disk that is not what n8n wrote, is refused before it is read whole; one in the item is base64 of a known size.
 */
async function readBinary(
	context: IExecuteFunctions,
	itemIndex: number,
	key: string,
	maxFile: number,
): Promise<Uint8Array> {
	const binary = context.getInputData()[itemIndex].binary![key];
	if (!binary.id) return await context.helpers.getBinaryDataBuffer(itemIndex, key);
	const read = await readStreamBounded(await context.helpers.getBinaryStream(binary.id), maxFile);
	if (read.ok) return read.bytes;
	throw nodeError(
		context,
		`${shownBinary(key, binary)} is ` +
			(read.over
				? `over the largest file a run takes (${inMebibytes(maxFile)}, max_file_bytes)`
				: `unreadable: ${read.problem}`),
		itemIndex,
		`Send a smaller file, or leave this property out with ${FIELD}.`,
	);
}
