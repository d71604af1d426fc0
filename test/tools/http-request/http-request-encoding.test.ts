import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import zlib from 'node:zlib';
import {
	context,
	LOOPBACK_HEADERS_ALLOWED,
	PRIVATE_ALLOWED,
	run,
	startServer,
	useLoopbackGuard,
} from '../../support/servers/http-servers';

// Servers that compress although the tool asks for identity: the model reads the decoded text, and no
// body, however well it compresses, costs more than max_response_bytes.
useLoopbackGuard();

const ORDER = {
	order: 'A-17',
	items: [{ sku: 'tea', quantity: 3 }],
	note: 'leave at the door '.repeat(20).trim(),
};
const ORDER_JSON = JSON.stringify(ORDER);

function sendEncoded(
	response: http.ServerResponse,
	encoding: string,
	body: Buffer,
	contentType = 'application/json',
): void {
	response.writeHead(200, { 'content-type': contentType, 'content-encoding': encoding });
	response.end(body);
}

describe('http_request decodes compressed bodies', () => {
	it.each([
		['gzip', 'gzip', zlib.gzipSync(ORDER_JSON)],
		['x-gzip', 'x-gzip', zlib.gzipSync(ORDER_JSON)],
		['br', 'br', zlib.brotliCompressSync(ORDER_JSON)],
		['deflate', 'deflate', zlib.deflateSync(ORDER_JSON)],
		['raw deflate (as some servers send it)', 'deflate', zlib.deflateRawSync(ORDER_JSON)],
		['gzip listed after identity', 'identity, gzip', zlib.gzipSync(ORDER_JSON)],
		['deflate then br', 'deflate, br', zlib.brotliCompressSync(zlib.deflateSync(ORDER_JSON))],
	])('decodes a %s body into the JSON it encodes', async (_, encoding, compressed) => {
		const server = await startServer((__, response) => sendEncoded(response, encoding, compressed));
		const observation = await run({ url: server.url }, context(PRIVATE_ALLOWED));
		const decodedFrom = encoding.replace('identity, ', '');
		expect(observation).toBe(
			`HTTP 200 OK · application/json · ${ORDER_JSON.length} bytes (decoded from ${decodedFrom})\n${ORDER_JSON}`,
		);
		expect(server.requests[0].headers['accept-encoding']).toBe('identity');
	});

	it('names a coding it does not decode instead of showing the bytes', async () => {
		const server = await startServer((_, response) =>
			sendEncoded(response, 'zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00]), 'text/plain'),
		);
		await expect(run({ url: server.url }, context(PRIVATE_ALLOWED))).resolves.toBe(
			'HTTP 200 OK · text/plain · 5 bytes\n<body in unsupported content-encoding zstd, 5 bytes>',
		);
	});

	it('refuses to stack more than two codings, each of which would hold its own window', async () => {
		const server = await startServer((_, response) =>
			sendEncoded(response, 'gzip, gzip, gzip', zlib.gzipSync(zlib.gzipSync(zlib.gzipSync('x')))),
		);
		await expect(run({ url: server.url }, context(PRIVATE_ALLOWED))).resolves.toMatch(
			/\n<body in unsupported content-encoding "gzip, gzip, gzip" \(more than 2 codings\), \d+ bytes>$/,
		);
	});

	it('says so when a body labelled gzip is not gzip', async () => {
		const server = await startServer((_, response) =>
			sendEncoded(response, 'gzip', Buffer.from(ORDER_JSON)),
		);
		await expect(run({ url: server.url }, context(PRIVATE_ALLOWED))).resolves.toBe(
			`HTTP 200 OK · application/json · ${ORDER_JSON.length} bytes\n<body in content-encoding gzip that could not be decoded (incorrect header check), ${ORDER_JSON.length} bytes>`,
		);
	});

	it('redacts a secret the server echoed inside a compressed body', async () => {
		const secret = 'Bearer sk-compressed-81f0';
		const server = await startServer((request, response) =>
			sendEncoded(
				response,
				'gzip',
				zlib.gzipSync(JSON.stringify({ echoed: request.headers.authorization })),
			),
		);
		const settings = {
			...LOOPBACK_HEADERS_ALLOWED,
			allowed_domains: ['127.0.0.1'],
			headers: { authorization: secret },
		};
		await expect(run({ url: server.url }, context(settings))).resolves.toMatch(
			/\n\{"echoed":"\[REDACTED\]"\}$/,
		);
	});
});

describe('http_request caps compressed bodies at max_response_bytes', () => {
	const MEMBER_BYTES = 1024 * 1024;
	const TIMEOUT_MS = 20_000;

	it(
		'ends a gzip bomb (1 GiB of text in about 1 MB) at the limit, as a truncated body',
		async () => {
			// Concatenated gzip members are one valid gzip body; 1024 members of 1 MiB each decode to 1 GiB.
			const member = zlib.gzipSync(Buffer.alloc(MEMBER_BYTES, 'z'));
			let membersSent = 0;
			let serverSawClose: Promise<unknown> = new Promise(() => undefined);
			const server = await startServer((_, response) => {
				response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
				serverSawClose = new Promise((resolve) => response.on('close', resolve));
				const writeMore = () => {
					while (membersSent < 1024 && !response.destroyed) {
						membersSent += 1;
						if (!response.write(member)) return void response.once('drain', writeMore);
					}
					response.end();
				};
				writeMore();
			});
			const observation = await run(
				{ url: server.url, timeout_ms: TIMEOUT_MS },
				context(PRIVATE_ALLOWED),
			);
			const [summary, body] = observation.split('\n');
			expect(summary).toBe(
				'HTTP 200 OK · text/plain · 1000000 bytes (decoded from gzip, truncated at 1000000 bytes)',
			);
			expect(body).toBe('z'.repeat(1_000_000));
			// The tool hung up instead of reading on: a hang here fails the test at its time limit.
			await serverSawClose;
			expect(member.length * 1024).toBeLessThan(2_000_000);
		},
		TIMEOUT_MS + 5000,
	);

	it('stops reading compressed bytes at the limit too, and shows what they decode to', async () => {
		// Stored without compression, the gzip body is a little longer than its text: the bytes received hit the limit first.
		const text = randomBytes(150_000).toString('base64');
		const server = await startServer((_, response) =>
			sendEncoded(response, 'gzip', zlib.gzipSync(text, { level: 0 }), 'text/plain'),
		);
		const observation = await run(
			{ url: server.url },
			context({ ...PRIVATE_ALLOWED, max_response_bytes: 50_000 }),
		);
		const [summary, body] = observation.split('\n');
		expect(summary).toBe(
			`HTTP 200 OK · text/plain · ${body.length} bytes (decoded from gzip, truncated at ${body.length} bytes)`,
		);
		expect(body.length).toBeGreaterThan(45_000);
		expect(body.length).toBeLessThan(50_000);
		expect(text.startsWith(body)).toBe(true);
	});

	it(
		'ends an endless body of empty gzip members at the limit instead of reading until the timeout',
		async () => {
			const emptyMember = zlib.gzipSync(Buffer.alloc(0));
			const server = await startServer((_, response) => {
				response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
				const writer = setInterval(
					() => response.write(Buffer.concat(Array.from({ length: 500 }, () => emptyMember))),
					2,
				);
				response.on('close', () => clearInterval(writer));
			});
			const observation = await run(
				{ url: server.url, timeout_ms: TIMEOUT_MS },
				context({ ...PRIVATE_ALLOWED, max_response_bytes: 100_000 }),
			);
			expect(observation).toBe(
				'HTTP 200 OK · text/plain · 0 bytes (decoded from gzip, truncated at 0 bytes)',
			);
		},
		TIMEOUT_MS + 5000,
	);
});
