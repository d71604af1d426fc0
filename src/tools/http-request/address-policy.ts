import ipaddr from 'ipaddr.js';

/**
 * Which addresses the http_request tool may contact (host names and allowed_domains: host-rules.ts).
 * Pure functions: nothing here opens a connection or resolves a name, so every rule can be unit-tested as a table.
 */

export {
	domainEntryProblem,
	hostnameRefusalReason,
	isHostAllowed,
	isMetadataHostname,
	normalizeHost,
	parseDomainRules,
	type DomainEntryProblem,
	type DomainRule,
} from './host-rules';

/** The verdict on one IP address, for a caller whose private network access is off. */
export interface AddressClassification {
	/** The address in canonical form (`127.0.0.1`, `::ffff:7f00:1`); the input when it does not parse. */
	address: string;
	/** The ipaddr.js range name (`loopback`, `private`, `linkLocal`, `unicast`, …), or one of ours: `invalid`, `ipv4Compatible`, `nat64LocalUse`. */
	range: string;
	/** True when the address must not be contacted without `allow_private_network`. */
	forbidden: boolean;
	/** True for a cloud metadata endpoint, which must never be contacted, not even with `allow_private_network`; implies `forbidden`. */
	alwaysForbidden: boolean;
	/** For IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, Teredo): the verdict on the carried address that decided. */
	embedded?: AddressClassification;
	/** A short phrase for error messages, e.g. "a loopback address (this machine)". */
	description: string;
}

// Fail closed: only ranges known to be publicly routable are allowed, so a range ipaddr.js adds later is refused until reviewed.
const PUBLIC_IPV4_RANGES = new Set(['unicast', 'as112', 'amt']);
const PUBLIC_IPV6_RANGES = new Set(['unicast', 'as112v6', 'amt']);

const RANGE_DESCRIPTIONS: Record<string, string> = {
	unspecified: 'an unspecified address (0.0.0.0 or ::), which reaches this machine',
	loopback: 'a loopback address (this machine)',
	private: 'a private network address (10/8, 172.16/12, 192.168/16)',
	linkLocal: 'a link-local address (169.254/16, fe80::/10; reachable only on the local link)',
	uniqueLocal: 'a unique-local IPv6 address (fc00::/7, private network)',
	carrierGradeNat: 'a carrier-grade NAT address (100.64/10, internal to a provider network)',
	multicast: 'a multicast address',
	broadcast: 'the broadcast address',
	reserved: 'a reserved or documentation address',
	ipv4Compatible: 'a deprecated IPv4-compatible IPv6 address',
	nat64LocalUse:
		'a local-use NAT64 address (64:ff9b:1::/48), which translates into a private network',
	deprecatedSiteLocal: 'a site-local IPv6 address (private network)',
	invalid: 'not a valid IP address',
};

const EMBEDDING_DESCRIPTIONS: Record<string, string> = {
	ipv4Mapped: 'an IPv4-mapped IPv6 address',
	rfc6145: 'an IPv4-translated IPv6 address',
	rfc6052: 'a NAT64 address',
	'6to4': 'a 6to4 address',
	teredo: 'a Teredo address',
};

/**
 * Cloud metadata endpoints, canonically spelled. They hand out the machine's cloud credentials, so opening
 * the private network for a trusted internal API must not open them too.
 */
const METADATA_ADDRESSES = new Set([
	'169.254.169.254', // AWS, Azure, Google Cloud, Oracle, DigitalOcean, OpenStack
	'169.254.170.2', // AWS ECS task metadata and credentials
	'100.100.100.200', // Alibaba Cloud
	'fd00:ec2::254', // AWS over IPv6
]);
const METADATA_DESCRIPTION = 'a cloud metadata endpoint, which is never allowed';

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48');

/**
 * Classifies an IP address (any spelling ipaddr.js accepts, including `2130706433`, `0x7f000001`,
 * `127.1` and `0177.0.0.1`) and says whether it is forbidden when private network access is off.
 * IPv6 forms that carry an IPv4 address are judged by the carried address, because the kernel or a
 * translator on the path delivers the packets to it.
 */
export function classifyAddress(address: string): AddressClassification {
	let parsed: ipaddr.IPv4 | ipaddr.IPv6;
	try {
		parsed = ipaddr.parse(address);
	} catch {
		return verdict(address, 'invalid', true);
	}
	return parsed.kind() === 'ipv4'
		? classifyIpv4(parsed as ipaddr.IPv4)
		: classifyIpv6(parsed as ipaddr.IPv6);
}

/** Shorthand for `classifyAddress(address).forbidden`. */
export function isForbiddenAddress(address: string): boolean {
	return classifyAddress(address).forbidden;
}

/** Shorthand for `classifyAddress(address).alwaysForbidden`: any spelling of a cloud metadata endpoint, IPv6 forms carrying one included. */
export function isMetadataAddress(address: string): boolean {
	return classifyAddress(address).alwaysForbidden;
}

function classifyIpv4(address: ipaddr.IPv4): AddressClassification {
	const range = address.range();
	if (METADATA_ADDRESSES.has(address.toString())) return metadataVerdict(address.toString(), range);
	return verdict(address.toString(), range, !PUBLIC_IPV4_RANGES.has(range));
}

function classifyIpv6(address: ipaddr.IPv6): AddressClassification {
	const range = ipv6Range(address);
	const carried = embeddedIpv4Addresses(address, range);
	if (carried.length === 0) {
		if (METADATA_ADDRESSES.has(address.toString()))
			return metadataVerdict(address.toString(), range);
		return verdict(address.toString(), range, !PUBLIC_IPV6_RANGES.has(range));
	}
	const inner = carried.map(classifyIpv4);
	// The strictest carried verdict decides, so a metadata endpoint wins over a merely private address.
	const deciding =
		inner.find((classification) => classification.alwaysForbidden) ??
		inner.find((classification) => classification.forbidden) ??
		inner[0];
	const description = `${EMBEDDING_DESCRIPTIONS[range]} of ${deciding.address}, which is ${deciding.description}`;
	return {
		address: address.toString(),
		range,
		forbidden: deciding.forbidden,
		alwaysForbidden: deciding.alwaysForbidden,
		embedded: deciding,
		description,
	};
}

/** ipaddr.js calls `::a.b.c.d` and the local-use NAT64 prefix plain unicast / NAT64; we need them apart. */
function ipv6Range(address: ipaddr.IPv6): string {
	const range = address.range();
	if (range === 'unicast' && address.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
	if (range === 'rfc6052' && address.match(NAT64_LOCAL_USE)) return 'nat64LocalUse';
	return range;
}

function embeddedIpv4Addresses(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
	const parts = address.parts;
	switch (range) {
		case 'ipv4Mapped':
			return [address.toIPv4Address()];
		case 'rfc6145':
		case 'rfc6052':
			return [ipv4FromWords(parts[6], parts[7])];
		case '6to4':
			return [ipv4FromWords(parts[1], parts[2])];
		case 'teredo':
			// RFC 4380: the server sits in words 2-3, the client (the real destination) in words 6-7, bit-inverted.
			return [
				ipv4FromWords(parts[2], parts[3]),
				ipv4FromWords(~parts[6] & 0xffff, ~parts[7] & 0xffff),
			];
		default:
			return [];
	}
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
	return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function verdict(address: string, range: string, forbidden: boolean): AddressClassification {
	const description =
		RANGE_DESCRIPTIONS[range] ??
		(forbidden ? `a special-purpose address (${range})` : 'a public address');
	return { address, range, forbidden, alwaysForbidden: false, description };
}

function metadataVerdict(address: string, range: string): AddressClassification {
	return {
		address,
		range,
		forbidden: true,
		alwaysForbidden: true,
		description: METADATA_DESCRIPTION,
	};
}
