// What the model reads of an MCP tool's result: its text and structured content, notes for everything else, capped.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FileInput } from '../../files';
import { TruncatedText, WithFiles } from '../tool';
import { fileNameFrom } from '../file-name';

/** Characters of a result kept before the engine's own cut to observation_max_len: a 10 MB answer costs no more than this downstream. */
export const MAX_MCP_RESULT_CHARACTERS = 1_000_000;

type ContentItem = CallToolResult['content'][number];

/**
 * The observation of a result: each text item as it is, other items as a short note (an image or audio is never
 * passed on as bytes, an embedded resource not as its text or blob, a resource link by its URI), then the structured
 * content as `structuredContent: <JSON>`. Over MAX_MCP_RESULT_CHARACTERS it is cut at its end (a TruncatedText, so the
 * engine also drops a secret the cut went through) after a first line that says so. A result with `isError` is
 * thrown: the model reads it as the tool's failure.
 */
export function renderCallResult(result: CallToolResult): string | TruncatedText {
	const parts = (Array.isArray(result.content) ? result.content : []).map(renderItem);
	if (result.structuredContent !== undefined)
		parts.push(`structuredContent: ${JSON.stringify(result.structuredContent)}`);
	const text = parts.length > 0 ? parts.join('\n') : '(the tool returned no content)';
	if (result.isError === true)
		throw new Error(`the tool reported an error: ${text.slice(0, MAX_MCP_RESULT_CHARACTERS)}`);
	if (text.length <= MAX_MCP_RESULT_CHARACTERS) return text;
	return new TruncatedText(
		`[the result was cut to its first ${MAX_MCP_RESULT_CHARACTERS} of ${text.length} characters]\n${text.slice(0, MAX_MCP_RESULT_CHARACTERS)}`,
	);
}

/** Files one result may carry; the rest are left out with a note (a hostile server's 1,000 images). */
export const MAX_MCP_RESULT_FILES = 20;
/** The largest file an MCP result may give (decoded); a longer base64 string is never decoded. */
export const MAX_MCP_FILE_BYTES = 20 * 1024 * 1024;
/** The longest base64 text that can decode to MAX_MCP_FILE_BYTES (padding and line breaks aside). */
const MAX_MCP_FILE_BASE64 = Math.ceil(MAX_MCP_FILE_BYTES / 3) * 4;

/** Declared types an MCP result may return as a file; the engine still reads the real type from the bytes. */
const PASSED_RESOURCE = /^(image\/[a-z0-9.+-]+|application\/pdf)$/i;

/**
 * The observation of a result for `source` (`<server>.<tool>`), with its images and its embedded image or PDF
 * resources as files (issue #40). The MCP schema (typescript-sdk types.ts) gives an image as ImageContent
 * `{type: "image", data: <base64>, mimeType}` and a binary resource as EmbeddedResource `{type: "resource",
 * resource: BlobResourceContents {uri, mimeType?, blob: <base64>}}`. Each file taken is a line
 * `[image 1: image/png, 12,345 bytes, returned as a file]` where the item was; audio, text resources and any other
 * type keep renderCallResult's note. Bounded before anything is decoded: at most MAX_MCP_RESULT_FILES files (the
 * rest one note), no base64 text longer than MAX_MCP_FILE_BYTES decodes to, and text that is not base64 is a note,
 * never a throw. Without a file among its items it is renderCallResult's answer; with none that could be taken,
 * the text alone. A result with `isError` is thrown, its files unread.
 */
export function observeCallResult(
	result: CallToolResult,
	source: string,
): string | TruncatedText | WithFiles {
	if (result.isError === true) return renderCallResult(result);
	const content = Array.isArray(result.content) ? result.content : [];
	const files: FileInput[] = [];
	let leftOut = 0;
	let candidates = 0;
	const parts: string[] = [];
	for (const item of content) {
		const candidate = fileCandidate(item);
		if (!candidate) {
			parts.push(renderItem(item));
			continue;
		}
		candidates++;
		if (files.length >= MAX_MCP_RESULT_FILES) {
			leftOut++;
			continue;
		}
		const what = candidate.kind === 'image' ? 'an image' : `resource ${candidate.uri}`;
		if (candidate.base64.length > MAX_MCP_FILE_BASE64) {
			parts.push(
				`[${what} (${candidate.mimeType}) of about ${grouped(approximateBytes(candidate.base64))} bytes, ` +
					`over the ${grouped(MAX_MCP_FILE_BYTES)} bytes a tool's file may have: left out]`,
			);
			continue;
		}
		const data = decodeBase64(candidate.base64);
		if (!data) {
			parts.push(`[${what} (${candidate.mimeType}) whose data is not valid base64: left out]`);
			continue;
		}
		const number = files.length + 1;
		const kind = candidate.kind === 'image' ? 'image' : 'resource';
		files.push({
			name:
				candidate.kind === 'image'
					? `image-${number}${extensionOf(candidate.mimeType)}`
					: fileNameFrom(
							candidate.uri ?? '',
							`resource-${number}${extensionOf(candidate.mimeType)}`,
						),
			mimeType: candidate.mimeType,
			data,
			label: `${kind} ${number} of ${source}'s result`,
		});
		parts.push(
			`[${kind} ${number}${candidate.uri ? ` ${candidate.uri}` : ''}: ${candidate.mimeType}, ${grouped(data.length)} bytes, returned as a file]`,
		);
	}
	if (leftOut > 0)
		parts.push(
			`[${leftOut} more ${leftOut === 1 ? 'image or document' : 'images or documents'} left out: a result carries at most ${MAX_MCP_RESULT_FILES} files]`,
		);
	if (candidates === 0) return renderCallResult(result);
	if (result.structuredContent !== undefined)
		parts.push(`structuredContent: ${JSON.stringify(result.structuredContent)}`);
	const text = parts.join('\n');
	const observation =
		text.length <= MAX_MCP_RESULT_CHARACTERS
			? text
			: new TruncatedText(
					`[the result was cut to its first ${MAX_MCP_RESULT_CHARACTERS} of ${text.length} characters]\n${text.slice(0, MAX_MCP_RESULT_CHARACTERS)}`,
				);
	return files.length > 0 ? new WithFiles(observation, files) : observation;
}

interface FileCandidate {
	kind: 'image' | 'resource';
	mimeType: string;
	base64: string;
	uri?: string;
}

/** The item as a file to return, when it is an image or a blob resource of an image or PDF type. */
function fileCandidate(item: ContentItem): FileCandidate | undefined {
	if (item.type === 'image' && typeof item.data === 'string' && typeof item.mimeType === 'string')
		return { kind: 'image', mimeType: item.mimeType, base64: item.data };
	if (item.type !== 'resource') return undefined;
	const resource = item.resource as { uri?: unknown; mimeType?: unknown; blob?: unknown };
	if (typeof resource.blob !== 'string' || typeof resource.mimeType !== 'string') return undefined;
	if (!PASSED_RESOURCE.test(resource.mimeType)) return undefined;
	return {
		kind: 'resource',
		mimeType: resource.mimeType,
		base64: resource.blob,
		uri: typeof resource.uri === 'string' ? resource.uri : undefined,
	};
}

/**
 * The bytes of base64 text (standard or URL-safe alphabet, padding optional, ASCII whitespace ignored as atob
 * does), or undefined when it is not base64: Buffer.from alone would skip bad characters silently.
 */
function decodeBase64(text: string): Uint8Array | undefined {
	const compact = /[\t\n\f\r ]/.test(text) ? text.replace(/[\t\n\f\r ]+/g, '') : text;
	if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) return undefined;
	const unpadded = compact.replace(/=+$/, '');
	if (unpadded.length % 4 === 1) return undefined;
	if (compact.length !== unpadded.length && compact.length % 4 !== 0) return undefined;
	const bytes = Buffer.from(unpadded, 'base64');
	return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

function extensionOf(mimeType: string): string {
	const subtype = /^[a-z]+\/([a-z0-9]+)/i.exec(mimeType)?.[1]?.toLowerCase();
	if (!subtype) return '';
	return subtype === 'jpeg' ? '.jpg' : `.${subtype}`;
}

function renderItem(item: ContentItem): string {
	switch (item.type) {
		case 'text':
			return item.text;
		case 'image':
		case 'audio':
			return `[${item.type} ${item.mimeType}, ${approximateBytes(item.data)} bytes, not shown]`;
		case 'resource_link':
			return `[resource link ${item.uri}${item.name ? ` (${item.name})` : ''}${item.mimeType ? `, ${item.mimeType}` : ''}]`;
		case 'resource': {
			const resource = item.resource as {
				uri: string;
				mimeType?: string;
				text?: string;
				blob?: string;
			};
			const size =
				typeof resource.text === 'string'
					? `${resource.text.length} characters`
					: `${approximateBytes(resource.blob ?? '')} bytes`;
			return `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, ${size}, not shown]`;
		}
		default:
			return `[content of type ${JSON.stringify((item as { type?: unknown }).type)}, not shown]`;
	}
}

/** A count with thousands separators: 12,345. */
const grouped = (count: number) => count.toLocaleString('en-US');

/** The decoded size of base64 text. */
function approximateBytes(base64: string): number {
	return Math.floor((base64.length * 3) / 4);
}
