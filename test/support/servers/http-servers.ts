import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
	httpRequestTool,
	type HostResolver,
	type HttpRequestArgs,
} from '../../../src/tools/http-request';
import type { Tool } from '../../../src/tools/tool';
import { callTool, type ToolCallOptions } from '../tool-call';
// Every server here listens on loopback. The guard below makes sure no socket opened by this file can
// reach anything else, even if the code under test were broken.

export interface RecordedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: string;
}

export interface TestServer {
	port: number;
	/** Base URL, e.g. http://127.0.0.1:12345 */
	url: string;
	requests: RecordedRequest[];
	/** TCP connections accepted, including ones that never sent a request. */
	connections: number;
}

export type Handler = (
	request: RecordedRequest,
	response: http.ServerResponse,
	server: TestServer,
) => void;

const openServers: Array<http.Server | https.Server> = [];

/**
 * A self-signed certificate for 127.0.0.1 and localhost, valid 2000–2125, made for these tests only (its
 * key guards nothing): `startHttpsServer` serves with it and a tool built with `certificateAuthorities:
 * [LOOPBACK_CERTIFICATE]` trusts it.
 */
export const LOOPBACK_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBpjCCAUugAwIBAgICEAAwCgYIKoZIzj0EAwIwIzEhMB8GA1UEAwwYYWdlbnQt
Y29yZSBsb29wYmFjayB0ZXN0MCAXDTAwMDEwMTAwMDAwMFoYDzIxMjUwMTAxMDAw
MDAwWjAjMSEwHwYDVQQDDBhhZ2VudC1jb3JlIGxvb3BiYWNrIHRlc3QwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAATCwRBZN0yMjDq90/XThj4eRBBXp+zER7KD8ty2
VvTG3XJCB6UCNxY17bGHnRymJ2dvJ/V9qjr0bKfa++LC9fYio20wazAaBgNVHREE
EzARhwR/AAABgglsb2NhbGhvc3QwDAYDVR0TAQH/BAIwADALBgNVHQ8EBAMCB4Aw
EwYDVR0lBAwwCgYIKwYBBQUHAwEwHQYDVR0OBBYEFPne4oTZWOvzxCq5SmxeYKdf
RXxOMAoGCCqGSM49BAMCA0kAMEYCIQCIpP8kgk45pgdtiqiRlIvEHrmAL/IyIEJh
QRhc12QdRwIhAM/mJ7eE1N1HIxawOX/KCyguKBgmPCHoyhikXpyKCoCA
-----END CERTIFICATE-----
`;
const LOOPBACK_CERTIFICATE_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgYEMX6WD5k1id8PCs
r4+lgyAmDH5IYtrg1anlqbk5rJGhRANCAATCwRBZN0yMjDq90/XThj4eRBBXp+zE
R7KD8ty2VvTG3XJCB6UCNxY17bGHnRymJ2dvJ/V9qjr0bKfa++LC9fYi
-----END PRIVATE KEY-----
`;

export function startServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
	return listen(http.createServer(), 'http', handler, host);
}

/** Like `startServer`, over TLS with `LOOPBACK_CERTIFICATE`, on 127.0.0.1; `url` starts with https://. */
export function startHttpsServer(handler: Handler): Promise<TestServer> {
	return listen(
		https.createServer({ key: LOOPBACK_CERTIFICATE_KEY, cert: LOOPBACK_CERTIFICATE }),
		'https',
		handler,
		'127.0.0.1',
	);
}

async function listen(
	server: http.Server | https.Server,
	scheme: 'http' | 'https',
	handler: Handler,
	host: string,
): Promise<TestServer> {
	const state: TestServer = { port: 0, url: '', requests: [], connections: 0 };
	server.on('connection', () => (state.connections += 1));
	server.on('request', (request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const recorded = {
				method: request.method ?? '',
				url: request.url ?? '',
				headers: request.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			};
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
	state.url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${state.port}`;
	return state;
}

/** A server that must never be reached: refusal tests assert its connection count stays 0. */
export const startCanary = (host = '127.0.0.1') =>
	startServer((_, response) => response.end('canary reached'), host);

export function sendJson(response: http.ServerResponse, value: unknown, status = 200): void {
	response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
	response.end(JSON.stringify(value, null, 2));
}

export function redirect(response: http.ServerResponse, status: number, location: string): void {
	response.writeHead(status, { location });
	response.end();
}

export function context(
	settings: Record<string, unknown> = {},
	overrides: Omit<ToolCallOptions, 'settings'> = {},
): ToolCallOptions {
	return { settings, ...overrides };
}

export const PRIVATE_ALLOWED = { allow_private_network: true };
/** For fixed headers to reach a loopback server, which speaks plain http on a random port. */
export const LOOPBACK_HEADERS_ALLOWED = { ...PRIVATE_ALLOWED, allow_insecure_headers: true };

/** A resolver for made-up names; each entry gives the answers for successive lookups (the last one repeats). */
export function fakeResolver(
	answers: Record<string, string[][]>,
): HostResolver & { asked: string[] } {
	const asked: string[] = [];
	const resolve = async (hostname: string) => {
		const sequence = answers[hostname];
		if (!sequence)
			throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
		const attempt = asked.filter((name) => name === hostname).length;
		asked.push(hostname);
		return sequence[Math.min(attempt, sequence.length - 1)].map((address) => ({
			address,
			family: net.isIP(address) as 4 | 6,
		}));
	};
	return Object.assign(resolve, { asked });
}

/** One http_request call as a run makes it: the observation (or the error) the model reads, redacted and cut by the engine. */
export const run = (
	args: HttpRequestArgs,
	options: ToolCallOptions,
	tool: Tool = httpRequestTool,
) => callTool(tool, args, options);

function isLoopback(address: string): boolean {
	try {
		let parsed = ipaddr.parse(address);
		if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress())
			parsed = parsed.toIPv4Address();
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
export const guardTrips: string[] = [];
const originalConnect = net.Socket.prototype.connect;
const originalLookup = dns.lookup;
const originalPromisesLookup = dns.promises.lookup;

function installLoopbackGuard(): void {
	// Servers call the resolver for their listen address too, so loopback literals are let through.
	const isLocalName = (hostname: string) => hostname === 'localhost' || isLoopback(hostname);
	const refuseName = (hostname: string) => {
		guardTrips.push(`resolve ${hostname}`);
		return Object.assign(
			new Error(`test guard: will not resolve ${hostname} outside this machine`),
			{ code: 'ENOTFOUND' },
		);
	};
	dns.lookup = function guardedLookup(hostname: string, ...rest: unknown[]) {
		if (isLocalName(hostname))
			return (originalLookup as (...args: unknown[]) => void)(hostname, ...rest);
		const callback = rest[rest.length - 1] as (error: Error) => void;
		process.nextTick(() => callback(refuseName(hostname)));
	} as typeof dns.lookup;
	dns.promises.lookup = (async (hostname: string, options?: dns.LookupOptions) => {
		if (!isLocalName(hostname)) throw refuseName(hostname);
		return originalPromisesLookup(hostname, options ?? {});
	}) as typeof dns.promises.lookup;
	net.Socket.prototype.connect = function loopbackOnlyConnect(
		this: net.Socket,
		...args: unknown[]
	) {
		const first = Array.isArray(args[0]) ? args[0][0] : args[0];
		const options = (
			typeof first === 'object' && first !== null
				? first
				: { host: typeof args[1] === 'string' ? args[1] : 'localhost' }
		) as net.TcpNetConnectOpts;
		if (!('path' in options && options.path)) {
			const host = options.host ?? 'localhost';
			if (net.isIP(host) && !isLoopback(host)) {
				guardTrips.push(`connect ${host}`);
				process.nextTick(() =>
					this.destroy(new Error(`test guard: refused to connect to ${host}`)),
				);
				return this;
			}
			const innerLookup = options.lookup ?? dns.lookup;
			options.lookup = (hostname, lookupOptions, callback) =>
				innerLookup(hostname, lookupOptions, (error, address, family) => {
					const addresses = Array.isArray(address)
						? address.map((entry) => entry.address)
						: [address];
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

/** Installs the loopback guard for the calling test file, closes its servers after each test and fails a test that tripped the guard. */
export function useLoopbackGuard(): void {
	beforeAll(installLoopbackGuard);

	afterEach(async () => {
		await Promise.all(
			openServers.splice(0).map(
				(server) =>
					new Promise((resolve) => {
						server.closeAllConnections();
						server.close(resolve);
					}),
			),
		);
		expect(guardTrips.splice(0)).toEqual([]);
	});

	afterAll(() => {
		net.Socket.prototype.connect = originalConnect;
		dns.lookup = originalLookup;
		dns.promises.lookup = originalPromisesLookup;
	});
}
