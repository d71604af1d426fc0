// Host names the http_request tool refuses by name, and the allowed_domains rules a host must match.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

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
