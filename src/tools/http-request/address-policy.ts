import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

/**
 * Which hosts and addresses the http_request tool may contact. Pure functions: nothing here opens a
 * connection or resolves a name, so every rule can be unit-tested as a table.
 */

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

/**
 * Lower-cases a URL host, removes IPv6 brackets and a trailing dot, and writes IP literals canonically,
 * so that `[::1]`, `LOCALHOST.` and `example.com.` compare equal to their plain forms.
 */
export function normalizeHost(host: string): string {
	let normalized = host.trim().toLowerCase();
	if (normalized.startsWith('[') && normalized.endsWith(']')) normalized = normalized.slice(1, -1);
	if (normalized.endsWith('.')) normalized = normalized.slice(0, -1);
	if (isIP(normalized)) return ipaddr.parse(normalized).toString();
	return domainToASCII(normalized) || normalized;
}

/** Names of cloud metadata services; refused by name (always, like their addresses) as well as by address. */
const METADATA_HOSTNAMES = new Set([
	'metadata',
	'metadata.google.internal',
	'metadata.goog',
	'instance-data',
	'instance-data.ec2.internal',
]);
const LOOPBACK_HOSTNAMES = new Set([
	'localhost',
	'localhost.localdomain',
	'ip6-localhost',
	'ip6-loopback',
]);

/**
 * Says why a host name is refused before it is even resolved (when private network access is off),
 * or undefined. `localhost` and `*.localhost` always mean this machine (RFC 6761).
 */
export function hostnameRefusalReason(host: string): string | undefined {
	const normalized = normalizeHost(host);
	if (LOOPBACK_HOSTNAMES.has(normalized) || normalized.endsWith('.localhost'))
		return 'a localhost name (this machine)';
	if (METADATA_HOSTNAMES.has(normalized)) return 'a cloud metadata service name';
	return undefined;
}

/** True when `host` is the name of a cloud metadata service; such a name is refused even with `allow_private_network`. */
export function isMetadataHostname(host: string): boolean {
	return METADATA_HOSTNAMES.has(normalizeHost(host));
}

/**
 * One entry of `allowed_domains`: an exact host (`api.example.com`, `127.0.0.1`, `::1`) or a wildcard
 * `*.example.com`, which matches any subdomain at any depth (`a.example.com`, `a.b.example.com`) but
 * not `example.com` itself — list both when both are wanted. Matching is case-insensitive.
 */
export interface DomainRule {
	/** The entry as configured, for messages. */
	entry: string;
	/** The normalised host, or the suffix after `*.` for a wildcard. */
	host: string;
	wildcard: boolean;
}

/** Why an `allowed_domains` entry can never match a host, and how to write it instead. */
export interface DomainEntryProblem {
	/** E.g. `"https://api.example.com/v1" is not a host name: it has a scheme and a path`. */
	reason: string;
	/** E.g. `write the host name only, e.g. api.example.com`. */
	fix: string;
}

/** Labels of letters, digits, `-` and `_` (internal names use it), after IDNA conversion to ASCII. */
const HOST_NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/**
 * The one rule for an `allowed_domains` entry, whether it comes from tool settings, the CLI config or the
 * n8n header credential: a host name (`api.example.com`, `bücher.example`), a wildcard `*.example.com`, or
 * an IP address (`127.0.0.1`, `::1`, `[::1]`). A URL, a path, a query or a port is refused rather than
 * ignored, because such an entry matches no host and every call would fail with a puzzling "not in
 * allowed_domains". Ports are not part of the rule: an entry allows every port of its host.
 */
export function domainEntryProblem(entry: string): DomainEntryProblem | undefined {
	const trimmed = entry.trim();
	// Blank entries are dropped when read, so a list of only blanks would quietly allow every host.
	if (trimmed === '')
		return {
			reason: 'an entry is blank',
			fix: 'remove it, or write a host name such as api.example.com',
		};
	const wildcard = trimmed.startsWith('*.');
	const host = wildcard ? trimmed.slice(2) : trimmed;
	const bracketless = host.replace(/^\[(.*)\]$/, '$1');
	// domainToASCII parses its input as a URL's host and quietly drops what follows (`a.com/v1` → `a.com`),
	// so URL syntax is refused before; after it, the entry reads as URLs do (IDNA, lower case, `127.1` = 127.0.0.1).
	const ascii = /[/?#@\\%:\s[\]]/.test(host)
		? ''
		: domainToASCII(host.toLowerCase()).replace(/\.$/, '');
	// A zone index (`fe80::1%eth0`) never appears in a URL's host, so such an entry could never match.
	const address =
		isIP(bracketless) && !bracketless.includes('%') ? bracketless : isIP(ascii) ? ascii : '';
	if (address) {
		if (!wildcard) return undefined;
		return {
			reason: `"${trimmed}" puts *. before an IP address, which has no subdomains`,
			fix: `write the address only, e.g. ${address}`,
		};
	}
	if (ascii !== '' && HOST_NAME.test(ascii)) return undefined;
	const parts = entryShape(trimmed);
	const reason = `"${trimmed}" is not a host name${parts.length > 0 ? `: it has ${joinWithAnd(parts)}` : ''}`;
	const suggestion = parts.length > 0 ? suggestedHost(trimmed) : undefined;
	return { reason, fix: `write the host name only, e.g. ${suggestion ?? 'api.example.com'}` };
}

/** The URL parts an entry carries that a host name cannot, for the refusal message. */
function entryShape(entry: string): string[] {
	const afterScheme = entry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
	const authority = afterScheme.split(/[/?#]/)[0];
	const parts: string[] = [];
	if (afterScheme !== entry) parts.push('a scheme');
	if (authority.includes('@')) parts.push('a user name');
	if (/:\d*$/.test(authority.replace(/^.*@/, '')) && !isIP(authority)) parts.push('a port');
	if (afterScheme.slice(authority.length).replace(/[?#].*$/, '').length > 0) parts.push('a path');
	if (/[?#]/.test(afterScheme)) parts.push('a query or fragment');
	if (/\s/.test(entry)) parts.push('spaces');
	return parts;
}

/** The host a URL-shaped entry names, when it has one that would itself be a valid entry. */
function suggestedHost(entry: string): string | undefined {
	try {
		const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `http://${entry}`);
		const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
		return host !== '' && !domainEntryProblem(host) ? host : undefined;
	} catch {
		return undefined;
	}
}

function joinWithAnd(items: string[]): string {
	return items.length <= 1
		? items.join('')
		: `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Parses `allowed_domains` entries; blank entries are dropped. Check them first with `domainEntryProblem`. */
export function parseDomainRules(entries: readonly string[]): DomainRule[] {
	return entries
		.filter((entry) => entry.trim() !== '')
		.map((entry) => {
			const trimmed = entry.trim();
			const wildcard = trimmed.startsWith('*.');
			return {
				entry: trimmed,
				host: normalizeHost(wildcard ? trimmed.slice(2) : trimmed),
				wildcard,
			};
		});
}

/** True when `host` matches at least one rule; an empty rule list allows every host. */
export function isHostAllowed(host: string, rules: readonly DomainRule[]): boolean {
	if (rules.length === 0) return true;
	const normalized = normalizeHost(host);
	return rules.some((rule) =>
		rule.wildcard
			? rule.host !== '' && normalized.endsWith(`.${rule.host}`)
			: normalized === rule.host,
	);
}
