import http from 'node:http';
import https from 'node:https';
import { normalizeHost } from './address-policy';
import { guardedLookup, type ConnectionPolicy } from './http-connection-policy';
import type { Deadline } from './http-deadline';
import type { Hop } from './http-hop';
import { HttpRequestError } from './http-request-error';
import type { HttpRequestSettings } from './http-request-settings';

/**
 * One hop on the wire: sends it through a socket whose only resolver is the policy's `guardedLookup`,
 * and reads the answer's body up to a byte limit. Both stop when the deadline fires.
 */

/** Sends `hop` and resolves with the response head; the caller reads or destroys the body. */
export function sendHop(hop: Hop, settings: HttpRequestSettings, policy: ConnectionPolicy, deadline: Deadline): Promise<http.IncomingMessage> {
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
export function readBody(response: http.IncomingMessage, maxBytes: number, deadline: Deadline): Promise<{ body: Buffer; truncated: boolean }> {
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
  // A refusal from guardedLookup arrives here as the socket's error; its message is already the right one.
  if (error instanceof HttpRequestError) return error;
  const code = error.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new HttpRequestError(`http_request failed: could not resolve host ${url.hostname} (${code}); check the host name`);
  if (code === 'ECONNREFUSED') return new HttpRequestError(`http_request failed: ${url.host} refused the connection (ECONNREFUSED); the server is down or the port is wrong`);
  if (code === 'ECONNRESET') return new HttpRequestError(`http_request failed: ${url.host} closed the connection (ECONNRESET); retry once, then try another endpoint`);
  if (/CERT|SSL|TLS/.test(code)) return new HttpRequestError(`http_request failed: TLS problem with ${url.host} (${code}: ${error.message})`);
  return new HttpRequestError(`http_request failed: ${url.host}: ${error.message}${code ? ` (${code})` : ''}`);
}
