// What an MCP server's 401 or 403 tells the operator: that it wants a token, which header carries it, and whether it speaks OAuth.
import { McpTransportError } from './errors';
import type { McpServerConfig } from './config';

/** How much of the server's WWW-Authenticate an error repeats (the server writes it; the message is the operator's). */
const MAX_SHOWN_PARAMETER = 200;

/**
 * The refusal as a transport error naming the server's config entry (`at`, e.g. `mcp_servers[0]`) and the header to set.
 * MCP's authorization (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization, "Authorization
 * Server Discovery" and "Scope Challenge Handling") has a protected server answer 401 with `WWW-Authenticate: Bearer
 * resource_metadata="…"` (RFC 9728 §5.1) and a token without the rights 403 with `error="insufficient_scope"`. Agent
 * Core does not run OAuth flows: the operator gets a token elsewhere and configures it as a header.
 */
export function authorizationError(
	response: Response,
	server: McpServerConfig,
	at: string,
	where: string,
): McpTransportError {
	const challenge = readChallenge(response.headers.get('www-authenticate'));
	const sent = Object.keys(server.headers ?? {});
	const tokenHeader = sent.find((name) => name.toLowerCase() === 'authorization');
	const sentNames = sent.map((name) => `${at}.headers.${name}`).join(', ');
	const bearerKey = `${at}.headers.${tokenHeader ?? 'Authorization'}`;
	const oauth = challenge.oauth
		? `; its WWW-Authenticate says it uses OAuth${challenge.metadata ? ` (resource metadata: ${challenge.metadata})` : ''}, ` +
			'which Agent Core does not perform: a bearer token header is the way'
		: '';
	const getToken = challenge.oauth
		? 'a token from its OAuth authorization server (or its operator)'
		: 'a token from its operator';
	if (response.status === 401) {
		const what =
			sent.length === 0
				? 'it wants a token, and none is configured'
				: `it did not accept what ${sentNames} sent (a wrong or expired token?)`;
		return new McpTransportError(
			'unauthorized',
			`${where} answered HTTP 401 Unauthorized: ${what}${oauth}`,
			`Set ${bearerKey} to "Bearer <token>", with ${getToken}.`,
		);
	}
	const scope =
		challenge.error === 'insufficient_scope'
			? ` (insufficient_scope${challenge.scope ? `: it asks for the scope "${challenge.scope}"` : ''})`
			: '';
	const what =
		sent.length === 0
			? 'it refused access, and no token is configured'
			: `it refused access for the token in ${sentNames}${scope}`;
	return new McpTransportError(
		'forbidden',
		`${where} answered HTTP 403 Forbidden: ${what}${oauth}`,
		`Put a token with the rights the server asks for in ${bearerKey}, or ask the server's operator for access.`,
	);
}

interface Challenge {
	oauth: boolean;
	metadata?: string;
	error?: string;
	scope?: string;
}

/** The parts of a WWW-Authenticate value an operator needs; a Bearer challenge or one naming resource metadata means OAuth. */
function readChallenge(value: string | null): Challenge {
	if (!value) return { oauth: false };
	const parameter = (name: string) => {
		const match = new RegExp(`(?:^|[\\s,])${name}\\s*=\\s*(?:"([^"]*)"|([^\\s,]*))`, 'i').exec(
			value,
		);
		const found = match?.[1] ?? match?.[2];
		return found ? shown(found) : undefined;
	};
	const metadata = parameter('resource_metadata');
	const oauth = /^\s*bearer\b/i.test(value) || metadata !== undefined;
	return {
		oauth,
		...(metadata ? { metadata } : {}),
		...optional('error', parameter('error')),
		...optional('scope', parameter('scope')),
	};
}

/** The server's text without control characters, cut to a length a message can carry. */
function shown(text: string): string {
	const clean = text.replace(/[\u0000-\u001f\u007f]/g, '');
	return clean.length > MAX_SHOWN_PARAMETER ? `${clean.slice(0, MAX_SHOWN_PARAMETER)}…` : clean;
}

function optional<Key extends string>(
	key: Key,
	value: string | undefined,
): Partial<Record<Key, string>> {
	return value === undefined ? {} : ({ [key]: value } as Record<Key, string>);
}
