/**
 * A tools/call result read item by item (issue #48). The SDK's own result schema refuses the whole result when one
 * content item is invalid (an image whose `data` is not base64 fails ImageContentSchema), so the model would lose
 * the result's text to a validation dump. The call is made with this schema instead — the SDK's CallToolResultSchema
 * with its content items left unchecked — and each item is then checked alone against the SDK's ContentBlockSchema:
 * a valid item is kept as parsed; an image, audio or blob resource whose only fault can be its data is kept as
 * given, so observeCallResult turns it into its note (`whose data is not valid base64: left out`); anything else
 * becomes a one-line note. structuredContent, isError and the tool's output schema are checked as before.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadOnce } from '../../core/load-once';

type ContentItem = CallToolResult['content'][number];

/** The SDK's schemas and zod on first use, like the SDK itself (connection.ts). */
const schemas = loadOnce(() => {
	const types =
		require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
	const z = require('zod/v4') as typeof import('zod/v4');
	return {
		lenient: types.CallToolResultSchema.extend({ content: z.array(z.unknown()).default([]) }),
		item: types.ContentBlockSchema,
	};
});

/** The schema to call tools/call with: the SDK's, content items unchecked (checkedCallResult checks them). */
export const lenientCallResultSchema = () => schemas().lenient;

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** `result` (read with lenientCallResultSchema) with each content item checked alone. */
export function checkedCallResult(
	result: { content: unknown[] } & Record<string, unknown>,
): CallToolResult {
	return { ...result, content: result.content.map(checkedItem) } as CallToolResult;
}

function checkedItem(item: unknown, index: number): ContentItem {
	const parsed = schemas().item.safeParse(item);
	if (parsed.success) return parsed.data;
	if (isObject(item)) {
		const { type, data, mimeType, resource } = item;
		if (
			(type === 'image' || type === 'audio') &&
			typeof data === 'string' &&
			typeof mimeType === 'string'
		)
			return { type, data, mimeType };
		if (type === 'resource' && isObject(resource) && typeof resource.blob === 'string')
			return {
				type: 'resource',
				resource: {
					uri: typeof resource.uri === 'string' ? resource.uri : `item ${index + 1}`,
					blob: resource.blob,
					...(typeof resource.mimeType === 'string' ? { mimeType: resource.mimeType } : {}),
				},
			};
	}
	const type = isObject(item) ? JSON.stringify(item.type) : typeof item;
	return {
		type: 'text',
		text: `[content item ${index + 1} (type ${String(type).slice(0, 40)}) is not valid MCP content, not shown]`,
	};
}
