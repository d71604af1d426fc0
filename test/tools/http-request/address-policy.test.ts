import {
	classifyAddress,
	hostnameRefusalReason,
	isForbiddenAddress,
	isHostAllowed,
	isMetadataAddress,
	isMetadataHostname,
	normalizeHost,
	parseDomainRules,
} from '../../../src/tools/http-request/address-policy';

// Pure functions only: nothing in this file resolves a name or opens a connection.

describe('classifyAddress with private network access off', () => {
	it.each([
		['127.0.0.1', 'loopback'],
		['127.255.255.254', 'loopback'],
		['10.0.0.1', 'private'],
		['10.255.255.255', 'private'],
		['172.16.0.1', 'private'],
		['172.31.255.255', 'private'],
		['192.168.1.1', 'private'],
		['169.254.169.254', 'linkLocal'],
		['169.254.0.1', 'linkLocal'],
		['100.64.0.1', 'carrierGradeNat'],
		['100.100.100.200', 'carrierGradeNat'],
		['100.127.255.255', 'carrierGradeNat'],
		['0.0.0.0', 'unspecified'],
		['0.1.2.3', 'unspecified'],
		['255.255.255.255', 'broadcast'],
		['224.0.0.1', 'multicast'],
		['240.0.0.1', 'reserved'],
		['192.0.2.1', 'reserved'],
		['::1', 'loopback'],
		['::', 'unspecified'],
		['fe80::1', 'linkLocal'],
		['fc00::1', 'uniqueLocal'],
		['fd00:ec2::254', 'uniqueLocal'],
		['ff02::1', 'multicast'],
		['fec0::1', 'deprecatedSiteLocal'],
		['2001:db8::1', 'reserved'],
		// Hex spelling on purpose: ipaddr.js reads the dotted `::a.b.c.d` as IPv4-mapped (still forbidden for 127.x, see below).
		['::7f00:1', 'ipv4Compatible'],
		['::808:808', 'ipv4Compatible'],
		['64:ff9b:1::1', 'nat64LocalUse'],
		['not-an-ip', 'invalid'],
		['', 'invalid'],
	])('forbids %s (%s)', (address, range) => {
		const classification = classifyAddress(address);
		expect(classification).toMatchObject({ range, forbidden: true });
		expect(classification.description).not.toBe('a public address');
	});

	it.each([
		['::ffff:127.0.0.1', 'ipv4Mapped', '127.0.0.1'],
		['::ffff:7f00:1', 'ipv4Mapped', '127.0.0.1'],
		['::ffff:10.0.0.1', 'ipv4Mapped', '10.0.0.1'],
		['::127.0.0.1', 'ipv4Mapped', '127.0.0.1'],
		['::ffff:169.254.169.254', 'ipv4Mapped', '169.254.169.254'],
		['::ffff:0:7f00:1', 'rfc6145', '127.0.0.1'],
		['64:ff9b::7f00:1', 'rfc6052', '127.0.0.1'],
		['64:ff9b::a00:1', 'rfc6052', '10.0.0.1'],
		['2002:7f00:1::', '6to4', '127.0.0.1'],
		['2002:a9fe:a9fe::1', '6to4', '169.254.169.254'],
		// Teredo: server 65.54.227.120, client 127.0.0.1 stored bit-inverted in the last 32 bits.
		['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo', '127.0.0.1'],
	])(
		'forbids %s because it carries a forbidden IPv4 address (%s of %s)',
		(address, range, carried) => {
			const classification = classifyAddress(address);
			expect(classification).toMatchObject({
				range,
				forbidden: true,
				embedded: { address: carried, forbidden: true },
			});
			expect(classification.description).toContain(carried);
		},
	);

	it.each([
		'8.8.8.8',
		'1.1.1.1',
		'11.0.0.1',
		'172.15.255.255',
		'172.32.0.1',
		'100.63.255.255',
		'100.128.0.1',
		'169.253.255.255',
		'192.169.0.1',
		'2606:4700::1111',
		'2001:4860:4860::8888',
		'::ffff:8.8.8.8',
		'64:ff9b::808:808',
		'2002:808:808::1',
	])('allows the public address %s', (address) => {
		expect(classifyAddress(address).forbidden).toBe(false);
		expect(isForbiddenAddress(address)).toBe(false);
	});

	it.each(['2130706433', '0x7f000001', '127.1', '0177.0.0.1', '0x7f.0.0.1'])(
		'reads the non-canonical IPv4 spelling %s as 127.0.0.1 and forbids it',
		(spelling) => {
			expect(classifyAddress(spelling)).toMatchObject({
				address: '127.0.0.1',
				range: 'loopback',
				forbidden: true,
			});
		},
	);

	it.each([
		['2130706433', '127.0.0.1'],
		['0x7f000001', '127.0.0.1'],
		['127.1', '127.0.0.1'],
		['0177.0.0.1', '127.0.0.1'],
		['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
	])('sees the URL host %s the way Node does (%s) and forbids it', (spelling, canonical) => {
		const host = normalizeHost(new URL(`http://${spelling}:8080/`).hostname);
		expect(host).toBe(canonical);
		expect(isForbiddenAddress(host)).toBe(true);
	});
});

describe('cloud metadata endpoints, refused even with private network access on', () => {
	it.each([
		['169.254.169.254', '169.254.169.254'],
		['2852039166', '169.254.169.254'],
		['0xa9fea9fe', '169.254.169.254'],
		['169.254.43518', '169.254.169.254'],
		['169.254.170.2', '169.254.170.2'],
		['100.100.100.200', '100.100.100.200'],
		['fd00:ec2::254', 'fd00:ec2::254'],
		['FD00:0EC2:0:0:0:0:0:0254', 'fd00:ec2::254'],
	])('classifies %s as the metadata endpoint %s, always forbidden', (spelling, canonical) => {
		expect(classifyAddress(spelling)).toMatchObject({
			address: canonical,
			forbidden: true,
			alwaysForbidden: true,
			description: 'a cloud metadata endpoint, which is never allowed',
		});
		expect(isMetadataAddress(spelling)).toBe(true);
	});

	it.each([
		['::ffff:169.254.169.254', '169.254.169.254'],
		['::ffff:a9fe:a9fe', '169.254.169.254'],
		['64:ff9b::a9fe:a9fe', '169.254.169.254'],
		['2002:a9fe:a9fe::1', '169.254.169.254'],
		['::ffff:100.100.100.200', '100.100.100.200'],
	])('classifies %s, which carries %s, as a metadata endpoint too', (address, carried) => {
		const classification = classifyAddress(address);
		expect(classification).toMatchObject({
			forbidden: true,
			alwaysForbidden: true,
			embedded: { address: carried, alwaysForbidden: true },
		});
		expect(classification.description).toContain(
			`${carried}, which is a cloud metadata endpoint, which is never allowed`,
		);
	});

	it.each([
		'169.254.169.253',
		'169.254.170.3',
		'100.100.100.201',
		'fd00:ec2::253',
		'127.0.0.1',
		'10.0.0.1',
		'8.8.8.8',
		'::ffff:8.8.8.8',
		'not-an-ip',
	])('does not count %s as a metadata endpoint (it is judged by its range alone)', (address) => {
		expect(classifyAddress(address).alwaysForbidden).toBe(false);
		expect(isMetadataAddress(address)).toBe(false);
	});

	it.each([
		'metadata.google.internal',
		'Metadata.Google.Internal.',
		'metadata.goog',
		'metadata',
		'instance-data',
		'instance-data.ec2.internal',
	])('recognises %s as a metadata service name', (host) => {
		expect(isMetadataHostname(host)).toBe(true);
	});

	it.each([
		'localhost',
		'metadata.example.com',
		'google.internal',
		'example.com',
		'169.254.169.254',
	])('does not count %s as a metadata service name', (host) => {
		expect(isMetadataHostname(host)).toBe(false);
	});
});

describe('hostnameRefusalReason', () => {
	it.each([
		'localhost',
		'LOCALHOST.',
		'app.localhost',
		'localhost.localdomain',
		'metadata.google.internal',
		'Metadata.Google.Internal.',
		'metadata',
		'instance-data',
	])('refuses %s by name', (host) => {
		expect(hostnameRefusalReason(host)).toEqual(expect.any(String));
	});

	it.each(['example.com', 'localhost.example.com', 'metadata.example.com', '8.8.8.8'])(
		'does not refuse %s by name',
		(host) => {
			expect(hostnameRefusalReason(host)).toBeUndefined();
		},
	);
});

describe('isHostAllowed', () => {
	const rules = parseDomainRules([
		'api.example.com',
		'*.Example.NET',
		' ',
		'[::1]',
		'bücher.example',
	]);

	it.each([
		'api.example.com',
		'API.Example.com',
		'api.example.com.',
		'a.example.net',
		'a.b.example.net',
		'::1',
		'[0:0::1]',
		'xn--bcher-kva.example',
	])('allows %s', (host) => {
		expect(isHostAllowed(host, rules)).toBe(true);
	});

	it.each([
		'example.com',
		'www.api.example.com',
		'example.net',
		'evil-example.net',
		'example.net.evil.com',
		'other.org',
		'127.0.0.1',
	])('refuses %s', (host) => {
		expect(isHostAllowed(host, rules)).toBe(false);
	});

	it('allows any host when the list is empty or blank', () => {
		expect(isHostAllowed('anything.example', [])).toBe(true);
		expect(isHostAllowed('anything.example', parseDomainRules(['', '  ']))).toBe(true);
	});

	it('keeps the configured spelling of each entry for messages', () => {
		expect(rules.map((rule) => rule.entry)).toEqual([
			'api.example.com',
			'*.Example.NET',
			'[::1]',
			'bücher.example',
		]);
	});
});
