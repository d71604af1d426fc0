// An MCP result with a bad image keeps its text: the image becomes the documented note, never a failure (issue #48).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openMcpTools, type McpToolSet } from '../../../src/tools/mcp';
import { WithFiles } from '../../../src/tools/tool';
import { startTestMcpServer, type RunningMcpServer } from '../../support/servers/mcp-servers';

const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
	'base64',
);

/** Results a hostile or careless server sends (the test server passes them on as they are). */
const results: Record<string, () => CallToolResult> = {
	bad_image: () => ({
		content: [
			{ type: 'text', text: 'The chart shows sales up 12%.' },
			{ type: 'image', data: 'not*base64!', mimeType: 'image/png' },
		],
	}),
	bad_and_good: () => ({
		content: [
			{ type: 'image', data: '%%%', mimeType: 'image/png' },
			{ type: 'text', text: 'two charts' },
			{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
			{ type: 'audio', data: '###', mimeType: 'audio/wav' },
		],
	}),
	bad_blob: () => ({
		content: [
			{ type: 'text', text: 'the report' },
			{
				type: 'resource',
				resource: { uri: 'file:///r.pdf', mimeType: 'application/pdf', blob: '!!' },
			},
		],
	}),
	not_content: () =>
		({
			content: [{ type: 'text', text: 'kept' }, { type: 'hologram', beam: 1 }, 42],
		}) as unknown as CallToolResult,
};

let server: RunningMcpServer;
let set: McpToolSet;
beforeAll(async () => {
	// The SDK's Server checks its own results, so the calls are answered here with the JSON-RPC a server of any
	// make could send: the result as it is.
	server = await startTestMcpServer(
		() => Object.keys(results).map((name) => ({ name })),
		(request, response) => {
			if (request.method !== 'tools/call') return false;
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify({ jsonrpc: '2.0', id: request.id, result: results[request.tool!]() }),
			);
			return true;
		},
	);
});
afterAll(() => server.close());
beforeEach(async () => {
	set = await openMcpTools({
		servers: [{ name: 'pics', url: server.url, allow_private_network: true }],
		allowedTools: ['pics.*'],
	});
});
afterEach(() => set.close());

const call = async (name: string) => {
	const tool = set.tools.find((candidate) => candidate.name === `pics.${name}`)!;
	return tool.execute({}, { signal: new AbortController().signal, settings: {} });
};

describe('an MCP result whose content items do not all pass the SDK schema', () => {
	it('keeps the text of a result whose image is not base64, the image a note', async () => {
		expect(await call('bad_image')).toBe(
			'The chart shows sales up 12%.\n[an image (image/png) whose data is not valid base64: left out]',
		);
	});

	it('still returns the good image beside a bad one, and notes the bad audio', async () => {
		const result = (await call('bad_and_good')) as WithFiles;
		expect(result).toBeInstanceOf(WithFiles);
		expect(result.observation).toBe(
			'[an image (image/png) whose data is not valid base64: left out]\n' +
				'two charts\n' +
				`[image 1: image/png, ${PNG.length} bytes, returned as a file]\n` +
				'[audio audio/wav, 2 bytes, not shown]',
		);
		expect(Buffer.from(result.files[0].data).equals(PNG)).toBe(true);
	});

	it('notes an embedded PDF whose blob is not base64, the text kept', async () => {
		expect(await call('bad_blob')).toBe(
			'the report\n[resource file:///r.pdf (application/pdf) whose data is not valid base64: left out]',
		);
	});

	it('notes an item that is no MCP content at all, the rest kept', async () => {
		expect(await call('not_content')).toBe(
			'kept\n[content item 2 (type "hologram") is not valid MCP content, not shown]\n' +
				'[content item 3 (type number) is not valid MCP content, not shown]',
		);
	});
});
