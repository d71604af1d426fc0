// The fetch the MCP transport sends through: http_request's address policy, headers for the server's origin only, no redirect, caps, retries.
import http from 'node:http';
import https from 'node:https';
import { normalizeHost } from '../http-request/address-policy';
import { checkHop, guardedLookup, type ConnectionPolicy } from '../http-request/connection-policy';
import { HttpRequestError } from '../http-request/error';
import { HTTP_METHODS, type HttpMethod, type HttpRequestSettings } from '../http-request/settings';
import { authorizationError } from './authorization';
import { McpTransportError } from './errors';
import { shownUrl, type McpServerConfig } from './config';
import { byteCap, headersOf, isEventStream, webStream, withCappedHints } from './response-body';
import { pausedForRetry, RETRY_STATUSES } from './retry';

/** The fetch the SDK's transport takes (`FetchLike`). */
export type McpFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
	server: McpServerConfig;
	/** The server's entry as the config names it (`mcp_servers[0]`), for the fix of a 401 or 403. */
	at: string;
	policy: ConnectionPolicy;
	/** Bytes of one response the transport may read; past it the response fails (the SDK would hold it all). */
	maxResponseBytes: number;
	/** When the operation under way must end (ms since the epoch): a POST is cut then, and no retry starts that would end later. */
	deadline(): number;
	/** Whether a POST of this JSON-RPC text may be sent again after it may have reached the server (a read, not a tool with side effects). */
	mayRepeat(body: string): boolean;
	/**
	 * How often the event stream may be opened again within one operation (see `startOperation`): a resumption with
	 * `Last-Event-ID`, or the server's own stream opened once more. Past it the GET is refused and `onCut` told.
	 */
	maxReconnections: number;
	/**
	 * Told when the operation under way cannot get its answer: one cut in the middle (over the byte cap), or an event
	 * stream closed once too often. The SDK only logs those, and its request would wait for its timeout.
	 */
	onCut(error: McpTransportError): void;
}

/** The fetch, what drops its connections, and what starts the count of reconnections afresh (at each operation). */
export interface GuardedFetch {
	fetch: McpFetch;
	close(): void;
	startOperation(): void;
}

/** Statuses whose Response has no body (the WHATWG Response refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/** A POST outside any operation (the SDK's cancel notice after a timeout, say) still ends within this. */
const LOOSE_POST_MS = 5_000;

/**
 * A fetch for one server: every request must go to the server's own origin (the SDK follows a redirect only
 * within it; this fetch follows none, so no header ever reaches another origin); the URL and every address
 * connected to pass http_request's address policy (`allow_private_network` per server, cloud metadata never);
 * the configured headers are added here and nowhere else; a response over `maxResponseBytes` fails; a request
 * that met a passing failure is sent again while the deadline allows, a POST after it may have reached the
 * server only when `mayRepeat` says so. `close()` drops its connections.
 */
export function guardedFetch(options: GuardedFetchOptions): GuardedFetch {
	const { server, policy } = options;
	const origin = new URL(server.url).origin;
	const allowPrivate = server.allow_private_network === true;
	const agent = new (origin.startsWith('https:') ? https : http).Agent({
		keepAlive: true,
		maxSockets: 4,
	});
	const settings: HttpRequestSettings = {
		allowedDomains: [],
		allowedMethods: [...HTTP_METHODS],
		maxResponseBytes: options.maxResponseBytes,
		allowPrivateNetwork: allowPrivate,
		headers: {},
		allowInsecureHeaders: true,
		maxRedirects: 0,
	};
	const where = `MCP server "${server.name}" (${shownUrl(server)})`;
	let eventStreamOpened = false;
	let reconnections = 0;

	const sendOnce = (
		url: URL,
		method: string,
		headers: Record<string, string>,
		body: string | undefined,
		signal: AbortSignal | undefined,
		endAt: number | undefined,
	) => {
		try {
			checkHop(
				{ url, method: method as HttpMethod, headers: {}, credentialsDropped: false },
				settings,
				policy,
			);
		} catch (error) {
			throw translated(error, where);
		}
		if (signal?.aborted)
			throw new McpTransportError(
				'timeout',
				`${where}: the request was stopped before it was sent`,
			);
		return new Promise<Response>((resolve, reject) => {
			const request = (url.protocol === 'https:' ? https : http).request({
				hostname: normalizeHost(url.hostname),
				port: url.port || undefined,
				path: `${url.pathname}${url.search}`,
				method,
				headers: {
					...headers,
					...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
				},
				agent,
				lookup: guardedLookup(policy, allowPrivate),
			});
			let timer: NodeJS.Timeout | undefined;
			const stop = (error: Error) => request.destroy(error);
			const onAbort = () =>
				stop(
					new McpTransportError(
						'timeout',
						`${where}: the request was stopped (the run ended or was cancelled)`,
					),
				);
			const cleanup = () => {
				clearTimeout(timer);
				signal?.removeEventListener('abort', onAbort);
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			if (endAt !== undefined)
				timer = setTimeout(
					() =>
						stop(
							new McpTransportError(
								'timeout',
								`${where} did not answer in time (mcp_servers[].timeout)`,
							),
						),
					Math.max(1, endAt - Date.now()),
				);
			request.once('response', (incoming) => {
				incoming.once('close', cleanup);
				const status = incoming.statusCode ?? 502;
				const capped = incoming.pipe(
					byteCap(options.maxResponseBytes, where, incoming, options.onCut),
				);
				const bodyStream = NULL_BODY_STATUSES.has(status)
					? null
					: webStream(isEventStream(incoming) ? withCappedHints(capped) : capped);
				resolve(
					new Response(bodyStream, {
						status,
						statusText: incoming.statusMessage ?? '',
						headers: headersOf(incoming.headers),
					}),
				);
			});
			request.once('error', (error) => {
				cleanup();
				reject(translated(error, where));
			});
			request.end(body);
		});
	};

	const fetch: McpFetch = async (input, init = {}) => {
		const url = new URL(String(input));
		if (url.origin !== origin)
			throw new McpTransportError(
				'origin',
				`${where} sent the client to ${url.origin}${url.pathname}, another origin; ` +
					`its headers go only to ${origin}, so it was not followed. Put the URL it names in mcp_servers[].url if you trust it`,
			);
		const method = (init.method ?? 'GET').toUpperCase();
		const body = typeof init.body === 'string' ? init.body : undefined;
		// The SDK's headers (session id, protocol version, accept), then the operator's: this is the server's origin.
		const headers: Record<string, string> = {
			'user-agent': 'n8n-agent-core-mcp',
			...Object.fromEntries(new Headers(init.headers as ConstructorParameters<typeof Headers>[0])),
			...(server.headers ?? {}),
		};
		if (method === 'GET') {
			// The SDK opens the stream again whenever one ends before its answer, each time as if for the first (MCP
			// 2025-11-25 transports, "Resumability and Redelivery"): the count of this operation bounds it.
			if (
				(eventStreamOpened || 'last-event-id' in headers) &&
				++reconnections > options.maxReconnections
			) {
				const error = new McpTransportError(
					'reset',
					`${where} ended its event stream ${reconnections} times without the answer; it was not opened again (at most ${options.maxReconnections} reconnections)`,
				);
				options.onCut(error);
				throw error;
			}
			eventStreamOpened = true;
		}
		const resuming = method === 'GET' && 'last-event-id' in headers;
		try {
			return await send(url, method, headers, body, init.signal, resuming);
		} catch (error) {
			// A resumption refused (a 401, an address, a redirect elsewhere) would be refused again: its call fails at once.
			if (resuming && error instanceof McpTransportError) options.onCut(error);
			throw error;
		}
	};

	const send = async (
		url: URL,
		method: string,
		headers: Record<string, string>,
		body: string | undefined,
		signal: AbortSignal | null | undefined,
		resuming: boolean,
	) => {
		const repeatable = method !== 'POST' || (body !== undefined && options.mayRepeat(body));
		// GET opens the server's event stream, which lives as long as the connection: only the transport's own signal ends it.
		const deadline = options.deadline();
		const endAt =
			method === 'GET' ? undefined : deadline > Date.now() ? deadline : Date.now() + LOOSE_POST_MS;
		for (let attempt = 1; ; attempt++) {
			let response: Response;
			try {
				response = await sendOnce(url, method, headers, body, signal ?? undefined, endAt);
			} catch (error) {
				const passing =
					error instanceof McpTransportError &&
					(error.problem === 'unreachable' || (error.problem === 'reset' && repeatable));
				if (!passing || !(await pausedForRetry(attempt, undefined, endAt, signal))) throw error;
				continue;
			}
			if (
				RETRY_STATUSES.has(response.status) &&
				(response.status === 429 || repeatable) &&
				(await pausedForRetry(attempt, response, endAt, signal))
			)
				continue;
			if (response.status === 401 || response.status === 403) {
				await response.body?.cancel().catch(() => undefined);
				throw authorizationError(response, server, options.at, where);
			}
			const location =
				resuming && response.status >= 300 && response.status < 400
					? response.headers.get('location')
					: null;
			const target =
				location === null
					? origin
					: URL.canParse(location, url.href)
						? new URL(location, url).origin
						: 'an unreadable address';
			if (target !== origin) {
				await response.body?.cancel().catch(() => undefined);
				throw new McpTransportError(
					'origin',
					`${where} sent the resumption of its event stream to ${target}, another origin; it was not followed`,
				);
			}
			return response;
		}
	};
	return { fetch, close: () => agent.destroy(), startOperation: () => (reconnections = 0) };
}

/** A refusal or network failure, in words that name the server and what to do. */
function translated(error: unknown, where: string): McpTransportError {
	if (error instanceof McpTransportError) return error;
	if (error instanceof HttpRequestError) {
		const reason = error.message.replace(/^http_request (refused|failed): /, '');
		const refused = error.message.startsWith('http_request refused');
		return new McpTransportError(
			refused ? 'refused' : 'unreachable',
			`${where} ${refused ? 'refused' : 'failed'}: ${reason}`,
		);
	}
	const code = (error as NodeJS.ErrnoException).code ?? '';
	const message = (error as Error).message;
	if (code === 'ECONNREFUSED')
		return new McpTransportError(
			'unreachable',
			`${where} refused the connection (ECONNREFUSED): the server is down or the port is wrong`,
		);
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return new McpTransportError('unreachable', `${where}: could not resolve its host (${code})`);
	if (code === 'ECONNRESET' || code === 'EPIPE')
		return new McpTransportError('reset', `${where} closed the connection (${code})`);
	if (/CERT|SSL|TLS/.test(code))
		return new McpTransportError('tls', `${where}: TLS problem (${code}: ${message})`);
	return new McpTransportError('unreachable', `${where}: ${message}${code ? ` (${code})` : ''}`);
}
