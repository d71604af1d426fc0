import { createHttpRequestTool } from '../../../src/tools/http-request';
import {
	context,
	fakeResolver,
	LOOPBACK_HEADERS_ALLOWED,
	PRIVATE_ALLOWED,
	redirect,
	run,
	sendJson,
	startCanary,
	startServer,
	useLoopbackGuard,
} from '../../support/servers/http-servers';

// Every server here listens on loopback; the guard makes sure no socket opened by this file can reach
// anything else, even if the code under test were broken. Refusals are in http-request-refusals.test.ts.
useLoopbackGuard();

describe('http_request against a local server (private network allowed)', () => {
	it('returns a JSON answer as a summary line and the compacted body', async () => {
		const server = await startServer((_, response) =>
			sendJson(response, { items: [1, 2], name: 'n8n' }),
		);
		const observation = await run({ url: `${server.url}/items` }, context(PRIVATE_ALLOWED));
		const size = Buffer.byteLength(JSON.stringify({ items: [1, 2], name: 'n8n' }, null, 2));
		expect(observation).toBe(
			`HTTP 200 OK · application/json · ${size} bytes\n{"items":[1,2],"name":"n8n"}`,
		);
		expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/items' });
	});

	it('sends an object body as JSON and shows the JSON the server answers', async () => {
		const server = await startServer((request, response) =>
			sendJson(response, { got: JSON.parse(request.body) }, 201),
		);
		const observation = await run(
			{ url: `${server.url}/orders`, method: 'POST', body: { sku: 'A-1', quantity: 2 } },
			context(PRIVATE_ALLOWED),
		);
		expect(server.requests[0]).toMatchObject({
			method: 'POST',
			headers: { 'content-type': 'application/json' },
		});
		expect(JSON.parse(server.requests[0].body)).toEqual({ sku: 'A-1', quantity: 2 });
		expect(observation.split('\n')[0]).toMatch(
			/^HTTP 201 Created · application\/json · \d+ bytes$/,
		);
		expect(observation.split('\n')[1]).toBe('{"got":{"sku":"A-1","quantity":2}}');
	});

	it('appends query parameters to the URL, keeping the ones already there', async () => {
		const server = await startServer((_, response) => response.end('ok'));
		await run(
			{ url: `${server.url}/search?lang=en`, query: { q: 'n8n agent', page: 2, exact: true } },
			context(PRIVATE_ALLOWED),
		);
		expect(server.requests[0].url).toBe('/search?lang=en&q=n8n+agent&page=2&exact=true');
	});

	it('adds the fixed settings headers to the request but never shows them to the model', async () => {
		const server = await startServer((request, response) =>
			sendJson(response, { echoed: request.headers }),
		);
		const settings = {
			...LOOPBACK_HEADERS_ALLOWED,
			allowed_domains: ['127.0.0.1'],
			headers: { Authorization: 'Bearer sk-secret-123456', 'X-Api-Key': 'key-987654' },
		};
		const observation = await run(
			{ url: server.url, headers: { authorization: 'Bearer guessed', accept: 'application/json' } },
			context(settings),
		);
		expect(server.requests[0].headers).toMatchObject({
			authorization: 'Bearer sk-secret-123456',
			'x-api-key': 'key-987654',
			accept: 'application/json',
		});
		expect(observation).not.toContain('sk-secret-123456');
		expect(observation).not.toContain('key-987654');
		expect(observation).toContain('"x-api-key":"[REDACTED]"');
	});

	it('refuses fixed headers without allowed_domains, before any connection', async () => {
		const canary = await startCanary();
		const settings = { ...PRIVATE_ALLOWED, headers: { authorization: 'Bearer sk-secret-123456' } };
		const failure = run({ url: canary.url }, context(settings));
		await expect(failure).rejects.toThrow(
			'http_request is misconfigured: tool_settings.http_request.headers: fixed headers (authorization) are sent only to allowed_domains, and allowed_domains is empty',
		);
		await expect(failure).rejects.not.toThrow('sk-secret-123456');
		expect(canary.connections).toBe(0);
	});

	it('never echoes a settings header value in an error either', async () => {
		const server = await startServer((_, response) =>
			redirect(response, 302, `/again?token=key-987654`),
		);
		const settings = {
			...LOOPBACK_HEADERS_ALLOWED,
			allowed_domains: ['127.0.0.1'],
			max_redirects: 1,
			headers: { 'x-api-key': 'key-987654' },
		};
		const failure = run({ url: server.url }, context(settings));
		await expect(failure).rejects.toThrow('/again?token=[REDACTED]');
		await expect(failure).rejects.not.toThrow('key-987654');
	});

	it('sends a string body as text/plain unless the model sets a content-type', async () => {
		const server = await startServer((_, response) => response.end());
		await run({ url: server.url, method: 'PUT', body: 'hello' }, context(PRIVATE_ALLOWED));
		await run(
			{
				url: server.url,
				method: 'PUT',
				body: '<a/>',
				headers: { 'Content-Type': 'application/xml' },
			},
			context(PRIVATE_ALLOWED),
		);
		expect(
			server.requests.map((request) => [request.headers['content-type'], request.body]),
		).toEqual([
			['text/plain; charset=utf-8', 'hello'],
			['application/xml', '<a/>'],
		]);
	});

	it('returns a 404 as an observation rather than an error', async () => {
		const server = await startServer((_, response) => {
			response.writeHead(404, { 'content-type': 'text/plain' });
			response.end('no such order');
		});
		await expect(run({ url: `${server.url}/orders/9` }, context(PRIVATE_ALLOWED))).resolves.toBe(
			'HTTP 404 Not Found · text/plain · 13 bytes\nno such order',
		);
	});

	it('returns an image body as a file, with a summary line instead of its bytes (issue #40)', async () => {
		const server = await startServer((_, response) => {
			response.writeHead(200, { 'content-type': 'image/png' });
			response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]));
		});
		await expect(run({ url: server.url }, context(PRIVATE_ALLOWED))).resolves.toBe(
			'HTTP 200 OK · image/png · 5 bytes\n<image/png, 5 bytes (returned as a file)>',
		);
	});

	it("is cut to observation_max_len with the engine's visible marker, and not at all when it is 0", async () => {
		const server = await startServer((_, response) => response.end('x'.repeat(5000)));
		const cut = await run(
			{ url: server.url },
			context(PRIVATE_ALLOWED, { observationMaxLength: 200 }),
		);
		const whole = `HTTP 200 OK · 5000 bytes\n${'x'.repeat(5000)}`;
		expect(cut).toBe(
			`${whole.slice(0, 200)}… [cut ${whole.length - 200} of ${whole.length} characters]`,
		);
		await expect(run({ url: server.url }, context(PRIVATE_ALLOWED))).resolves.toBe(whole);
	});
});

describe('http_request redirects', () => {
	it('follows a 303 after a POST with a GET without the body, and names the final URL', async () => {
		const server = await startServer((request, response) =>
			request.url === '/submit' ? redirect(response, 303, '/result') : response.end('done'),
		);
		const observation = await run(
			{ url: `${server.url}/submit`, method: 'POST', body: { a: 1 } },
			context(PRIVATE_ALLOWED),
		);
		expect(
			server.requests.map((request) => [
				request.method,
				request.url,
				request.body,
				request.headers['content-type'],
			]),
		).toEqual([
			['POST', '/submit', '{"a":1}', 'application/json'],
			['GET', '/result', '', undefined],
		]);
		expect(observation).toBe(
			`HTTP 200 OK · 4 bytes\nafter 1 redirect(s), final URL ${server.url}/result\ndone`,
		);
	});

	it('keeps the method and body through a 307', async () => {
		const server = await startServer((request, response) =>
			request.url === '/old' ? redirect(response, 307, '/new') : response.end('ok'),
		);
		await run(
			{ url: `${server.url}/old`, method: 'PATCH', body: 'patch me' },
			context(PRIVATE_ALLOWED),
		);
		expect(server.requests.map((request) => [request.method, request.url, request.body])).toEqual([
			['PATCH', '/old', 'patch me'],
			['PATCH', '/new', 'patch me'],
		]);
	});

	it('drops credentials and settings headers when a redirect goes to another host', async () => {
		const other = await startServer((_, response) => response.end('elsewhere'));
		const first = await startServer((_, response) =>
			redirect(response, 302, `http://other.test:${other.port}/landing`),
		);
		const tool = createHttpRequestTool({
			resolveHost: fakeResolver({ 'other.test': [['127.0.0.1']] }),
		});
		const settings = {
			...LOOPBACK_HEADERS_ALLOWED,
			allowed_domains: ['127.0.0.1', 'other.test'],
			headers: { 'x-api-key': 'key-987654' },
		};
		const headers = {
			authorization: 'Bearer model-token',
			cookie: 'session=1',
			accept: 'text/plain',
		};
		await expect(run({ url: first.url, headers }, context(settings), tool)).resolves.toContain(
			'elsewhere',
		);
		expect(first.requests[0].headers).toMatchObject({
			authorization: 'Bearer model-token',
			cookie: 'session=1',
			'x-api-key': 'key-987654',
		});
		expect(other.requests[0].headers).toMatchObject({ accept: 'text/plain' });
		expect(other.requests[0].headers).not.toHaveProperty('authorization');
		expect(other.requests[0].headers).not.toHaveProperty('cookie');
		expect(other.requests[0].headers).not.toHaveProperty('x-api-key');
	});

	it('stops after max_redirects with an error that says so', async () => {
		const server = await startServer((request, response) =>
			redirect(response, 302, `/hop${server.requests.length}`),
		);
		await expect(
			run({ url: server.url }, context({ ...PRIVATE_ALLOWED, max_redirects: 2 })),
		).rejects.toThrow(/more than 2 redirects \(max_redirects\).*302 to \/hop3/);
		expect(server.requests).toHaveLength(3);
	});
});

describe('http_request limits', () => {
	it('cuts an endless body at max_response_bytes and closes the connection', async () => {
		let serverSawClose = false;
		const server = await startServer((_, response) => {
			response.writeHead(200, { 'content-type': 'text/plain' });
			const writer = setInterval(() => response.write('y'.repeat(16_384)), 5);
			response.on('close', () => {
				clearInterval(writer);
				serverSawClose = true;
			});
		});
		const observation = await run(
			{ url: server.url, timeout_ms: 10_000 },
			context({ ...PRIVATE_ALLOWED, max_response_bytes: 1000 }),
		);
		expect(observation).toBe(
			`HTTP 200 OK · text/plain · 1000 bytes (truncated at 1000 bytes)\n${'y'.repeat(1000)}`,
		);
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(serverSawClose).toBe(true);
	});

	it('gives up after timeout_ms when the server never answers', async () => {
		let serverSawClose = false;
		const server = await startServer((_, response) =>
			response.on('close', () => (serverSawClose = true)),
		);
		const started = Date.now();
		await expect(
			run({ url: server.url, timeout_ms: 300 }, context(PRIVATE_ALLOWED)),
		).rejects.toThrow(/^http_request timed out after 300 ms/);
		expect(Date.now() - started).toBeLessThan(2000);
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(serverSawClose).toBe(true);
	});

	it('gives up after timeout_ms when the body stops arriving halfway', async () => {
		const server = await startServer((_, response) => {
			response.writeHead(200, { 'content-type': 'text/plain' });
			response.write('first half');
		});
		const started = Date.now();
		await expect(
			run({ url: server.url, timeout_ms: 300 }, context(PRIVATE_ALLOWED)),
		).rejects.toThrow(/^http_request timed out after 300 ms/);
		expect(Date.now() - started).toBeLessThan(2000);
	});

	it('stops when the engine aborts the call through context.signal, whichever comes first', async () => {
		const server = await startServer(() => undefined);
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 150);
		const started = Date.now();
		await expect(
			run(
				{ url: server.url, timeout_ms: 60_000 },
				context(PRIVATE_ALLOWED, { signal: controller.signal }),
			),
		).rejects.toThrow(/^http_request timed out after \d+ ms: the tool call was stopped/);
		expect(Date.now() - started).toBeLessThan(2000);
	});

	it('does not connect at all when the signal is already aborted', async () => {
		const canary = await startCanary();
		const controller = new AbortController();
		controller.abort();
		await expect(
			run({ url: canary.url }, context(PRIVATE_ALLOWED, { signal: controller.signal })),
		).rejects.toThrow(/timed out/);
		expect(canary.connections).toBe(0);
	});
});
