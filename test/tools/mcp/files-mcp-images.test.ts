// Images and PDFs an MCP tool returns become files of a WithFiles (issue #40): called through the tool's execute, the
// engine's checks and passthrough land separately. Servers written with the SDK's Server, on loopback.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
	MAX_MCP_FILE_BYTES,
	MAX_MCP_RESULT_FILES,
	observeCallResult,
	openMcpTools,
	type McpToolSet,
} from '../../../src/tools/mcp';
import { TruncatedText, WithFiles } from '../../../src/tools/tool';
import { useLoopbackGuard } from '../../support/servers/http-servers';
import { startTestMcpServer, type RunningMcpServer } from '../../support/servers/mcp-servers';

useLoopbackGuard();

/** A 1×1 PNG. */
const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
	'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

const results: Record<string, () => CallToolResult> = {
	image: () => ({
		content: [
			{ type: 'text', text: 'Here is the chart.' },
			{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
		],
	}),
	pdf: () => ({
		content: [
			{
				type: 'resource',
				resource: {
					uri: 'file:///reports/q3%20report.pdf',
					mimeType: 'application/pdf',
					blob: PDF.toString('base64'),
				},
			},
		],
	}),
	many: () => ({
		content: Array.from({ length: 1_000 }, () => ({
			type: 'image' as const,
			data: PNG.toString('base64'),
			mimeType: 'image/png',
		})),
	}),
	audio: () => ({ content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }),
	zip: () => ({
		content: [
			{
				type: 'resource',
				resource: { uri: 'file:///a.zip', mimeType: 'application/zip', blob: 'UEsDBA==' },
			},
		],
	}),
};

let server: RunningMcpServer;
let set: McpToolSet;
beforeAll(async () => {
	server = await startTestMcpServer(() =>
		Object.entries(results).map(([name, result]) => ({ name, call: result })),
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

describe('an MCP tool that returns images and PDFs', () => {
	it('gives an image content item to the model as a file, its text kept and the file named in the observation', async () => {
		const result = await call('image');
		expect(result).toBeInstanceOf(WithFiles);
		const { observation, files } = result as WithFiles;
		expect(observation).toBe(
			`Here is the chart.\n[image 1: image/png, ${PNG.length} bytes, returned as a file]`,
		);
		expect(files).toHaveLength(1);
		expect(files[0]).toMatchObject({
			name: 'image-1.png',
			mimeType: 'image/png',
			label: "image 1 of pics.image's result",
		});
		expect(Buffer.from(files[0].data).equals(PNG)).toBe(true);
	});

	it('gives an embedded PDF resource (a blob) as a file named after its URI', async () => {
		const { observation, files } = (await call('pdf')) as WithFiles;
		expect(observation).toBe(
			`[resource 1 file:///reports/q3%20report.pdf: application/pdf, ${PDF.length} bytes, returned as a file]`,
		);
		expect(files).toHaveLength(1);
		expect(files[0]).toMatchObject({
			name: 'q3 report.pdf',
			mimeType: 'application/pdf',
			label: "resource 1 of pics.pdf's result",
		});
		expect(Buffer.from(files[0].data).equals(PDF)).toBe(true);
	});

	it('takes at most 20 of 1,000 images and says how many it left out', async () => {
		const { observation, files } = (await call('many')) as WithFiles;
		expect(files).toHaveLength(MAX_MCP_RESULT_FILES);
		expect(files[19].label).toBe("image 20 of pics.many's result");
		expect(observation).toContain('[980 more images or documents left out');
		expect((observation as string).split('\n')).toHaveLength(MAX_MCP_RESULT_FILES + 1);
	});

	it('keeps the note for audio and for a resource type no model takes', async () => {
		expect(await call('audio')).toMatch(/^\[audio audio\/wav, \d+ bytes, not shown\]$/);
		expect(await call('zip')).toMatch(
			/^\[resource file:\/\/\/a\.zip, application\/zip, \d+ bytes, not shown\]$/,
		);
	});
});

describe('bounds against a hostile server, before anything is decoded', () => {
	it('never decodes a base64 string longer than 20 MiB decode to (100 MB of it): a note instead', () => {
		const huge = 'A'.repeat(100 * 1024 * 1024);
		const started = Date.now();
		const result = observeCallResult(
			{
				content: [
					{ type: 'image', data: huge, mimeType: 'image/png' },
					{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
				],
			},
			'evil.big',
		) as WithFiles;
		expect(Date.now() - started).toBeLessThan(1_000);
		expect(result.files).toHaveLength(1);
		expect(result.files[0].label).toBe("image 1 of evil.big's result");
		expect(result.observation).toContain(
			`over the ${MAX_MCP_FILE_BYTES.toLocaleString('en-US')} bytes a tool's file may have: left out]`,
		);
	});

	it('makes text that is not base64 a note, never a throw', () => {
		const result = observeCallResult(
			{
				content: [
					{ type: 'image', data: 'not*base64!', mimeType: 'image/png' },
					{
						type: 'resource',
						resource: { uri: 'x:/y.pdf', mimeType: 'application/pdf', blob: 'AAAAA' },
					},
				],
			},
			'evil.garbage',
		);
		expect(result).toBe(
			'[an image (image/png) whose data is not valid base64: left out]\n' +
				'[resource x:/y.pdf (application/pdf) whose data is not valid base64: left out]',
		);
	});

	it('accepts base64 with line breaks and without padding, as atob does', () => {
		const wrapped = PNG.toString('base64')
			.replace(/=+$/, '')
			.replace(/(.{20})/g, '$1\n');
		const result = observeCallResult(
			{ content: [{ type: 'image', data: wrapped, mimeType: 'image/png' }] },
			's.t',
		) as WithFiles;
		expect(Buffer.from(result.files[0].data).equals(PNG)).toBe(true);
	});

	it('throws a result with isError as before, its images unread', () => {
		expect(() =>
			observeCallResult(
				{ isError: true, content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
				's.t',
			),
		).toThrow(/the tool reported an error/);
	});

	it('cuts a long text part as before and still carries the files', () => {
		const result = observeCallResult(
			{
				content: [
					{ type: 'text', text: 'x'.repeat(1_100_000) },
					{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
				],
			},
			's.t',
		) as WithFiles;
		expect(result.observation).toBeInstanceOf(TruncatedText);
		expect(result.files).toHaveLength(1);
	});
});
