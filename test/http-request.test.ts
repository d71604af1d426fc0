import dns from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { classifyAddress } from '../src/tools/address-policy';
import { createHttpRequestTool, httpRequestTool, type HostResolver, type HttpRequestArgs } from '../src/tools/http-request';
import type { ToolContext } from '../src/tools/tool';

// Every server here listens on loopback. The guard below makes sure no socket opened by this file can
// reach anything else, even if the code under test were broken.

interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  port: number;
  /** Base URL, e.g. http://127.0.0.1:12345 */
  url: string;
  requests: RecordedRequest[];
  /** TCP connections accepted, including ones that never sent a request. */
  connections: number;
}

type Handler = (request: RecordedRequest, response: http.ServerResponse, server: TestServer) => void;

const openServers: http.Server[] = [];

async function startServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  const server = http.createServer();
  const state: TestServer = { port: 0, url: '', requests: [], connections: 0 };
  server.on('connection', () => (state.connections += 1));
  server.on('request', (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      state.requests.push(recorded);
      handler(recorded, response, state);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  openServers.push(server);
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://${host.includes(':') ? `[${host}]` : host}:${state.port}`;
  return state;
}

/** A server that must never be reached: refusal tests assert its connection count stays 0. */
const startCanary = (host = '127.0.0.1') => startServer((_, response) => response.end('canary reached'), host);

function sendJson(response: http.ServerResponse, value: unknown, status = 200): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(value, null, 2));
}

function redirect(response: http.ServerResponse, status: number, location: string): void {
  response.writeHead(status, { location });
  response.end();
}

function context(settings: Record<string, unknown> = {}, overrides: Partial<ToolContext> = {}): ToolContext {
  return { signal: new AbortController().signal, settings, observationMaxLength: 0, ...overrides };
}

const PRIVATE_ALLOWED = { allow_private_network: true };

/** A resolver for made-up names; each entry gives the answers for successive lookups (the last one repeats). */
function fakeResolver(answers: Record<string, string[][]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    const sequence = answers[hostname];
    if (!sequence) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const attempt = asked.filter((name) => name === hostname).length;
    asked.push(hostname);
    return sequence[Math.min(attempt, sequence.length - 1)].map((address) => ({ address, family: net.isIP(address) as 4 | 6 }));
  };
  return Object.assign(resolve, { asked });
}

const run = (args: HttpRequestArgs, toolContext: ToolContext, tool = httpRequestTool) => tool.execute(args, toolContext) as Promise<string>;

function isLoopback(address: string): boolean {
  try {
    let parsed = ipaddr.parse(address);
    if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) parsed = parsed.toIPv4Address();
    return parsed.range() === 'loopback';
  } catch {
    return false;
  }
}

/**
 * Belt and braces for "tests never leave this machine": while this file runs, every socket must go to a
 * loopback address and the system resolver answers only for `localhost`, whatever the code under test
 * decides. A trip is recorded (and fails the test) and the socket or lookup fails instead of going out.
 */
const guardTrips: string[] = [];
const originalConnect = net.Socket.prototype.connect;
const originalLookup = dns.lookup;
const originalPromisesLookup = dns.promises.lookup;

function installLoopbackGuard(): void {
  // Servers call the resolver for their listen address too, so loopback literals are let through.
  const isLocalName = (hostname: string) => hostname === 'localhost' || isLoopback(hostname);
  const refuseName = (hostname: string) => {
    guardTrips.push(`resolve ${hostname}`);
    return Object.assign(new Error(`test guard: will not resolve ${hostname} outside this machine`), { code: 'ENOTFOUND' });
  };
  dns.lookup = function guardedLookup(hostname: string, ...rest: unknown[]) {
    if (isLocalName(hostname)) return (originalLookup as (...args: unknown[]) => void)(hostname, ...rest);
    const callback = rest[rest.length - 1] as (error: Error) => void;
    process.nextTick(() => callback(refuseName(hostname)));
  } as typeof dns.lookup;
  dns.promises.lookup = (async (hostname: string, options?: dns.LookupOptions) => {
    if (!isLocalName(hostname)) throw refuseName(hostname);
    return originalPromisesLookup(hostname, options ?? {});
  }) as typeof dns.promises.lookup;
  net.Socket.prototype.connect = function loopbackOnlyConnect(this: net.Socket, ...args: unknown[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options = (typeof first === 'object' && first !== null ? first : { host: typeof args[1] === 'string' ? args[1] : 'localhost' }) as net.TcpNetConnectOpts;
    if (!('path' in options && options.path)) {
      const host = options.host ?? 'localhost';
      if (net.isIP(host) && !isLoopback(host)) {
        guardTrips.push(`connect ${host}`);
        process.nextTick(() => this.destroy(new Error(`test guard: refused to connect to ${host}`)));
        return this;
      }
      const innerLookup = options.lookup ?? dns.lookup;
      options.lookup = (hostname, lookupOptions, callback) =>
        innerLookup(hostname, lookupOptions, (error, address, family) => {
          const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
          const outside = error ? [] : addresses.filter((candidate) => !isLoopback(candidate));
          if (outside.length > 0) {
            guardTrips.push(...outside.map((candidate) => `connect ${candidate}`));
            callback(new Error(`test guard: ${hostname} resolved outside loopback`), '');
            return;
          }
          callback(error, address, family);
        });
    }
    return originalConnect.apply(this, args as Parameters<typeof originalConnect>);
  } as typeof originalConnect;
}

beforeAll(installLoopbackGuard);

afterEach(async () => {
  await Promise.all(openServers.splice(0).map((server) => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  })));
  expect(guardTrips.splice(0)).toEqual([]);
});

afterAll(() => {
  net.Socket.prototype.connect = originalConnect;
  dns.lookup = originalLookup;
  dns.promises.lookup = originalPromisesLookup;
});

describe('http_request against a local server (private network allowed)', () => {
  it('returns a JSON answer as a summary line and the compacted body', async () => {
    const server = await startServer((_, response) => sendJson(response, { items: [1, 2], name: 'n8n' }));
    const observation = await run({ url: `${server.url}/items` }, context(PRIVATE_ALLOWED));
    const size = Buffer.byteLength(JSON.stringify({ items: [1, 2], name: 'n8n' }, null, 2));
    expect(observation).toBe(`HTTP 200 OK · application/json · ${size} bytes\n{"items":[1,2],"name":"n8n"}`);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/items' });
  });

  it('sends an object body as JSON and shows the JSON the server answers', async () => {
    const server = await startServer((request, response) => sendJson(response, { got: JSON.parse(request.body) }, 201));
    const observation = await run({ url: `${server.url}/orders`, method: 'POST', body: { sku: 'A-1', quantity: 2 } }, context(PRIVATE_ALLOWED));
    expect(server.requests[0]).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(server.requests[0].body)).toEqual({ sku: 'A-1', quantity: 2 });
    expect(observation.split('\n')[0]).toMatch(/^HTTP 201 Created · application\/json · \d+ bytes$/);
    expect(observation.split('\n')[1]).toBe('{"got":{"sku":"A-1","quantity":2}}');
  });

  it('appends query parameters to the URL, keeping the ones already there', async () => {
    const server = await startServer((_, response) => response.end('ok'));
    await run({ url: `${server.url}/search?lang=en`, query: { q: 'n8n agent', page: 2, exact: true } }, context(PRIVATE_ALLOWED));
    expect(server.requests[0].url).toBe('/search?lang=en&q=n8n+agent&page=2&exact=true');
  });

  it('adds the fixed settings headers to the request but never shows them to the model', async () => {
    const server = await startServer((request, response) => sendJson(response, { echoed: request.headers }));
    const settings = { ...PRIVATE_ALLOWED, headers: { Authorization: 'Bearer sk-secret-123456', 'X-Api-Key': 'key-987654' } };
    const observation = await run({ url: server.url, headers: { authorization: 'Bearer guessed', accept: 'application/json' } }, context(settings));
    expect(server.requests[0].headers).toMatchObject({ authorization: 'Bearer sk-secret-123456', 'x-api-key': 'key-987654', accept: 'application/json' });
    expect(observation).not.toContain('sk-secret-123456');
    expect(observation).not.toContain('key-987654');
    expect(observation).toContain('"x-api-key":"[redacted]"');
  });

  it('never echoes a settings header value in an error either', async () => {
    const server = await startServer((_, response) => redirect(response, 302, `/again?token=key-987654`));
    const settings = { ...PRIVATE_ALLOWED, max_redirects: 1, headers: { 'x-api-key': 'key-987654' } };
    const failure = run({ url: server.url }, context(settings));
    await expect(failure).rejects.toThrow('/again?token=[redacted]');
    await expect(failure).rejects.not.toThrow('key-987654');
  });

  it('sends a string body as text/plain unless the model sets a content-type', async () => {
    const server = await startServer((_, response) => response.end());
    await run({ url: server.url, method: 'PUT', body: 'hello' }, context(PRIVATE_ALLOWED));
    await run({ url: server.url, method: 'PUT', body: '<a/>', headers: { 'Content-Type': 'application/xml' } }, context(PRIVATE_ALLOWED));
    expect(server.requests.map((request) => [request.headers['content-type'], request.body])).toEqual([
      ['text/plain; charset=utf-8', 'hello'],
      ['application/xml', '<a/>'],
    ]);
  });

  it('returns a 404 as an observation rather than an error', async () => {
    const server = await startServer((_, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('no such order');
    });
    await expect(run({ url: `${server.url}/orders/9` }, context(PRIVATE_ALLOWED))).resolves.toBe('HTTP 404 Not Found · text/plain · 13 bytes\nno such order');
  });

  it('summarises a binary body instead of showing it', async () => {
    const server = await startServer((_, response) => {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]));
    });
    await expect(run({ url: server.url }, context(PRIVATE_ALLOWED))).resolves.toBe('HTTP 200 OK · image/png · 5 bytes\n<binary 5 bytes>');
  });

  it('cuts the observation to observationMaxLength with a visible marker, and not at all when it is 0', async () => {
    const server = await startServer((_, response) => response.end('x'.repeat(5000)));
    const cut = await run({ url: server.url }, context(PRIVATE_ALLOWED, { observationMaxLength: 200 }));
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toMatch(/^HTTP 200 OK · 5000 bytes\nx+… \[cut \d+ characters\]$/);
    const whole = await run({ url: server.url }, context(PRIVATE_ALLOWED));
    expect(whole).toBe(`HTTP 200 OK · 5000 bytes\n${'x'.repeat(5000)}`);
  });
});

describe('http_request redirects', () => {
  it('follows a 303 after a POST with a GET without the body, and names the final URL', async () => {
    const server = await startServer((request, response) => (request.url === '/submit' ? redirect(response, 303, '/result') : response.end('done')));
    const observation = await run({ url: `${server.url}/submit`, method: 'POST', body: { a: 1 } }, context(PRIVATE_ALLOWED));
    expect(server.requests.map((request) => [request.method, request.url, request.body, request.headers['content-type']])).toEqual([
      ['POST', '/submit', '{"a":1}', 'application/json'],
      ['GET', '/result', '', undefined],
    ]);
    expect(observation).toBe(`HTTP 200 OK · 4 bytes\nafter 1 redirect(s), final URL ${server.url}/result\ndone`);
  });

  it('keeps the method and body through a 307', async () => {
    const server = await startServer((request, response) => (request.url === '/old' ? redirect(response, 307, '/new') : response.end('ok')));
    await run({ url: `${server.url}/old`, method: 'PATCH', body: 'patch me' }, context(PRIVATE_ALLOWED));
    expect(server.requests.map((request) => [request.method, request.url, request.body])).toEqual([
      ['PATCH', '/old', 'patch me'],
      ['PATCH', '/new', 'patch me'],
    ]);
  });

  it('drops credentials and settings headers when a redirect goes to another host', async () => {
    const other = await startServer((_, response) => response.end('elsewhere'));
    const first = await startServer((_, response) => redirect(response, 302, `http://other.test:${other.port}/landing`));
    const tool = createHttpRequestTool({ resolveHost: fakeResolver({ 'other.test': [['127.0.0.1']] }) });
    const settings = { ...PRIVATE_ALLOWED, headers: { 'x-api-key': 'key-987654' } };
    const headers = { authorization: 'Bearer model-token', cookie: 'session=1', accept: 'text/plain' };
    await expect(run({ url: first.url, headers }, context(settings), tool)).resolves.toContain('elsewhere');
    expect(first.requests[0].headers).toMatchObject({ authorization: 'Bearer model-token', cookie: 'session=1', 'x-api-key': 'key-987654' });
    expect(other.requests[0].headers).toMatchObject({ accept: 'text/plain' });
    expect(other.requests[0].headers).not.toHaveProperty('authorization');
    expect(other.requests[0].headers).not.toHaveProperty('cookie');
    expect(other.requests[0].headers).not.toHaveProperty('x-api-key');
  });

  it('stops after max_redirects with an error that says so', async () => {
    const server = await startServer((request, response) => redirect(response, 302, `/hop${server.requests.length}`));
    await expect(run({ url: server.url }, context({ ...PRIVATE_ALLOWED, max_redirects: 2 }))).rejects.toThrow(/more than 2 redirects \(max_redirects\).*302 to \/hop3/);
    expect(server.requests).toHaveLength(3);
  });
});

const ipv6LoopbackAvailable = Object.values(os.networkInterfaces()).some((entries) => entries?.some((entry) => entry.address === '::1'));

describe('http_request refusals never reach the canary', () => {
  it.each([
    ['http://127.0.0.1:PORT/', /127\.0\.0\.1 is a loopback address/],
    ['http://localhost:PORT/', /localhost is a localhost name/],
    ['http://LOCALHOST.:PORT/', /localhost is a localhost name/],
    ['http://app.localhost:PORT/', /app\.localhost is a localhost name/],
    ['http://2130706433:PORT/', /127\.0\.0\.1 is a loopback address/],
    ['http://0x7f000001:PORT/', /127\.0\.0\.1 is a loopback address/],
    ['http://127.1:PORT/', /127\.0\.0\.1 is a loopback address/],
    ['http://0177.0.0.1:PORT/', /127\.0\.0\.1 is a loopback address/],
    ['http://[::ffff:127.0.0.1]:PORT/', /::ffff:7f00:1 is an IPv4-mapped IPv6 address of 127\.0\.0\.1, which is a loopback address/],
    ['http://0.0.0.0:PORT/', /0\.0\.0\.0 is an unspecified address/],
  ])('refuses %s by default', async (template, message) => {
    const canary = await startCanary();
    const promise = run({ url: template.replace('PORT', String(canary.port)) }, context());
    await expect(promise).rejects.toThrow(message);
    await expect(promise).rejects.toThrow(/^http_request refused: .*Use a public host$/);
    expect(canary.connections).toBe(0);
  });

  (ipv6LoopbackAvailable ? it : it.skip)('refuses http://[::1] by default', async () => {
    const canary = await startCanary('::1');
    await expect(run({ url: `${canary.url}/` }, context())).rejects.toThrow(/::1 is a loopback address/);
    expect(canary.connections).toBe(0);
  });

  it('refuses a host outside allowed_domains and names the allowed ones', async () => {
    const canary = await startCanary();
    const settings = { ...PRIVATE_ALLOWED, allowed_domains: ['api.example.com', '*.example.net'] };
    await expect(run({ url: canary.url }, context(settings))).rejects.toThrow(
      'http_request refused: host 127.0.0.1 is not in allowed_domains [api.example.com, *.example.net]; use one of those hosts',
    );
    expect(canary.connections).toBe(0);
  });

  it('refuses a method outside allowed_methods', async () => {
    const canary = await startCanary();
    const settings = { ...PRIVATE_ALLOWED, allowed_methods: ['GET', 'POST'] };
    await expect(run({ url: canary.url, method: 'DELETE' }, context(settings))).rejects.toThrow(
      'http_request refused: method DELETE is not in allowed_methods [GET, POST]; use one of those methods',
    );
    expect(canary.connections).toBe(0);
  });

  it('refuses a Host header, which could reach another virtual host behind an allowed address', async () => {
    const canary = await startCanary();
    await expect(run({ url: canary.url, headers: { Host: 'internal.example' } }, context(PRIVATE_ALLOWED))).rejects.toThrow(/header "Host" is set by the tool/);
    expect(canary.connections).toBe(0);
  });

  it('refuses a redirect to a host outside allowed_domains', async () => {
    const canary = await startCanary();
    const server = await startServer((_, response) => redirect(response, 302, `http://localhost:${canary.port}/`));
    const settings = { ...PRIVATE_ALLOWED, allowed_domains: ['127.0.0.1'] };
    await expect(run({ url: `${server.url}/start` }, context(settings))).rejects.toThrow(
      `http_request refused: host localhost is not in allowed_domains [127.0.0.1]; use one of those hosts (this url was reached by following a redirect from ${server.url}/start)`,
    );
    expect(server.requests).toHaveLength(1);
    expect(canary.connections).toBe(0);
  });

  it('refuses at connect time a listed name that resolves to loopback', async () => {
    const canary = await startCanary();
    const resolver = fakeResolver({ 'public.test': [['127.0.0.1']] });
    const tool = createHttpRequestTool({ resolveHost: resolver });
    await expect(run({ url: `http://public.test:${canary.port}/` }, context({ allowed_domains: ['public.test'] }), tool)).rejects.toThrow(
      /^http_request refused: public\.test resolves to 127\.0\.0\.1, which is a loopback address/,
    );
    expect(resolver.asked).toEqual(['public.test']);
    expect(canary.connections).toBe(0);
  });

  it('checks every address a name resolves to, not only the first', async () => {
    const canary = await startCanary();
    const tool = createHttpRequestTool({ resolveHost: fakeResolver({ 'mixed.test': [['8.8.8.8', '127.0.0.1']] }) });
    await expect(run({ url: `http://mixed.test:${canary.port}/` }, context(), tool)).rejects.toThrow(/mixed\.test resolves to 127\.0\.0\.1/);
    expect(canary.connections).toBe(0);
  });

  it('re-checks a name on every hop, so a redirect cannot rebind it to loopback (private network off)', async () => {
    // 127.0.0.2 stands in for a public server: the tool is told to treat that one address as public.
    const treatAsPublic = (address: string) => (address === '127.0.0.2' ? { ...classifyAddress('8.8.8.8'), address } : classifyAddress(address));
    const canary = await startCanary();
    let server: TestServer;
    try {
      server = await startServer((_, response) => redirect(response, 302, `http://rebind.test:${canary.port}/`), '127.0.0.2');
    } catch {
      console.warn('127.0.0.2 cannot be bound on this machine; skipping the rebinding test');
      return;
    }
    // The first answer passes the check and is where the first hop connects; the second is loopback.
    const resolver = fakeResolver({ 'rebind.test': [['127.0.0.2'], ['127.0.0.1']] });
    const tool = createHttpRequestTool({ resolveHost: resolver, classifyAddress: treatAsPublic });
    await expect(run({ url: `http://rebind.test:${server.port}/start` }, context({ allowed_domains: ['rebind.test'] }), tool)).rejects.toThrow(
      /^http_request refused: rebind\.test resolves to 127\.0\.0\.1, which is a loopback address.*reached by following a redirect from http:\/\/rebind\.test:\d+\/start\)$/,
    );
    expect(resolver.asked).toEqual(['rebind.test', 'rebind.test']);
    expect(server.requests).toHaveLength(1);
    expect(canary.connections).toBe(0);
  });
});

describe('http_request never reaches a cloud metadata endpoint, not even with allow_private_network', () => {
  // Nothing here listens on a metadata address: a refusal that came too late would trip the loopback guard.
  const NEVER_ALLOWED = /which is never allowed \(not even with allow_private_network: it hands out this machine's cloud credentials\); use a public host/;

  it.each([
    ['169.254.169.254', 'metadata-alias\\.test resolves to 169\\.254\\.169\\.254, which is a cloud metadata endpoint'],
    ['fd00:ec2::254', 'metadata-alias\\.test resolves to fd00:ec2::254, which is a cloud metadata endpoint'],
    ['100.100.100.200', 'metadata-alias\\.test resolves to 100\\.100\\.100\\.200, which is a cloud metadata endpoint'],
    ['169.254.170.2', 'metadata-alias\\.test resolves to 169\\.254\\.170\\.2, which is a cloud metadata endpoint'],
    ['::ffff:169.254.169.254', 'metadata-alias\\.test resolves to ::ffff:a9fe:a9fe, which is an IPv4-mapped IPv6 address of 169\\.254\\.169\\.254, which is a cloud metadata endpoint'],
  ])('refuses at connect time a name that resolves to %s, before the socket gets an address', async (address, subject) => {
    const resolver = fakeResolver({ 'metadata-alias.test': [[address]] });
    // The classifier seam calls every address public: the metadata rule must not depend on it.
    const everythingPublic = (candidate: string) => ({ ...classifyAddress('8.8.8.8'), address: candidate });
    const tool = createHttpRequestTool({ resolveHost: resolver, classifyAddress: everythingPublic });
    const promise = run({ url: 'http://metadata-alias.test/latest/meta-data/' }, context(PRIVATE_ALLOWED), tool);
    await expect(promise).rejects.toThrow(new RegExp(`^http_request refused: ${subject}, which is never allowed`));
    await expect(promise).rejects.toThrow(NEVER_ALLOWED);
    expect(resolver.asked).toEqual(['metadata-alias.test']);
    expect(guardTrips).toEqual([]);
  });

  it.each([
    ['http://169.254.169.254/', '169\\.254\\.169\\.254 is a cloud metadata endpoint'],
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', '169\\.254\\.169\\.254 is a cloud metadata endpoint'],
    ['http://2852039166/', '169\\.254\\.169\\.254 is a cloud metadata endpoint'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254 is a cloud metadata endpoint'],
    ['http://100.100.100.200/latest/meta-data/', '100\\.100\\.100\\.200 is a cloud metadata endpoint'],
    ['http://169.254.170.2/v2/credentials', '169\\.254\\.170\\.2 is a cloud metadata endpoint'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe is an IPv4-mapped IPv6 address of 169\\.254\\.169\\.254, which is a cloud metadata endpoint'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata\\.google\\.internal is a cloud metadata service name'],
    ['http://METADATA.GOOG./', 'metadata\\.goog is a cloud metadata service name'],
  ])('refuses %s before resolving or connecting', async (url, subject) => {
    // Were the name check missing, this resolver would hand out the real metadata address.
    const resolver = fakeResolver({ 'metadata.google.internal': [['169.254.169.254']], 'metadata.goog': [['169.254.169.254']] });
    const tool = createHttpRequestTool({ resolveHost: resolver });
    const promise = run({ url }, context(PRIVATE_ALLOWED), tool);
    await expect(promise).rejects.toThrow(new RegExp(`^http_request refused: ${subject}, which is never allowed`));
    await expect(promise).rejects.toThrow(NEVER_ALLOWED);
    expect(resolver.asked).toEqual([]);
    expect(guardTrips).toEqual([]);
  });

  it('refuses it even when allowed_domains lists it explicitly', async () => {
    const settings = { ...PRIVATE_ALLOWED, allowed_domains: ['169.254.169.254', 'metadata.google.internal'] };
    await expect(run({ url: 'http://169.254.169.254/' }, context(settings))).rejects.toThrow(/^http_request refused: 169\.254\.169\.254 is a cloud metadata endpoint/);
    await expect(run({ url: 'http://metadata.google.internal/' }, context(settings))).rejects.toThrow(/^http_request refused: metadata\.google\.internal is a cloud metadata service name/);
  });

  it('refuses it with the same message when private network access is off', async () => {
    await expect(run({ url: 'http://169.254.169.254/' }, context())).rejects.toThrow(NEVER_ALLOWED);
  });

  it('refuses a redirect from an allowed local server to the metadata endpoint', async () => {
    const server = await startServer((_, response) => redirect(response, 302, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'));
    await expect(run({ url: `${server.url}/start` }, context(PRIVATE_ALLOWED))).rejects.toThrow(
      new RegExp(`^http_request refused: 169\\.254\\.169\\.254 is a cloud metadata endpoint, which is never allowed.*reached by following a redirect from ${server.url}/start\\)$`),
    );
    expect(server.requests).toHaveLength(1);
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
    const observation = await run({ url: server.url, timeout_ms: 10_000 }, context({ ...PRIVATE_ALLOWED, max_response_bytes: 1000 }));
    expect(observation).toBe(`HTTP 200 OK · text/plain · 1000 bytes (truncated at 1000 bytes)\n${'y'.repeat(1000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(serverSawClose).toBe(true);
  });

  it('gives up after timeout_ms when the server never answers', async () => {
    let serverSawClose = false;
    const server = await startServer((_, response) => response.on('close', () => (serverSawClose = true)));
    const started = Date.now();
    await expect(run({ url: server.url, timeout_ms: 300 }, context(PRIVATE_ALLOWED))).rejects.toThrow(/^http_request timed out after 300 ms/);
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
    await expect(run({ url: server.url, timeout_ms: 300 }, context(PRIVATE_ALLOWED))).rejects.toThrow(/^http_request timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops when the engine aborts the call through context.signal, whichever comes first', async () => {
    const server = await startServer(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = Date.now();
    await expect(run({ url: server.url, timeout_ms: 60_000 }, context(PRIVATE_ALLOWED, { signal: controller.signal }))).rejects.toThrow(
      /^http_request timed out after \d+ ms: the tool call was stopped/,
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('does not connect at all when the signal is already aborted', async () => {
    const canary = await startCanary();
    const controller = new AbortController();
    controller.abort();
    await expect(run({ url: canary.url }, context(PRIVATE_ALLOWED, { signal: controller.signal }))).rejects.toThrow(/timed out/);
    expect(canary.connections).toBe(0);
  });
});
