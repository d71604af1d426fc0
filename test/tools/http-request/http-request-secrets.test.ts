import { createHttpRequestTool } from '../../../src/tools/http-request';
import {
	context,
	fakeResolver,
	LOOPBACK_CERTIFICATE,
	LOOPBACK_HEADERS_ALLOWED,
	PRIVATE_ALLOWED,
	redirect,
	run,
	startCanary,
	startHttpsServer,
	startServer,
	useLoopbackGuard,
} from '../../support/servers/http-servers';

// Fixed headers (an API token) cross the network only encrypted, and no cut of the answer, by
// max_response_bytes or by the observation length, hands the model any part of a secret.
useLoopbackGuard();

const TOKEN = 'key-987654';
const HEADERS_FOR_LOOPBACK = {
	...PRIVATE_ALLOWED,
	allowed_domains: ['127.0.0.1', 'secure.test'],
	headers: { 'x-api-key': TOKEN },
};
const trustingTool = () =>
	createHttpRequestTool({
		certificateAuthorities: [LOOPBACK_CERTIFICATE],
		resolveHost: fakeResolver({ 'secure.test': [['127.0.0.1']] }),
	});

describe('fixed headers go only over https to the default port', () => {
	it.each([
		[
			'plain http',
			'http://127.0.0.1:PORT/data',
			/and http:\/\/127\.0\.0\.1:\d+ is plain http; call https:\/\/127\.0\.0\.1\/ on the default port instead/,
		],
		['plain http on port 80', 'http://secure.test/data', /and http:\/\/secure\.test is plain http/],
		[
			'https on another port',
			'https://127.0.0.1:PORT/data',
			/and https:\/\/127\.0\.0\.1:\d+ uses port \d+; call https:\/\/127\.0\.0\.1\/ on the default port instead/,
		],
	])('refuses %s before connecting, saying how to fix it', async (_, template, problem) => {
		const canary = await startCanary();
		const failure = run(
			{ url: template.replace('PORT', String(canary.port)) },
			context(HEADERS_FOR_LOOPBACK),
			trustingTool(),
		);
		await expect(failure).rejects.toThrow(
			/^http_request refused: the configured headers \(x-api-key\) are sent only over https to the default port/,
		);
		await expect(failure).rejects.toThrow(problem);
		await expect(failure).rejects.toThrow(
			/or, for a plain-http API on a trusted network, set allow_insecure_headers: true in tool_settings\.http_request$/,
		);
		expect(canary.connections).toBe(0);
	});

	it.each(['https://secure.test/data', 'https://secure.test:443/data'])(
		'lets %s through to the connection',
		async (url) => {
			// Nothing of ours listens on 443: the call may fail to connect, but not be refused by the header rule.
			const outcome = await run(
				{ url, timeout_ms: 5000 },
				context(HEADERS_FOR_LOOPBACK),
				trustingTool(),
			).then(
				() => 'answered',
				(error: Error) => error.message,
			);
			expect(outcome).not.toMatch(/configured headers/);
		},
	);

	it('sends them over plain http and to another port with allow_insecure_headers', async () => {
		const server = await startServer((_, response) => response.end('ok'));
		const settings = { ...HEADERS_FOR_LOOPBACK, allow_insecure_headers: true };
		await expect(run({ url: `${server.url}/data` }, context(settings))).resolves.toBe(
			'HTTP 200 OK · 2 bytes\nok',
		);
		expect(server.requests[0].headers['x-api-key']).toBe(TOKEN);
	});

	it('sends them over https, and drops them when a redirect goes to plain http on the same host', async () => {
		const plain = await startServer((_, response) => response.end('landed in clear'));
		const secure = await startHttpsServer((request, response) =>
			request.url === '/start'
				? redirect(response, 302, '/next')
				: redirect(response, 302, `${plain.url}/landing`),
		);
		// The https server cannot listen on 443 here, so the flag lets the first hops use its port; the drop does not depend on it.
		const settings = { ...HEADERS_FOR_LOOPBACK, allow_insecure_headers: true };
		await expect(
			run({ url: `${secure.url}/start` }, context(settings), trustingTool()),
		).resolves.toContain('landed in clear');
		expect(secure.requests.map((request) => [request.url, request.headers['x-api-key']])).toEqual([
			['/start', TOKEN],
			['/next', TOKEN],
		]);
		expect(plain.requests).toHaveLength(1);
		expect(plain.requests[0].headers).not.toHaveProperty('x-api-key');
	});
});

describe('a secret cut in two by a limit never reaches the model', () => {
	// 25 characters, with ones that JSON and URL encoding spell differently, and a two-byte UTF-8 é.
	const SECRET = 'sk-live-é7Hq2/Zp9+Wx\\4=Lm';
	const FILLER = 'n'.repeat(40);
	const settingsFor = (extra: Record<string, unknown>) => ({
		...LOOPBACK_HEADERS_ALLOWED,
		allowed_domains: ['127.0.0.1'],
		headers: { authorization: SECRET },
		...extra,
	});
	const prefixesOf = (spelling: string) =>
		Array.from({ length: spelling.length - 3 }, (_, index) => spelling.slice(0, index + 4));

	it.each([
		['as sent', SECRET],
		['URL-encoded', encodeURIComponent(SECRET)],
		['JSON-escaped', JSON.stringify(SECRET).slice(1, -1)],
	])(
		'drops the part of a secret echoed %s that max_response_bytes let in, at every cut inside it',
		async (_, spelling) => {
			const echoed = Buffer.from(`${FILLER}${spelling} and more text after it`, 'utf8');
			const server = await startServer((__, response) => {
				response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
				response.end(echoed);
			});
			const secretStart = Buffer.byteLength(FILLER);
			for (let cut = secretStart + 1; cut < secretStart + Buffer.byteLength(spelling); cut += 1) {
				const observation = await run(
					{ url: server.url },
					context(settingsFor({ max_response_bytes: cut })),
				);
				expect(observation.split('\n')).toEqual([
					`HTTP 200 OK · text/plain · ${cut} bytes (truncated at ${cut} bytes)`,
					FILLER,
				]);
			}
		},
	);

	it('leaves a truncated body whole when its end only looks like ordinary text', async () => {
		const server = await startServer((_, response) => response.end(`${FILLER}and the rest`));
		const observation = await run(
			{ url: server.url },
			context(settingsFor({ max_response_bytes: FILLER.length + 7 })),
		);
		expect(observation.split('\n')[1]).toBe(`${FILLER}and the`);
	});

	it('redacts before the observation length cuts, whatever the cut position', async () => {
		const server = await startServer((_, response) => response.end(`${FILLER}${SECRET}${FILLER}`));
		const whole = await run({ url: server.url }, context(settingsFor({})));
		const start = whole.indexOf('[REDACTED]');
		expect(start).toBeGreaterThan(0);
		for (let cut = start - 25; cut < start + 60; cut += 1) {
			const cutObservation = await run(
				{ url: server.url },
				context(settingsFor({}), { observationMaxLength: cut + 30 }),
			);
			if (cut + 30 < whole.length)
				expect(cutObservation).toMatch(/… \[cut \d+ of \d+ characters\]$/);
			for (const prefix of prefixesOf(SECRET)) expect(cutObservation).not.toContain(prefix);
		}
	});
});
