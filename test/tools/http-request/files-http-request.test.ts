// http_request answers of type image/* or PDF become files of a WithFiles (issue #40), against a loopback server;
// the tool's execute is called directly (the engine's type checks and passthrough land separately).
import zlib from 'node:zlib';
import { httpRequestTool } from '../../../src/tools/http-request';
import type { HttpRequestArgs } from '../../../src/tools/http-request/settings';
import { TruncatedText, WithFiles } from '../../../src/tools/tool';
import { PRIVATE_ALLOWED, startServer, useLoopbackGuard } from '../../support/servers/http-servers';

useLoopbackGuard();

const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
	'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const HTML = Buffer.from('<!doctype html><title>not an image</title>');

const serving = (type: string, body: Buffer, extra: Record<string, string> = {}) =>
	startServer((_, response) => {
		response.writeHead(200, { 'content-type': type, ...extra });
		response.end(body);
	});

const execute = (args: HttpRequestArgs, settings: Record<string, unknown> = {}) =>
	httpRequestTool.execute(args, {
		signal: new AbortController().signal,
		settings: { ...PRIVATE_ALLOWED, ...settings },
	});

describe('http_request answers that are images or PDFs', () => {
	it('returns a PNG as a file named after the path, the observation saying so', async () => {
		const server = await serving('image/png', PNG);
		const result = await execute({ url: `${server.url}/charts/q3%20sales.png?size=large` });
		expect(result).toBeInstanceOf(WithFiles);
		const { observation, files } = result as WithFiles;
		expect(observation).toBe(
			`HTTP 200 OK · image/png · ${PNG.length} bytes\n<image/png, ${PNG.length} bytes (returned as a file)>`,
		);
		expect(files).toHaveLength(1);
		expect(files[0]).toMatchObject({
			name: 'q3 sales.png',
			mimeType: 'image/png',
			label: `the http_request answer from ${server.url}/charts/q3%20sales.png`,
		});
		expect(Buffer.from(files[0].data).equals(PNG)).toBe(true);
	});

	it('returns a PDF (Content-Type with parameters, gzip-encoded) as a file', async () => {
		const server = await serving('application/pdf; name=x', zlib.gzipSync(PDF), {
			'content-encoding': 'gzip',
		});
		const { observation, files } = (await execute({ url: `${server.url}/r.pdf` })) as WithFiles;
		expect(observation).toContain('decoded from gzip');
		expect(files[0].name).toBe('r.pdf');
		expect(Buffer.from(files[0].data).equals(PDF)).toBe(true);
	});

	it('names a file "download" when the path has no last segment', async () => {
		const server = await serving('image/png', PNG);
		const { files } = (await execute({ url: `${server.url}/` })) as WithFiles;
		expect(files[0].name).toBe('download');
	});

	it('never passes a PNG cut at max_response_bytes: the observation says it was too large', async () => {
		const big = Buffer.concat([PNG, Buffer.alloc(4096)]);
		const server = await serving('image/png', big);
		const result = await execute({ url: `${server.url}/big.png` }, { max_response_bytes: 1024 });
		expect(result).not.toBeInstanceOf(WithFiles);
		expect(result).not.toBeInstanceOf(TruncatedText);
		expect(result).toBe(
			'HTTP 200 OK · image/png · 1024 bytes (truncated at 1024 bytes)\n' +
				'<image/png larger than max_response_bytes (1,024 bytes read): not given to the model, as a cut file cannot be read; ask for a smaller one or raise max_response_bytes>',
		);
	});

	it('passes an HTML page labelled image/png as a file: the engine reads the real type from the bytes later', async () => {
		const server = await serving('image/png', HTML);
		const { files } = (await execute({ url: `${server.url}/fake.png` })) as WithFiles;
		expect(files).toHaveLength(1);
		expect(Buffer.from(files[0].data).equals(HTML)).toBe(true);
	});

	it('leaves other types as they were: an SVG and an octet stream are summarised, not passed', async () => {
		const svg = await serving('image/svg+xml', Buffer.from('<svg/>'));
		expect(await execute({ url: `${svg.url}/a.svg` })).toBe(
			'HTTP 200 OK · image/svg+xml · 6 bytes\n<svg/>',
		);
		const octets = await serving('application/octet-stream', PNG);
		expect(await execute({ url: `${octets.url}/a.png` })).toBe(
			`HTTP 200 OK · application/octet-stream · ${PNG.length} bytes\n<binary ${PNG.length} bytes>`,
		);
	});
});
