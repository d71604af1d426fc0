// What the model reads of an MCP tool's result: its text and structured content, notes for everything else, capped.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TruncatedText } from '../tool';

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

/** The decoded size of base64 text. */
function approximateBytes(base64: string): number {
	return Math.floor((base64.length * 3) / 4);
}
