import type { DomainRule } from './host-rules';
import type { JsonSchema } from '../../validation/validate';
import { loadOnce } from '../../core/load-once';

/** The host rules (and ipaddr.js), loaded when settings are first checked or read: the node panels need only the schemas. */
const hostRules = loadOnce(() => require('./host-rules') as typeof import('./host-rules'));

/**
 * What the model may send to http_request and what `tool_settings.http_request` may configure:
 * the JSON Schemas, their defaults, and the reading of a settings entry into `HttpRequestSettings`.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Args of one http_request call, as the model sends them (already validated against the schema). */
export interface HttpRequestArgs {
	url: string;
	method?: HttpMethod;
	headers?: Record<string, string>;
	query?: Record<string, string | number | boolean>;
	body?: unknown;
	timeout_ms?: number;
}

/** `tool_settings.http_request` after defaults are applied. */
export interface HttpRequestSettings {
	/** Empty: any host that passes the address policy. */
	allowedDomains: DomainRule[];
	allowedMethods: HttpMethod[];
	maxResponseBytes: number;
	allowPrivateNetwork: boolean;
	/** Added to every request (names lower-cased); never shown to the model. */
	headers: Record<string, string>;
	/** Lets `headers` travel over plain http or to a non-default port; off, such a call is refused. */
	allowInsecureHeaders: boolean;
	maxRedirects: number;
	/**
	 * With `egress_hosts: "from_prompt"`: the run's trusted text (the user's turns and the instructions), in
	 * which a host must be named (unless allowed_domains lists it). Absent: any host (`"any"`, the default).
	 */
	egressNamedIn?: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1_000_000;
export const DEFAULT_MAX_REDIRECTS = 5;
const MAX_REDIRECTS_LIMIT = 10;
/** An HTTP header name (RFC 9110 token); fixed headers from settings or a credential must match it. */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
const HEADER_VALUE_PATTERN = '^[^\\r\\n\\u0000]*$';

/** JSON Schema of the args; the descriptions are what the model reads. */
export const httpRequestParameters: JsonSchema = {
	type: 'object',
	properties: {
		url: {
			type: 'string',
			pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
			maxLength: 8192,
			description: 'Absolute http:// or https:// URL to call.',
		},
		method: { type: 'string', enum: [...HTTP_METHODS], description: 'HTTP method; default GET.' },
		headers: {
			type: 'object',
			propertyNames: { pattern: HEADER_NAME_PATTERN },
			additionalProperties: { type: 'string', pattern: HEADER_VALUE_PATTERN },
			description:
				'Extra request headers, e.g. {"accept": "application/json"}. Credentials configured for this tool are added automatically; do not invent them.',
		},
		query: {
			type: 'object',
			additionalProperties: {
				anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
			},
			description: 'Query parameters appended to the URL, e.g. {"q": "n8n", "page": 2}.',
		},
		body: {
			description:
				'Request body. Objects and arrays are sent as JSON (content-type application/json); strings as text/plain unless you set a content-type header.',
		},
		timeout_ms: {
			type: 'integer',
			minimum: 1,
			maximum: 300000,
			description: `Give up after this many milliseconds; default ${DEFAULT_TIMEOUT_MS}.`,
		},
	},
	required: ['url'],
	additionalProperties: false,
};

/** JSON Schema of `tool_settings.http_request`. */
export const httpRequestSettingsSchema: JsonSchema = {
	type: 'object',
	properties: {
		allowed_domains: {
			type: 'array',
			items: { type: 'string', minLength: 1 },
			description:
				'Hosts the tool may call: exact names or IPs ("api.example.com") and wildcards ' +
				'("*.example.com" matches subdomains, not example.com itself); case-insensitive; ' +
				'host names only, without scheme, port or path. Empty or absent: any host that passes the address policy.',
		},
		allowed_methods: {
			type: 'array',
			items: { type: 'string', enum: [...HTTP_METHODS] },
			description: 'Methods the tool may use; default (or empty) all five.',
		},
		max_response_bytes: {
			type: 'integer',
			minimum: 1,
			maximum: 100_000_000,
			description: `Response bytes read before cutting; default ${DEFAULT_MAX_RESPONSE_BYTES}.`,
		},
		allow_private_network: {
			type: 'boolean',
			description:
				'Allow loopback, private, link-local and other internal addresses; default false. allowed_domains still applies, ' +
				'and cloud metadata endpoints (169.254.169.254, metadata.google.internal, …) stay refused.',
		},
		headers: {
			type: 'object',
			propertyNames: { pattern: HEADER_NAME_PATTERN },
			additionalProperties: { type: 'string', pattern: HEADER_VALUE_PATTERN },
			description:
				'Headers added to every request (e.g. an API token); the model never sees them and they are dropped ' +
				'when a redirect leaves the origin. They go only over https to the default port (443): ' +
				'a call to http:// or another port is refused unless allow_insecure_headers.',
		},
		allow_insecure_headers: {
			type: 'boolean',
			description:
				'Also send headers over plain http and to non-default ports; default false. For a plain-http API ' +
				'on a private network or a local test server: the token then crosses the network readable by anyone on the path.',
		},
		max_redirects: {
			type: 'integer',
			minimum: 0,
			maximum: MAX_REDIRECTS_LIMIT,
			description: `Redirects followed per call; default ${DEFAULT_MAX_REDIRECTS}.`,
		},
		egress_hosts: {
			type: 'string',
			enum: ['any', 'from_prompt'],
			description:
				'Where requests may go: "any" (default) host that passes the address policy and allowed_domains, ' +
				'or "from_prompt": only hosts named in the user\'s messages or the instructions (or in allowed_domains), ' +
				"never one that only a tool's output mentioned. A host is named by a URL, a dotted name " +
				'(example.com, api.example.com:8443, 10.0.0.5, [::1]) or a word with a port (localhost:3000), ' +
				'not by a bare word; a named port allows only that port, no port allows 443 ' +
				'(and 80, except for an https:// URL). Redirects are checked the same way.',
		},
	},
	additionalProperties: false,
};

/**
 * Problems the schema cannot express, as `path: problem` lines. An allowed_domains entry that is not a
 * host (a URL, say) would match nothing and make every call fail; and fixed headers usually carry a
 * credential while the model picks the URLs, so without allowed_domains they would go to any host it
 * (or a page it read) names.
 */
export function checkHttpRequestSettings(raw: Record<string, unknown>): string[] {
	const headers = raw.headers && typeof raw.headers === 'object' ? Object.keys(raw.headers) : [];
	const domains = Array.isArray(raw.allowed_domains) ? raw.allowed_domains : [];
	const problems = domains.flatMap((entry, index) => {
		const problem = typeof entry === 'string' ? hostRules().domainEntryProblem(entry) : undefined;
		return problem ? [`allowed_domains[${index}]: ${problem.reason}; ${problem.fix}`] : [];
	});
	if (headers.length > 0 && domains.length === 0) {
		problems.push(
			`headers: fixed headers (${headers.join(', ')}) are sent only to allowed_domains, and allowed_domains is empty; ` +
				'list the hosts they are meant for, e.g. "allowed_domains": ["api.example.com"] ' +
				"(in n8n, the 'Agent Core: HTTP Request Tool API' credential holds a secret header with its hosts)",
		);
	}
	return problems;
}

/** Applies defaults to an (already schema-validated) settings entry. */
export function readHttpRequestSettings(
	raw: Record<string, unknown> = {},
	trustedText?: string,
): HttpRequestSettings {
	const strings = (value: unknown) =>
		Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
	const methods = strings(raw.allowed_methods)
		.map((method) => method.toUpperCase())
		.filter((method): method is HttpMethod => (HTTP_METHODS as readonly string[]).includes(method));
	const headers: Record<string, string> = {};
	if (raw.headers && typeof raw.headers === 'object') {
		for (const [name, value] of Object.entries(raw.headers))
			if (typeof value === 'string') headers[name.toLowerCase()] = value;
	}
	const integer = (value: unknown, fallback: number) =>
		Number.isInteger(value) ? (value as number) : fallback;
	return {
		allowedDomains: hostRules().parseDomainRules(strings(raw.allowed_domains)),
		allowedMethods: methods.length > 0 ? methods : [...HTTP_METHODS],
		maxResponseBytes: Math.max(1, integer(raw.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES)),
		allowPrivateNetwork: raw.allow_private_network === true,
		headers,
		allowInsecureHeaders: raw.allow_insecure_headers === true,
		maxRedirects: Math.min(
			MAX_REDIRECTS_LIMIT,
			Math.max(0, integer(raw.max_redirects, DEFAULT_MAX_REDIRECTS)),
		),
		...(raw.egress_hosts === 'from_prompt' ? { egressNamedIn: trustedText ?? '' } : {}),
	};
}
