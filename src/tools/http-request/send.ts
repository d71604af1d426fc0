import http from 'node:http';
import https from 'node:https';
import { normalizeHost } from './address-policy';
import { guardedLookup, type ConnectionPolicy } from './connection-policy';
import type { Deadline } from './deadline';
import { carriesSettingsHeaders, type Hop } from './hop';
import { HttpRequestError } from './error';
import type { HttpRequestSettings } from './settings';

/**
 * One hop on the wire: sends it through a socket whose only resolver is the policy's `guardedLookup`,
 * and stops when the deadline fires. The body is read by `readBody` (body.ts).
 */

/**
 * Keep-alive agents, one per connection policy, scheme and `allow_private_network` (issue #20): a run's
 * calls to one host reuse a connection instead of opening one each. A pooled socket only ever carries
 * requests made under the rules it was checked with, since those rules pick the agent; every new
 * connection still resolves through `guardedLookup`. Idle sockets do not hold the process open (Node's
 * agent unrefs them) and close when the server ends them.
 */
const agents = new WeakMap<ConnectionPolicy, Map<string, http.Agent>>();

function agentFor(
	policy: ConnectionPolicy,
	secure: boolean,
	allowPrivateNetwork: boolean,
): http.Agent {
	let byRules = agents.get(policy);
	if (!byRules) agents.set(policy, (byRules = new Map()));
	const key = `${secure ? 'https' : 'http'}:${allowPrivateNetwork}`;
	let agent = byRules.get(key);
	if (!agent) {
		const options = { keepAlive: true, maxFreeSockets: 8, scheduling: 'lifo' as const };
		agent = secure ? new https.Agent(options) : new http.Agent(options);
		byRules.set(key, agent);
	}
	return agent;
}

/** Sends `hop` and resolves with the response head; the caller reads or destroys the body. */
export function sendHop(
	hop: Hop,
	settings: HttpRequestSettings,
	policy: ConnectionPolicy,
	deadline: Deadline,
): Promise<http.IncomingMessage> {
	// identity: compressed bodies are decoded (capped) if a server sends them anyway, but none is asked for.
	const headers: Record<string, string> = {
		'user-agent': 'n8n-agent-core-http-request',
		'accept-encoding': 'identity',
		...hop.headers,
	};
	if (carriesSettingsHeaders(hop, settings)) Object.assign(headers, settings.headers);
	if (hop.body) headers['content-length'] = String(hop.body.length);
	return new Promise((resolve, reject) => {
		const secure = hop.url.protocol === 'https:';
		const request = (secure ? https : http).request({
			hostname: normalizeHost(hop.url.hostname),
			port: hop.url.port || undefined,
			path: `${hop.url.pathname}${hop.url.search}`,
			method: hop.method,
			headers,
			agent: agentFor(policy, secure, settings.allowPrivateNetwork),
			lookup: guardedLookup(policy, settings.allowPrivateNetwork),
			...(secure && policy.certificateAuthorities ? { ca: policy.certificateAuthorities } : {}),
		});
		const stopWatching = deadline.watch(() => {
			request.destroy();
			reject(deadline.error());
		});
		request.once('response', (response) => {
			stopWatching();
			resolve(response);
		});
		request.on('error', (error: NodeJS.ErrnoException) => {
			stopWatching();
			reject(describeNetworkError(error, hop.url));
		});
		request.end(hop.body);
	});
}

function describeNetworkError(error: NodeJS.ErrnoException, url: URL): Error {
	// A refusal from guardedLookup arrives here as the socket's error; its message is already the right one.
	if (error instanceof HttpRequestError) return error;
	const code = error.code ?? '';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return new HttpRequestError(
			`http_request failed: could not resolve host ${url.hostname} (${code}); check the host name`,
		);
	if (code === 'ECONNREFUSED')
		return new HttpRequestError(
			`http_request failed: ${url.host} refused the connection (ECONNREFUSED); the server is down or the port is wrong`,
		);
	if (code === 'ECONNRESET')
		return new HttpRequestError(
			`http_request failed: ${url.host} closed the connection (ECONNRESET); retry once, then try another endpoint`,
		);
	if (/CERT|SSL|TLS/.test(code))
		return new HttpRequestError(
			`http_request failed: TLS problem with ${url.host} (${code}: ${error.message})`,
		);
	return new HttpRequestError(
		`http_request failed: ${url.host}: ${error.message}${code ? ` (${code})` : ''}`,
	);
}
