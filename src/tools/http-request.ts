import { lookup as systemLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import {
  classifyAddress as defaultClassifyAddress,
  hostnameRefusalReason,
  isHostAllowed,
  normalizeHost,
  parseDomainRules,
  type AddressClassification,
  type DomainRule,
} from './address-policy';
import type { JsonSchema, Tool, ToolContext } from './tool';

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
  maxRedirects: number;
}

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; called at connect time, and its answer is what the socket uses. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Seams for tests; production uses the defaults (`httpRequestTool`). Neither is reachable from args or settings. */
export interface HttpRequestToolOptions {
  /** Defaults to the operating system's resolver (`dns.lookup`, so /etc/hosts applies). */
  resolveHost?: HostResolver;
  /** Defaults to `classifyAddress` from address-policy; a test may declare one loopback address public to stand in for a real server. */
  classifyAddress?: (address: string) => AddressClassification;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1_000_000;
export const DEFAULT_MAX_REDIRECTS = 5;
const MAX_REDIRECTS_LIMIT = 10;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Dropped once a redirect leaves the original origin, like browsers do, so a token never follows a request elsewhere. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Set by the tool itself; `host` in particular would let the model reach another virtual host behind an allowed address. */
const MANAGED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);
const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
const HEADER_VALUE_PATTERN = '^[^\\r\\n\\u0000]*$';

/** JSON Schema of the args; the descriptions are what the model reads. */
export const httpRequestParameters: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 8192, description: 'Absolute http:// or https:// URL to call.' },
    method: { type: 'string', enum: [...HTTP_METHODS], description: 'HTTP method; default GET.' },
    headers: {
      type: 'object',
      propertyNames: { pattern: HEADER_NAME_PATTERN },
      additionalProperties: { type: 'string', pattern: HEADER_VALUE_PATTERN },
      description: 'Extra request headers, e.g. {"accept": "application/json"}. Credentials configured for this tool are added automatically; do not invent them.',
    },
    query: {
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
      description: 'Query parameters appended to the URL, e.g. {"q": "n8n", "page": 2}.',
    },
    body: {
      description: 'Request body. Objects and arrays are sent as JSON (content-type application/json); strings as text/plain unless you set a content-type header.',
    },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 300000, description: `Give up after this many milliseconds; default ${DEFAULT_TIMEOUT_MS}.` },
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
      description: 'Hosts the tool may call: exact names or IPs ("api.example.com") and wildcards ("*.example.com" matches subdomains, not example.com itself); case-insensitive. Empty or absent: any host that passes the address policy.',
    },
    allowed_methods: { type: 'array', items: { type: 'string', enum: [...HTTP_METHODS] }, description: 'Methods the tool may use; default (or empty) all five.' },
    max_response_bytes: { type: 'integer', minimum: 1, maximum: 100_000_000, description: `Response bytes read before cutting; default ${DEFAULT_MAX_RESPONSE_BYTES}.` },
    allow_private_network: {
      type: 'boolean',
      description: 'Allow loopback, private, link-local (cloud metadata) and other internal addresses; default false. allowed_domains still applies.',
    },
    headers: {
      type: 'object',
      propertyNames: { pattern: HEADER_NAME_PATTERN },
      additionalProperties: { type: 'string', pattern: HEADER_VALUE_PATTERN },
      description: 'Headers added to every request (e.g. an API token); the model never sees them and they are dropped when a redirect leaves the origin.',
    },
    max_redirects: { type: 'integer', minimum: 0, maximum: MAX_REDIRECTS_LIMIT, description: `Redirects followed per call; default ${DEFAULT_MAX_REDIRECTS}.` },
  },
  additionalProperties: false,
};

/** A refusal or failure whose message is already written for the model. */
class HttpRequestError extends Error {
  override name = 'HttpRequestError';
}

/** Applies defaults to an (already schema-validated) settings entry. */
export function readHttpRequestSettings(raw: Record<string, unknown> = {}): HttpRequestSettings {
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
  const methods = strings(raw.allowed_methods)
    .map((method) => method.toUpperCase())
    .filter((method): method is HttpMethod => (HTTP_METHODS as readonly string[]).includes(method));
  const headers: Record<string, string> = {};
  if (raw.headers && typeof raw.headers === 'object') {
    for (const [name, value] of Object.entries(raw.headers)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  const integer = (value: unknown, fallback: number) => (Number.isInteger(value) ? (value as number) : fallback);
  return {
    allowedDomains: parseDomainRules(strings(raw.allowed_domains)),
    allowedMethods: methods.length > 0 ? methods : [...HTTP_METHODS],
    maxResponseBytes: Math.max(1, integer(raw.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES)),
    allowPrivateNetwork: raw.allow_private_network === true,
    headers,
    maxRedirects: Math.min(MAX_REDIRECTS_LIMIT, Math.max(0, integer(raw.max_redirects, DEFAULT_MAX_REDIRECTS))),
  };
}

/** Builds the tool; `httpRequestTool` is this with the production defaults. */
export function createHttpRequestTool(options: HttpRequestToolOptions = {}): Tool<HttpRequestArgs> {
  const policy: ConnectionPolicy = {
    resolveHost: options.resolveHost ?? resolveWithSystem,
    classifyAddress: options.classifyAddress ?? defaultClassifyAddress,
  };
  return {
    name: 'http_request',
    description:
      'Call an HTTP(S) API or fetch a web page. Returns the status line, content type and size, then the body (JSON compacted). Non-2xx answers are returned too.',
    parameters: httpRequestParameters,
    settingsSchema: httpRequestSettingsSchema,
    async execute(args: HttpRequestArgs, context: ToolContext): Promise<string> {
      const settings = readHttpRequestSettings(context.settings);
      const secrets = secretSpellings(Object.values(settings.headers));
      const deadline = new Deadline(args.timeout_ms ?? DEFAULT_TIMEOUT_MS, context.signal);
      try {
        const response = await fetchFollowingRedirects(firstHop(args, settings), settings, policy, deadline);
        return cutToLength(redactSecrets(renderObservation(response), secrets), context.observationMaxLength);
      } catch (error) {
        const message = error instanceof HttpRequestError ? error.message : `http_request failed: ${(error as Error).message}`;
        throw new Error(redactSecrets(message, secrets));
      } finally {
        deadline.dispose();
      }
    },
  };
}

/** The `http_request` tool with the production resolver and address policy. */
export const httpRequestTool: Tool<HttpRequestArgs> = createHttpRequestTool();

interface ConnectionPolicy {
  resolveHost: HostResolver;
  classifyAddress: (address: string) => AddressClassification;
}

/** One request of the chain; `headers` are the model's (plus a default content-type), settings headers are added at send time. */
interface Hop {
  url: URL;
  method: HttpMethod;
  headers: Record<string, string>;
  body?: Buffer;
  /** Once a redirect has left the original origin, credentials stay off for the rest of the chain. */
  credentialsDropped: boolean;
}

async function resolveWithSystem(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await systemLookup(hostname, { all: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
}

function firstHop(args: HttpRequestArgs, settings: HttpRequestSettings): Hop {
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    throw new HttpRequestError(`http_request refused: url ${JSON.stringify(args.url)} is not a valid absolute URL; write it like https://api.example.com/path`);
  }
  if (url.username || url.password) {
    throw new HttpRequestError('http_request refused: the url contains a user name or password; send credentials in an authorization header instead');
  }
  for (const [name, value] of Object.entries(args.query ?? {})) url.searchParams.append(name, String(value));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(args.headers ?? {})) {
    const lowerName = name.toLowerCase();
    if (MANAGED_HEADERS.has(lowerName)) {
      throw new HttpRequestError(`http_request refused: header "${name}" is set by the tool itself; remove it (to call another host, change the url)`);
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

async function fetchFollowingRedirects(first: Hop, settings: HttpRequestSettings, policy: ConnectionPolicy, deadline: Deadline): Promise<FetchedResponse> {
  let hop = first;
  let redirects = 0;
  for (;;) {
    if (deadline.stopped) throw deadline.error();
    let response: http.IncomingMessage;
    try {
      checkHop(hop, settings, policy);
      response = await sendHop(hop, settings, policy, deadline);
    } catch (error) {
      if (redirects > 0 && error instanceof HttpRequestError && error.message.startsWith('http_request refused')) {
        error.message += ` (this url was reached by following a redirect from ${first.url.href})`;
      }
      throw error;
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(status) || !location) {
      const { body, truncated } = await readBody(response, settings.maxResponseBytes, deadline);
      const contentType = response.headers['content-type'];
      const statusText = response.statusMessage || http.STATUS_CODES[status] || '';
      return { status, statusText, contentType, body, truncated, finalUrl: hop.url.href, redirects };
    }
    response.destroy();
    if (redirects >= settings.maxRedirects) {
      throw new HttpRequestError(
        `http_request stopped: more than ${settings.maxRedirects} redirects (max_redirects); the last answer was ${status} to ${location}. Request the final URL directly or use another endpoint`,
      );
    }
    hop = redirectedHop(hop, status, location);
    redirects += 1;
  }
}

/** Follows the fetch standard: 303 becomes GET, and so does POST on 301/302; 307/308 keep method and body. */
function redirectedHop(hop: Hop, status: number, location: string): Hop {
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch {
    throw new HttpRequestError(`http_request failed: ${hop.url.host} answered ${status} with an invalid Location header ${JSON.stringify(location)}`);
  }
  const becomesGet = status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
  const credentialsDropped = hop.credentialsDropped || url.origin !== hop.url.origin;
  const headers = { ...hop.headers };
  if (becomesGet) delete headers['content-type'];
  if (credentialsDropped) for (const name of CREDENTIAL_HEADERS) delete headers[name];
  return { url, method: becomesGet ? 'GET' : hop.method, headers, body: becomesGet ? undefined : hop.body, credentialsDropped };
}

/** Checks everything knowable before connecting: scheme, method, allowlist, host names and IP literals. */
function checkHop(hop: Hop, settings: HttpRequestSettings, policy: ConnectionPolicy): void {
  const { url } = hop;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpRequestError(`http_request refused: only http and https URLs are supported, not ${url.protocol.replace(':', '')} (${url.href})`);
  }
  if (!settings.allowedMethods.includes(hop.method)) {
    throw new HttpRequestError(`http_request refused: method ${hop.method} is not in allowed_methods [${settings.allowedMethods.join(', ')}]; use one of those methods`);
  }
  const host = normalizeHost(url.hostname);
  if (!isHostAllowed(host, settings.allowedDomains)) {
    const allowed = settings.allowedDomains.map((rule) => rule.entry).join(', ');
    throw new HttpRequestError(`http_request refused: host ${host} is not in allowed_domains [${allowed}]; use one of those hosts`);
  }
  if (settings.allowPrivateNetwork) return;
  const nameReason = hostnameRefusalReason(host);
  if (nameReason) throw new HttpRequestError(`http_request refused: ${host} is ${nameReason}; ${PRIVATE_NETWORK_HINT}`);
  // Node connects to IP literals without calling the `lookup` option, so they are checked here instead.
  if (isIP(host)) refuseIfForbidden(policy.classifyAddress(host), host);
}

const PRIVATE_NETWORK_HINT = 'loopback, private, link-local and cloud metadata addresses are blocked. Use a public host';

function refuseIfForbidden(classification: AddressClassification, host: string): void {
  if (!classification.forbidden) return;
  const subject = normalizeHost(host) === classification.address ? host : `${host} resolves to ${classification.address}, which`;
  throw new HttpRequestError(`http_request refused: ${subject} is ${classification.description}; ${PRIVATE_NETWORK_HINT}`);
}

/**
 * The socket's `lookup`: resolves once, checks every address, and hands exactly those addresses to the
 * socket, so no name can be checked as public and then connect somewhere private (DNS rebinding).
 */
function guardedLookup(policy: ConnectionPolicy, allowPrivateNetwork: boolean): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolveHost(hostname).then(
      (addresses) => {
        try {
          if (addresses.length === 0) throw new HttpRequestError(`http_request failed: host ${hostname} has no addresses; check the host name`);
          if (!allowPrivateNetwork) for (const { address } of addresses) refuseIfForbidden(policy.classifyAddress(address), hostname);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '');
          return;
        }
        const family = options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : options.family;
        const usable = family === 4 || family === 6 ? addresses.filter((address) => address.family === family) : addresses;
        if (options.all) callback(null, usable);
        else if (usable.length > 0) callback(null, usable[0].address, usable[0].family);
        else callback(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function sendHop(hop: Hop, settings: HttpRequestSettings, policy: ConnectionPolicy, deadline: Deadline): Promise<http.IncomingMessage> {
  const headers: Record<string, string> = { 'user-agent': 'n8n-agent-core-http-request', 'accept-encoding': 'identity', ...hop.headers };
  if (!hop.credentialsDropped) Object.assign(headers, settings.headers);
  if (hop.body) headers['content-length'] = String(hop.body.length);
  return new Promise((resolve, reject) => {
    const transport = hop.url.protocol === 'https:' ? https : http;
    const request = transport.request({
      hostname: normalizeHost(hop.url.hostname),
      port: hop.url.port || undefined,
      path: `${hop.url.pathname}${hop.url.search}`,
      method: hop.method,
      headers,
      // A fresh agent per request: no pooled socket can carry a connection made under another call's policy.
      agent: false,
      lookup: guardedLookup(policy, settings.allowPrivateNetwork),
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

/** Reads at most `maxBytes`; beyond that the socket is destroyed so a huge or endless body costs nothing more. */
function readBody(response: http.IncomingMessage, maxBytes: number, deadline: Deadline): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      stopWatching();
      outcome();
    };
    const stopWatching = deadline.watch(() => finish(() => {
      response.destroy();
      reject(deadline.error());
    }));
    response.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = maxBytes - received;
      if (chunk.length <= room) {
        chunks.push(chunk);
        received += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, room));
      finish(() => resolve({ body: Buffer.concat(chunks), truncated: true }));
      response.destroy();
    });
    response.on('end', () => finish(() => resolve({ body: Buffer.concat(chunks), truncated: false })));
    response.on('error', () => finish(() => reject(new HttpRequestError('http_request failed: the connection closed while the response body was being read; retry once'))));
    response.on('close', () => finish(() => reject(new HttpRequestError('http_request failed: the connection closed before the response body was complete; retry once'))));
  });
}

function describeNetworkError(error: NodeJS.ErrnoException, url: URL): Error {
  if (error instanceof HttpRequestError) return error;
  const code = error.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new HttpRequestError(`http_request failed: could not resolve host ${url.hostname} (${code}); check the host name`);
  if (code === 'ECONNREFUSED') return new HttpRequestError(`http_request failed: ${url.host} refused the connection (ECONNREFUSED); the server is down or the port is wrong`);
  if (code === 'ECONNRESET') return new HttpRequestError(`http_request failed: ${url.host} closed the connection (ECONNRESET); retry once, then try another endpoint`);
  if (/CERT|SSL|TLS/.test(code)) return new HttpRequestError(`http_request failed: TLS problem with ${url.host} (${code}: ${error.message})`);
  return new HttpRequestError(`http_request failed: ${url.host}: ${error.message}${code ? ` (${code})` : ''}`);
}

/** The smaller of `timeout_ms` and the engine's abort signal; `watch` listeners run once when either fires. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private cause: 'timeout' | 'signal' | undefined;
  private readonly onSignal = () => this.stop('signal');

  constructor(private readonly timeoutMs: number, private readonly outer: AbortSignal) {
    this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
    if (outer.aborted) this.stop('signal');
    else outer.addEventListener('abort', this.onSignal, { once: true });
  }

  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  watch(listener: () => void): () => void {
    if (this.controller.signal.aborted) {
      queueMicrotask(listener);
      return () => undefined;
    }
    this.controller.signal.addEventListener('abort', listener, { once: true });
    return () => this.controller.signal.removeEventListener('abort', listener);
  }

  error(): HttpRequestError {
    if (this.cause === 'timeout') {
      return new HttpRequestError(`http_request timed out after ${this.timeoutMs} ms without a complete response; retry, raise timeout_ms (up to 300000), or ask for less data`);
    }
    const elapsed = Math.round(performance.now() - this.started);
    return new HttpRequestError(`http_request timed out after ${elapsed} ms: the tool call was stopped by the run's time limit or cancellation`);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer.removeEventListener('abort', this.onSignal);
  }

  private stop(cause: 'timeout' | 'signal'): void {
    if (this.cause) return;
    this.cause = cause;
    this.controller.abort();
  }
}

/** What the last hop answered, as read (body possibly cut at max_response_bytes). */
export interface FetchedResponse {
  status: number;
  statusText: string;
  contentType?: string;
  body: Buffer;
  truncated: boolean;
  finalUrl: string;
  redirects: number;
}

const TEXT_MEDIA_TYPE = /^text\/|[/+](json|xml)$|^application\/(javascript|ecmascript|x-www-form-urlencoded|x-ndjson|ndjson|yaml|x-yaml|graphql|csv|sql)$/;
const JSON_MEDIA_TYPE = /[/+]json$/;

/** Summary line (`HTTP 200 OK · application/json · 1234 bytes`), then the body: JSON compacted, text as is, binary summarised. */
export function renderObservation(response: FetchedResponse): string {
  const [mediaType, ...parameters] = (response.contentType ?? '').split(';').map((part) => part.trim());
  const size = `${response.body.length} bytes${response.truncated ? ` (truncated at ${response.body.length} bytes)` : ''}`;
  const lines = [[`HTTP ${response.status} ${response.statusText}`.trim(), mediaType.toLowerCase(), size].filter(Boolean).join(' · ')];
  if (response.redirects > 0) lines.push(`after ${response.redirects} redirect(s), final URL ${response.finalUrl}`);
  if (response.body.length > 0) lines.push(renderBody(response.body, mediaType.toLowerCase(), parameters));
  return lines.join('\n');
}

function renderBody(body: Buffer, mediaType: string, parameters: string[]): string {
  const looksTextual = mediaType ? TEXT_MEDIA_TYPE.test(mediaType) : !body.subarray(0, 8192).includes(0);
  if (!looksTextual) return `<binary ${body.length} bytes>`;
  const text = decodeText(body, parameters);
  if (!JSON_MEDIA_TYPE.test(mediaType)) return text;
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text; // a cut or malformed JSON body is still worth showing as it is
  }
}

function decodeText(body: Buffer, parameters: string[]): string {
  const charset = parameters.find((parameter) => /^charset=/i.test(parameter))?.slice('charset='.length).replace(/"/g, '');
  try {
    return new TextDecoder(charset || 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // unknown charset label
  }
}

/**
 * Cuts `text` so that it fits in `maxLength` characters including the marker `… [cut N characters]`;
 * 0 or a missing length means no limit.
 */
export function cutToLength(text: string, maxLength: number | undefined): string {
  if (!maxLength || maxLength <= 0 || text.length <= maxLength) return text;
  let keep = maxLength;
  // The marker's own length depends on the number it reports; two passes settle it.
  for (let pass = 0; pass < 2; pass += 1) keep = Math.max(0, maxLength - `… [cut ${text.length - keep} characters]`.length);
  const high = text.charCodeAt(keep - 1);
  if (keep > 0 && high >= 0xd800 && high <= 0xdbff) keep -= 1; // do not split a surrogate pair
  return `${text.slice(0, keep)}… [cut ${text.length - keep} characters]`;
}

/** The spellings a settings header value can take when a server echoes it back (raw, JSON-escaped, URL-encoded). */
function secretSpellings(values: string[]): string[] {
  // Very short values ("1", "yes") are not secrets, and redacting them would garble ordinary text.
  const spellings = values
    .filter((value) => value.length >= 4)
    .flatMap((value) => [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]);
  return [...new Set(spellings)].sort((left, right) => right.length - left.length);
}

function redactSecrets(text: string, secrets: string[]): string {
  return secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
}
