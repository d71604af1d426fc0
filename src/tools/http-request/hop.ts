import { HttpRequestError } from './error';
import type { HttpMethod, HttpRequestArgs, HttpRequestSettings } from './settings';

/** One request of the chain; `headers` are the model's (plus a default content-type), settings headers are added at send time. */
export interface Hop {
	url: URL;
	method: HttpMethod;
	headers: Record<string, string>;
	body?: Buffer;
	/** Once a redirect has left the original origin, credentials stay off for the rest of the chain. */
	credentialsDropped: boolean;
}

/** Dropped once a redirect leaves the original origin, like browsers do, so a token never follows a request elsewhere. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Set by the tool itself; `host` in particular would let the model reach another virtual host behind an allowed address. */
const MANAGED_HEADERS = new Set([
	'host',
	'content-length',
	'transfer-encoding',
	'connection',
	'keep-alive',
	'upgrade',
	'te',
	'trailer',
	'expect',
	'proxy-connection',
]);

/** Turns the model's args into the first request, refusing what no policy could make safe (credentials in the URL, managed headers). */
export function firstHop(
	args: HttpRequestArgs,
	settings: Pick<HttpRequestSettings, 'headers'>,
): Hop {
	let url: URL;
	try {
		url = new URL(args.url);
	} catch {
		throw new HttpRequestError(
			`http_request refused: url ${JSON.stringify(args.url)} is not a valid absolute URL; write it like https://api.example.com/path`,
		);
	}
	if (url.username || url.password) {
		throw new HttpRequestError(
			'http_request refused: the url contains a user name or password; send credentials in an authorization header instead',
		);
	}
	for (const [name, value] of Object.entries(args.query ?? {}))
		url.searchParams.append(name, String(value));
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(args.headers ?? {})) {
		const lowerName = name.toLowerCase();
		if (MANAGED_HEADERS.has(lowerName)) {
			throw new HttpRequestError(
				`http_request refused: header "${name}" is set by the tool itself; remove it (to call another host, change the url)`,
			);
		}
		headers[lowerName] = value;
	}
	let body: Buffer | undefined;
	if (args.body !== undefined) {
		const isText = typeof args.body === 'string';
		body = Buffer.from(isText ? (args.body as string) : JSON.stringify(args.body), 'utf8');
		if (!headers['content-type'] && !settings.headers['content-type']) {
			headers['content-type'] = isText ? 'text/plain; charset=utf-8' : 'application/json';
		}
	}
	const method = (args.method ?? 'GET').toUpperCase() as HttpMethod;
	return { url, method, headers, body, credentialsDropped: false };
}

/** Settings headers (an API token) go on every hop until a redirect has left the original origin. */
export function carriesSettingsHeaders(hop: Hop, settings: HttpRequestSettings): boolean {
	return !hop.credentialsDropped && Object.keys(settings.headers).length > 0;
}

/** Follows the fetch standard: 303 becomes GET, and so does POST on 301/302; 307/308 keep method and body. */
export function redirectedHop(hop: Hop, status: number, location: string): Hop {
	let url: URL;
	try {
		url = new URL(location, hop.url);
	} catch {
		throw new HttpRequestError(
			`http_request failed: ${hop.url.host} answered ${status} with an invalid Location header ${JSON.stringify(location)}`,
		);
	}
	const becomesGet =
		status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
	const credentialsDropped = hop.credentialsDropped || url.origin !== hop.url.origin;
	const headers = { ...hop.headers };
	if (becomesGet) delete headers['content-type'];
	if (credentialsDropped) for (const name of CREDENTIAL_HEADERS) delete headers[name];
	return {
		url,
		method: becomesGet ? 'GET' : hop.method,
		headers,
		body: becomesGet ? undefined : hop.body,
		credentialsDropped,
	};
}
