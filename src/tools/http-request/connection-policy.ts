import { checkEgress } from './egress';
import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import {
	classifyAddress,
	hostnameRefusalReason,
	isHostAllowed,
	isMetadataHostname,
	normalizeHost,
	type AddressClassification,
} from './address-policy';
import { carriesSettingsHeaders, type Hop } from './hop';
import { HttpRequestError } from './error';
import type { HttpRequestSettings } from './settings';

/**
 * What one hop may contact: `checkHop` refuses everything knowable from the URL before connecting, and
 * `guardedLookup` checks the addresses a name resolves to at connect time, as the socket's own resolver.
 * Cloud metadata endpoints are refused in both places whatever `allow_private_network` says.
 */

/** One address a host name resolves to. */
export interface ResolvedAddress {
	address: string;
	family: 4 | 6;
}

/** Resolves a host name to every address it has; called at connect time, and its answer is what the socket uses. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The resolver and classifier one tool instance uses (the production defaults, or test seams). */
export interface ConnectionPolicy {
	resolveHost: HostResolver;
	classifyAddress: (address: string) => AddressClassification;
	/** Certificate authorities trusted for https instead of Node's bundled ones; unset in production. */
	certificateAuthorities?: string[];
}

const PRIVATE_NETWORK_HINT =
	'loopback, private, link-local and cloud metadata addresses are blocked. Use a public host';
const METADATA_HINT =
	"(not even with allow_private_network: it hands out this machine's cloud credentials); use a public host";

/** The operating system's resolver (`dns.lookup`, so /etc/hosts applies), asked for every address. */
export async function resolveWithSystem(hostname: string): Promise<ResolvedAddress[]> {
	const answers = await systemLookup(hostname, { all: true });
	return answers.map((answer) => ({
		address: answer.address,
		family: answer.family === 6 ? 6 : 4,
	}));
}

/** Checks everything knowable before connecting: scheme, method, allowlist, host names and IP literals. */
export function checkHop(hop: Hop, settings: HttpRequestSettings, policy: ConnectionPolicy): void {
	const { url } = hop;
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new HttpRequestError(
			`http_request refused: only http and https URLs are supported, not ${url.protocol.replace(':', '')} (${url.href})`,
		);
	}
	if (!settings.allowedMethods.includes(hop.method)) {
		throw new HttpRequestError(
			`http_request refused: method ${hop.method} is not in allowed_methods [${settings.allowedMethods.join(', ')}]; use one of those methods`,
		);
	}
	const host = normalizeHost(url.hostname);
	if (!isHostAllowed(host, settings.allowedDomains)) {
		const allowed = settings.allowedDomains.map((rule) => rule.entry).join(', ');
		throw new HttpRequestError(
			`http_request refused: host ${host} is not in allowed_domains [${allowed}]; use one of those hosts`,
		);
	}
	if (settings.egressNamedIn !== undefined)
		checkEgress(url, settings.egressNamedIn, settings.allowedDomains.length > 0);
	if (isMetadataHostname(host)) {
		throw new HttpRequestError(
			`http_request refused: ${host} is a cloud metadata service name, which is never allowed ${METADATA_HINT}`,
		);
	}
	refuseInsecureHeaders(hop, settings);
	// Node connects to IP literals without calling the `lookup` option, so they are checked here instead.
	if (isIP(host)) refuseIfForbidden(host, host, policy, settings.allowPrivateNetwork);
	if (settings.allowPrivateNetwork) return;
	const nameReason = hostnameRefusalReason(host);
	if (nameReason)
		throw new HttpRequestError(
			`http_request refused: ${host} is ${nameReason}; ${PRIVATE_NETWORK_HINT}`,
		);
}

/**
 * The socket's `lookup`: resolves once, checks every address, and hands exactly those addresses to the
 * socket, so no name can be checked as public and then connect somewhere private (DNS rebinding).
 */
export function guardedLookup(
	policy: ConnectionPolicy,
	allowPrivateNetwork: boolean,
): LookupFunction {
	return (hostname, options, callback) => {
		policy.resolveHost(hostname).then(
			(addresses) => {
				try {
					if (addresses.length === 0)
						throw new HttpRequestError(
							`http_request failed: host ${hostname} has no addresses; check the host name`,
						);
					for (const { address } of addresses)
						refuseIfForbidden(address, hostname, policy, allowPrivateNetwork);
				} catch (error) {
					callback(error as NodeJS.ErrnoException, '');
					return;
				}
				const family =
					options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : options.family;
				const usable =
					family === 4 || family === 6
						? addresses.filter((address) => address.family === family)
						: addresses;
				if (options.all) callback(null, usable);
				else if (usable.length > 0) callback(null, usable[0].address, usable[0].family);
				else
					callback(
						Object.assign(new Error(`no IPv${family} address for ${hostname}`), {
							code: 'ENOTFOUND',
						}),
						'',
					);
			},
			(error: NodeJS.ErrnoException) => callback(error, ''),
		);
	};
}

/**
 * A secret header must not cross the network in clear, nor reach another service on the same host (a
 * debug port, say). Refusing beats sending the call without the header, which would fail in a way the
 * model cannot explain.
 */
function refuseInsecureHeaders(hop: Hop, settings: HttpRequestSettings): void {
	const { url } = hop;
	if (settings.allowInsecureHeaders || !carriesSettingsHeaders(hop, settings)) return;
	// URL leaves `port` empty for the scheme's default, so https://host:443/ passes as https://host/ does.
	if (url.protocol === 'https:' && url.port === '') return;
	const names = Object.keys(settings.headers).join(', ');
	const problem =
		url.protocol === 'https:'
			? `${url.origin} uses port ${url.port}`
			: `${url.origin} is plain http`;
	throw new HttpRequestError(
		`http_request refused: the configured headers (${names}) are sent only over https to the default port, and ${problem}; ` +
			`call https://${url.hostname}/ on the default port instead, or, for a plain-http API on a trusted network, ` +
			'set allow_insecure_headers: true in tool_settings.http_request',
	);
}

/** Throws when `address` (a literal `host`, or what `host` resolved to) may not be contacted under this policy. */
function refuseIfForbidden(
	address: string,
	host: string,
	policy: ConnectionPolicy,
	allowPrivateNetwork: boolean,
): void {
	// Judged by address-policy itself, not by the injectable classifier: no seam may open a metadata endpoint.
	const fixed = classifyAddress(address);
	if (fixed.alwaysForbidden) {
		throw new HttpRequestError(
			`http_request refused: ${subject(host, fixed)} is ${fixed.description} ${METADATA_HINT}`,
		);
	}
	if (allowPrivateNetwork) return;
	const classification = policy.classifyAddress(address);
	if (classification.forbidden) {
		throw new HttpRequestError(
			`http_request refused: ${subject(host, classification)} is ${classification.description}; ${PRIVATE_NETWORK_HINT}`,
		);
	}
}

function subject(host: string, classification: AddressClassification): string {
	return normalizeHost(host) === classification.address
		? host
		: `${host} resolves to ${classification.address}, which`;
}
