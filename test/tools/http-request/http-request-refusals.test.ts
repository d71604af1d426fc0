import os from 'node:os';
import { classifyAddress } from '../../../src/tools/http-request/address-policy';
import { createHttpRequestTool } from '../../../src/tools/http-request';
import {
	context,
	fakeResolver,
	guardTrips,
	PRIVATE_ALLOWED,
	redirect,
	run,
	startCanary,
	startServer,
	type TestServer,
	useLoopbackGuard,
} from '../../support/servers/http-servers';

// What http_request refuses, each time proven by a loopback canary that counts its connections.
useLoopbackGuard();

const ipv6LoopbackAvailable = Object.values(os.networkInterfaces()).some((entries) =>
	entries?.some((entry) => entry.address === '::1'),
);

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
		[
			'http://[::ffff:127.0.0.1]:PORT/',
			/::ffff:7f00:1 is an IPv4-mapped IPv6 address of 127\.0\.0\.1, which is a loopback address/,
		],
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
		await expect(run({ url: `${canary.url}/` }, context())).rejects.toThrow(
			/::1 is a loopback address/,
		);
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
		await expect(
			run({ url: canary.url, headers: { Host: 'internal.example' } }, context(PRIVATE_ALLOWED)),
		).rejects.toThrow(/header "Host" is set by the tool/);
		expect(canary.connections).toBe(0);
	});

	it('refuses a redirect to a host outside allowed_domains', async () => {
		const canary = await startCanary();
		const server = await startServer((_, response) =>
			redirect(response, 302, `http://localhost:${canary.port}/`),
		);
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
		await expect(
			run(
				{ url: `http://public.test:${canary.port}/` },
				context({ allowed_domains: ['public.test'] }),
				tool,
			),
		).rejects.toThrow(
			/^http_request refused: public\.test resolves to 127\.0\.0\.1, which is a loopback address/,
		);
		expect(resolver.asked).toEqual(['public.test']);
		expect(canary.connections).toBe(0);
	});

	it('checks every address a name resolves to, not only the first', async () => {
		const canary = await startCanary();
		const tool = createHttpRequestTool({
			resolveHost: fakeResolver({ 'mixed.test': [['8.8.8.8', '127.0.0.1']] }),
		});
		await expect(
			run({ url: `http://mixed.test:${canary.port}/` }, context(), tool),
		).rejects.toThrow(/mixed\.test resolves to 127\.0\.0\.1/);
		expect(canary.connections).toBe(0);
	});

	it('re-checks a name on every hop, so a redirect cannot rebind it to loopback (private network off)', async () => {
		// 127.0.0.2 stands in for a public server: the tool is told to treat that one address as public.
		const treatAsPublic = (address: string) =>
			address === '127.0.0.2'
				? { ...classifyAddress('8.8.8.8'), address }
				: classifyAddress(address);
		const canary = await startCanary();
		let server: TestServer;
		try {
			server = await startServer(
				(_, response) => redirect(response, 302, `http://rebind.test:${canary.port}/`),
				'127.0.0.2',
			);
		} catch {
			console.warn('127.0.0.2 cannot be bound on this machine; skipping the rebinding test');
			return;
		}
		// The first answer passes the check and is where the first hop connects; the second is loopback.
		const resolver = fakeResolver({ 'rebind.test': [['127.0.0.2'], ['127.0.0.1']] });
		const tool = createHttpRequestTool({ resolveHost: resolver, classifyAddress: treatAsPublic });
		await expect(
			run(
				{ url: `http://rebind.test:${server.port}/start` },
				context({ allowed_domains: ['rebind.test'] }),
				tool,
			),
		).rejects.toThrow(
			/^http_request refused: rebind\.test resolves to 127\.0\.0\.1, which is a loopback address.*reached by following a redirect from http:\/\/rebind\.test:\d+\/start\)$/,
		);
		expect(resolver.asked).toEqual(['rebind.test', 'rebind.test']);
		expect(server.requests).toHaveLength(1);
		expect(canary.connections).toBe(0);
	});
});

describe('http_request never reaches a cloud metadata endpoint, not even with allow_private_network', () => {
	// Nothing here listens on a metadata address: a refusal that came too late would trip the loopback guard.
	const NEVER_ALLOWED =
		/which is never allowed \(not even with allow_private_network: it hands out this machine's cloud credentials\); use a public host/;

	it.each([
		[
			'169.254.169.254',
			'metadata-alias\\.test resolves to 169\\.254\\.169\\.254, which is a cloud metadata endpoint',
		],
		[
			'fd00:ec2::254',
			'metadata-alias\\.test resolves to fd00:ec2::254, which is a cloud metadata endpoint',
		],
		[
			'100.100.100.200',
			'metadata-alias\\.test resolves to 100\\.100\\.100\\.200, which is a cloud metadata endpoint',
		],
		[
			'169.254.170.2',
			'metadata-alias\\.test resolves to 169\\.254\\.170\\.2, which is a cloud metadata endpoint',
		],
		[
			'::ffff:169.254.169.254',
			'metadata-alias\\.test resolves to ::ffff:a9fe:a9fe, which is an IPv4-mapped IPv6 address of 169\\.254\\.169\\.254, which is a cloud metadata endpoint',
		],
	])(
		'refuses at connect time a name that resolves to %s, before the socket gets an address',
		async (address, subject) => {
			const resolver = fakeResolver({ 'metadata-alias.test': [[address]] });
			// The classifier seam calls every address public: the metadata rule must not depend on it.
			const everythingPublic = (candidate: string) => ({
				...classifyAddress('8.8.8.8'),
				address: candidate,
			});
			const tool = createHttpRequestTool({
				resolveHost: resolver,
				classifyAddress: everythingPublic,
			});
			const promise = run(
				{ url: 'http://metadata-alias.test/latest/meta-data/' },
				context(PRIVATE_ALLOWED),
				tool,
			);
			await expect(promise).rejects.toThrow(
				new RegExp(`^http_request refused: ${subject}, which is never allowed`),
			);
			await expect(promise).rejects.toThrow(NEVER_ALLOWED);
			expect(resolver.asked).toEqual(['metadata-alias.test']);
			expect(guardTrips).toEqual([]);
		},
	);

	it.each([
		['http://169.254.169.254/', '169\\.254\\.169\\.254 is a cloud metadata endpoint'],
		[
			'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
			'169\\.254\\.169\\.254 is a cloud metadata endpoint',
		],
		['http://2852039166/', '169\\.254\\.169\\.254 is a cloud metadata endpoint'],
		['http://[fd00:ec2::254]/', 'fd00:ec2::254 is a cloud metadata endpoint'],
		[
			'http://100.100.100.200/latest/meta-data/',
			'100\\.100\\.100\\.200 is a cloud metadata endpoint',
		],
		['http://169.254.170.2/v2/credentials', '169\\.254\\.170\\.2 is a cloud metadata endpoint'],
		[
			'http://[::ffff:169.254.169.254]/',
			'::ffff:a9fe:a9fe is an IPv4-mapped IPv6 address of 169\\.254\\.169\\.254, which is a cloud metadata endpoint',
		],
		[
			'http://metadata.google.internal/computeMetadata/v1/',
			'metadata\\.google\\.internal is a cloud metadata service name',
		],
		['http://METADATA.GOOG./', 'metadata\\.goog is a cloud metadata service name'],
	])('refuses %s before resolving or connecting', async (url, subject) => {
		// Were the name check missing, this resolver would hand out the real metadata address.
		const resolver = fakeResolver({
			'metadata.google.internal': [['169.254.169.254']],
			'metadata.goog': [['169.254.169.254']],
		});
		const tool = createHttpRequestTool({ resolveHost: resolver });
		const promise = run({ url }, context(PRIVATE_ALLOWED), tool);
		await expect(promise).rejects.toThrow(
			new RegExp(`^http_request refused: ${subject}, which is never allowed`),
		);
		await expect(promise).rejects.toThrow(NEVER_ALLOWED);
		expect(resolver.asked).toEqual([]);
		expect(guardTrips).toEqual([]);
	});

	it('refuses it even when allowed_domains lists it explicitly', async () => {
		const settings = {
			...PRIVATE_ALLOWED,
			allowed_domains: ['169.254.169.254', 'metadata.google.internal'],
		};
		await expect(run({ url: 'http://169.254.169.254/' }, context(settings))).rejects.toThrow(
			/^http_request refused: 169\.254\.169\.254 is a cloud metadata endpoint/,
		);
		await expect(
			run({ url: 'http://metadata.google.internal/' }, context(settings)),
		).rejects.toThrow(
			/^http_request refused: metadata\.google\.internal is a cloud metadata service name/,
		);
	});

	it('refuses it with the same message when private network access is off', async () => {
		await expect(run({ url: 'http://169.254.169.254/' }, context())).rejects.toThrow(NEVER_ALLOWED);
	});

	it('refuses a redirect from an allowed local server to the metadata endpoint', async () => {
		const server = await startServer((_, response) =>
			redirect(response, 302, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'),
		);
		await expect(run({ url: `${server.url}/start` }, context(PRIVATE_ALLOWED))).rejects.toThrow(
			new RegExp(
				`^http_request refused: 169\\.254\\.169\\.254 is a cloud metadata endpoint, which is never allowed.*reached by following a redirect from ${server.url}/start\\)$`,
			),
		);
		expect(server.requests).toHaveLength(1);
	});
});
